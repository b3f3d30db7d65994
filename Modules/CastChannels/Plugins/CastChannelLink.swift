public import CastJSON
import Synchronization

/// The connection state of a channel plugin: its ``CastChannelContext`` while the virtual connection
/// is open, `nil` otherwise, and the typed "not connected" error every plugin needs.
///
/// A plugin keeps one link, hands it the context in ``CastChannelPlugin/channelDidConnect(_:)`` and
/// drops it in ``CastChannelPlugin/channelDidDisconnect(_:reason:)``; its commands send through the
/// link, which throws ``CastChannelError/Code/notConnected`` (with your message) while the receiver
/// app is not running. Together with ``CastBroadcaster`` for its events, that is everything the
/// first-party plugins use; a plugin is still one type conforming to one small protocol.
///
/// ```swift
/// final class ScoreChannel: CastChannelPlugin {
///     let namespace = try! CastNamespace("urn:x-cast:com.example.score")
///     private let link = CastChannelLink(notConnectedMessage: "The score app is not running")
///     func channelDidConnect(_ context: CastChannelContext) async { link.connect(context) }
///     func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
///         link.disconnect(reason: reason)
///     }
///     func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {}
///     func reset() async throws(CastChannelError) { _ = try await link.request(["type": "RESET"]) }
/// }
/// ```
public final class CastChannelLink: Sendable {
    private struct State {
        var context: CastChannelContext?
        var lastDisconnect: CastChannelDisconnectReason?
    }
    private let state = Mutex(State())
    private let changes = CastBroadcaster<Bool>(bufferLimit: 16)

    /// The message of the ``CastChannelError/Code/notConnected`` error thrown while disconnected.
    public let notConnectedMessage: String

    /// Creates a link, disconnected.
    ///
    /// - Parameter notConnectedMessage: what the error thrown while disconnected says, such as
    ///   "The chat app is not running".
    public init(notConnectedMessage: String = "The channel is not connected: its receiver app is not running") {
        self.notConnectedMessage = notConnectedMessage
    }

    /// The context while the channel is connected.
    public var context: CastChannelContext? { state.withLock { $0.context } }

    /// Whether the channel is connected now.
    public var isConnected: Bool { context != nil }

    /// Why the channel last disconnected (`nil` before its first disconnection).
    public var lastDisconnectReason: CastChannelDisconnectReason? { state.withLock { $0.lastDisconnect } }

    /// Whether the channel is connected: the current value first, then every change.
    public var connectionChanges: AsyncStream<Bool> {
        state.withLock { state in changes.subscribe(startingWith: state.context != nil) }
    }

    /// Records the open connection; call it from ``CastChannelPlugin/channelDidConnect(_:)``.
    public func connect(_ context: CastChannelContext) {
        state.withLock { state in
            state.context = context
            changes.yield(true)
        }
    }

    /// Forgets the context; call it from ``CastChannelPlugin/channelDidDisconnect(_:reason:)``.
    public func disconnect(reason: CastChannelDisconnectReason) {
        state.withLock { state in
            state.context = nil
            state.lastDisconnect = reason
            changes.yield(false)
        }
    }

    /// The context, or the typed error a command of a disconnected plugin throws.
    ///
    /// - Throws: ``CastChannelError`` ``CastChannelError/Code/notConnected`` with ``notConnectedMessage``.
    public func requireContext() throws(CastChannelError) -> CastChannelContext {
        guard let context else { throw CastChannelError(code: .notConnected, message: notConnectedMessage) }
        return context
    }

    /// Sends `json` on the channel without waiting for an answer.
    ///
    /// - Throws: ``CastChannelError`` `.notConnected`, or what the context's `send(_:)` throws.
    public func send(_ json: JSONValue) async throws(CastChannelError) {
        try await requireContext().send(json)
    }

    /// Sends a request and waits for its reply (see ``CastChannelContext/request(_:timeout:)``).
    ///
    /// - Parameters:
    ///   - json: a JSON object with at least a `type`; its `requestId` is set.
    ///   - timeout: the deadline; `nil` uses the connection's request timeout.
    /// - Throws: ``CastChannelError`` `.notConnected`, or what the context's request throws.
    public func request(_ json: JSONValue, timeout: Duration? = nil) async throws(CastChannelError) -> CastChannelMessage {
        try await requireContext().request(json, timeout: timeout)
    }
}
