import CastJSON
import CastEmulator

/// A custom app that answers every message on its namespace.
///
/// By default it sends the request object itself back (so `requestId` and `type` come back as
/// sent, and a sender waiting for a reply to its request gets it); with `wrapped`, the older
/// `{"echo": <message>}` form (the receiver still adds the request's `requestId`).
struct EchoAppHandler: EmulatedReceiverAppHandler {
    var wrapped = false

    func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
        if wrapped { return [.reply(["echo": message.json ?? .string(message.text)])] }
        return [EmulatedReceiverAppResponse(audience: .sender, text: message.text)]
    }
}
