import CastJSON
import CastReceiver

/// The receiver's side, inside the emulated device: answers GREET, copying the `requestId` so that
/// the sender's `request(_:)` gets its answer.
struct GreetingApp: CastReceiverAppHandler {
    func handle(_ message: CastReceiverAppMessage) -> [CastReceiverAppResponse] {
        guard let request = message.json, request["type"] == "GREET", let name = request["name"]?.stringValue else { return [] }
        return [.reply(["type": "GREETING", "greeting": .string("Hello, \(name)!"), "requestId": request["requestId"] ?? .null])]
    }
}
