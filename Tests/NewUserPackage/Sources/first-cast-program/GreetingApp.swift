import CastJSON
import CastEmulator

/// The receiver's side, inside the emulated device: answers GREET, copying the `requestId` so that
/// the sender's `request(_:)` gets its answer.
struct GreetingApp: EmulatedReceiverAppHandler {
    func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
        guard let request = message.json, request["type"] == "GREET", let name = request["name"]?.stringValue else { return [] }
        return [.reply(["type": "GREETING", "greeting": .string("Hello, \(name)!"), "requestId": request["requestId"] ?? .null])]
    }
}
