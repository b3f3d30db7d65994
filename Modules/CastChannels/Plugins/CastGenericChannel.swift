public import CastJSON

/// A channel for any custom namespace that hands its messages out as an `AsyncSequence`:
/// the counterpart of the Google SDK's `GCKGenericChannel`.
///
/// ```swift
/// let chat = try CastGenericChannel(namespace: CastNamespace("urn:x-cast:com.example.chat"))
/// try await connection.add(chat)
/// try await chat.send(["type": "HELLO"])            // once the app runs
/// for await message in chat.messages { ... }
/// ```
public final class CastGenericChannel: CastChannelPlugin {
    /// Connection changes and messages, in order.
    public enum Event: Sendable {
        /// The channel connected to an app (or the platform).
        case connected(transportId: String)
        /// A message arrived.
        case message(CastChannelMessage)
        /// The channel disconnected.
        case disconnected(CastChannelDisconnectReason)
    }

    /// The channel's namespace.
    public let namespace: CastNamespace
    /// Whom it talks to.
    public let endpoint: CastChannelEndpoint
    private let link: CastChannelLink
    private let broadcaster = CastBroadcaster<Event>()

    /// Creates a channel for `namespace`.
    public init(namespace: CastNamespace, endpoint: CastChannelEndpoint = .application) {
        self.namespace = namespace
        self.endpoint = endpoint
        link = CastChannelLink(notConnectedMessage: "\(namespace) is not connected to a running app")
    }

    /// Every event from now on; each call gives an independent sequence.
    public var events: AsyncStream<Event> { broadcaster.subscribe() }

    /// Every message from now on; each call gives an independent sequence.
    public var messages: AsyncStream<CastChannelMessage> {
        let events = broadcaster.subscribe()
        return AsyncStream { continuation in
            let task = Task {
                for await event in events {
                    if case .message(let message) = event { continuation.yield(message) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether the channel is connected now.
    public var isConnected: Bool { link.isConnected }

    /// Sends a JSON message.
    /// - Throws: ``CastChannelError`` `.notConnected` before the app runs, or a send error.
    public func send(_ json: JSONValue) async throws(CastChannelError) {
        try await link.send(json)
    }

    /// Sends a JSON request and waits for the reply carrying its `requestId`.
    public func request(_ json: JSONValue, timeout: Duration? = nil) async throws(CastChannelError) -> CastChannelMessage {
        try await link.request(json, timeout: timeout)
    }

    /// Records the context and publishes ``Event/connected(transportId:)``.
    public func channelDidConnect(_ context: CastChannelContext) async {
        link.connect(context)
        broadcaster.yield(.connected(transportId: context.transportId))
    }

    /// Forgets the context and publishes ``Event/disconnected(_:)``.
    public func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        link.disconnect(reason: reason)
        broadcaster.yield(.disconnected(reason))
    }

    /// Publishes ``Event/message(_:)``.
    public func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        broadcaster.yield(.message(message))
    }
}
