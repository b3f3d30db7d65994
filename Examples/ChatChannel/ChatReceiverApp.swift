import CastJSON
import CastEmulator
import Synchronization

/// The receiver-side half of the chat example, for the emulated receiver: it answers `SAY` with
/// `SAID` (the text upper-cased and a running count) and broadcasts each line to every sender.
public final class ChatReceiverHandler: EmulatedReceiverAppHandler {
    private let count = Mutex(0)

    /// Creates the handler.
    public init() {}

    /// Answers one message.
    public func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
        guard let json = message.json, json["type"] == "SAY", let text = json["text"]?.stringValue else {
            return [.reply(["type": "ERROR", "requestId": message.json?["requestId"] ?? 0, "reason": "UNKNOWN_MESSAGE"])]
        }
        let total = count.withLock { $0 += 1; return $0 }
        return [
            .reply(["type": "SAID", "requestId": json["requestId"] ?? 0, "text": .string(text.uppercased()), "count": .number(Double(total))]),
            .broadcast(["type": "LINE", "text": .string(text)]),
        ]
    }

    /// The chat app, ready to register with a `EmulatedReceiverConfiguration`.
    public static func app() -> EmulatedReceiverApp {
        EmulatedReceiverApp(appId: ChatChannel.appId, displayName: "Castor Chat", namespaces: [ChatChannel.namespace],
                        handler: ChatReceiverHandler())
    }
}
