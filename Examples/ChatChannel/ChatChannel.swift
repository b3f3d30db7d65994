import CastChannels
import CastJSON
import Synchronization

/// A custom `urn:x-cast:` channel, as a sender-side plugin: the example of "Writing a channel plugin".
///
/// It talks to the `ChatReceiverApp` (the receiver-side half, for the emulated receiver): `say`
/// sends a line and awaits the app's answer; lines the app broadcasts arrive on ``lines``.
public final class ChatChannel: CastChannelPlugin {
    /// The namespace both halves speak.
    public static let namespace = "urn:x-cast:com.castor.example.chat"
    /// The app id of the chat receiver app.
    public static let appId = "C4A7C4A7"

    /// The channel's namespace.
    public let namespace: CastNamespace
    /// The connection state and the typed "not connected" error (the plugin kit's ``CastChannelLink``).
    private let link = CastChannelLink(notConnectedMessage: "The chat app is not running")
    /// The fan-out of broadcast lines: bounded per reader, and a reader that stopped is dropped at once.
    private let broadcastLines = CastBroadcaster<String>(bufferLimit: 256)

    /// Creates the channel.
    public init() {
        // The literal is a valid custom namespace; a failure here is a programming error.
        namespace = try! CastNamespace(Self.namespace)
    }

    /// Lines broadcast by the app (from any sender), from now on. A reader that falls more than 256
    /// lines behind loses the oldest; a stream whose reader stopped is forgotten.
    public var lines: AsyncStream<String> { broadcastLines.subscribe() }

    /// How many ``lines`` streams are being read now.
    public var lineReaderCount: Int { broadcastLines.subscriberCount }

    /// Sends a line and returns the app's answer.
    /// - Throws: ``CastChannelError`` `.notConnected` when the chat app is not running, or the request's error.
    public func say(_ text: String) async throws(CastChannelError) -> ChatReply {
        let reply = try await link.request(["type": "SAY", "text": .string(text)])
        guard reply.type == "SAID", let json = reply.json, let echoed = json["text"]?.stringValue,
            let count = json["count"]?.intValue
        else {
            throw CastChannelError(code: .malformedReply, message: "Unexpected chat reply", reply: reply.json)
        }
        return ChatReply(text: echoed, count: count)
    }

    /// Keeps the context for ``say(_:)``.
    public func channelDidConnect(_ context: CastChannelContext) async {
        link.connect(context)
    }

    /// Forgets the context.
    public func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        link.disconnect(reason: reason)
    }

    /// Publishes broadcast lines.
    public func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        guard message.type == "LINE", let text = message.json?["text"]?.stringValue else { return }
        broadcastLines.yield(text)
    }
}

/// The chat app's answer to a line.
public struct ChatReply: Sendable, Hashable {
    /// The line as the app understood it (upper-cased, to prove it went through the app).
    public var text: String
    /// How many lines the app has received in its session.
    public var count: Int
}
