import CastJSON
import CastTestSupport
import CastCore

@testable import CastChannels

/// A fake device with a platform that can run one app, scripted on an in-memory transport.
final class FakeDevice: Sendable {
    static let appTransport = "app-transport-1"
    static let appSession = "app-session-1"
    static let chatNamespace = "urn:x-cast:com.example.chat"

    let peer: ScriptedCastPeer
    let senderEnd: InMemoryCastTransport!
    let running = Mutex(false)

    convenience init() {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        self.init(senderEnd: senderEnd, receiverEnd: receiverEnd)
    }

    /// A device answering on `receiverEnd` (for example an accepted TLS connection). `configure` adds
    /// rules before the device reads its first message: a rule added after `init` can miss the first
    /// messages of a sender that is already talking, such as the device-auth challenge a TLS sender sends
    /// right after its handshake (which the device then answered as one without credentials).
    init(senderEnd: InMemoryCastTransport?, receiverEnd: any CastTransport, configure: (ScriptedCastPeer) -> Void = { _ in }) {
        self.senderEnd = senderEnd
        peer = ScriptedCastPeer(transport: receiverEnd)
        let receiver = "urn:x-cast:com.google.cast.receiver"
        peer.on(namespace: receiver, type: "GET_STATUS") { [self] message, json in
            [message.reply(json: status(requestId: json["requestId"]!))]
        }
        peer.on(namespace: receiver, type: "LAUNCH") { [self] message, json in
            switch json["appId"]?.stringValue {
            case "CHAT":
                running.withLock { $0 = true }
                return [message.broadcast(json: status(requestId: json["requestId"]!))]
            default:
                return [message.reply(json: ["type": "LAUNCH_ERROR", "requestId": json["requestId"]!, "reason": "NOT_FOUND"])]
            }
        }
        peer.on(namespace: receiver, type: "STOP") { [self] message, json in
            running.withLock { $0 = false }
            let close = CastMessage(sourceId: Self.appTransport, destinationId: message.sourceId,
                                    namespace: "urn:x-cast:com.google.cast.tp.connection", json: ["type": "CLOSE"])
            return [close, message.broadcast(json: status(requestId: json["requestId"]!))]
        }
        peer.on(namespace: Self.chatNamespace, type: "ECHO") { message, json in
            [message.reply(json: ["type": "ECHOED", "requestId": json["requestId"] ?? 0, "text": json["text"] ?? .null])]
        }
        configure(peer)
        peer.start()
    }

    func status(requestId: JSONValue) -> JSONValue {
        var status: JSONValue = ["volume": ["level": 0.5, "muted": false, "controlType": "attenuation", "stepInterval": 0.05]]
        if running.withLock({ $0 }) {
            status["applications"] = [[
                "appId": "CHAT", "displayName": "Chat", "sessionId": .string(Self.appSession),
                "transportId": .string(Self.appTransport), "isIdleScreen": false,
                "namespaces": [["name": .string(Self.chatNamespace)], ["name": "urn:x-cast:com.google.cast.media"]],
            ]]
        }
        return ["type": "RECEIVER_STATUS", "requestId": requestId, "status": status]
    }
}

import Synchronization

/// A plugin that records what it is told.
final class RecordingPlugin: CastChannelPlugin {
    enum Call: Equatable, Sendable { case connect(String), message(String), disconnect(CastChannelDisconnectReason) }
    let namespace: CastNamespace
    let calls = Mutex<[Call]>([])
    private let broadcaster = CastBroadcaster<Call>()

    init(namespace: String = FakeDevice.chatNamespace) throws {
        self.namespace = try CastNamespace(namespace)
    }

    var stream: AsyncStream<Call> { broadcaster.subscribe() }

    func record(_ call: Call) {
        calls.withLock { $0.append(call) }
        broadcaster.yield(call)
    }
    func channelDidConnect(_ context: CastChannelContext) async { record(.connect(context.transportId)) }
    func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async { record(.disconnect(reason)) }
    func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async { record(.message(message.type ?? "?")) }
}

extension AsyncStream {
    /// The next element, or nil when finished.
    func first() async -> Element? {
        var iterator = makeAsyncIterator()
        return await iterator.next()
    }
}
