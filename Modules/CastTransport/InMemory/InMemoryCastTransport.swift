import Synchronization

/// A transport whose two ends live in one process: what one end sends, the other receives.
///
/// For unit tests of channel logic without sockets. Messages still pass the frame-size check,
/// so an oversize message fails here as it would on a socket.
public final class InMemoryCastTransport: CastInboundObservingTransport {
    private struct State {
        var peer: InMemoryCastTransport?
        var closed = false
        var closeReason: CastTransportError?
        var observer: (@Sendable (CastMessage) -> Void)?
    }

    /// Messages from the other end.
    public let inbound: AsyncThrowingStream<CastMessage, any Error>
    private let continuation: AsyncThrowingStream<CastMessage, any Error>.Continuation
    private let state = Mutex(State())
    /// A name for logs.
    public let peerDescription: String

    private init(name: String) {
        (inbound, continuation) = AsyncThrowingStream.makeStream()
        peerDescription = name
    }

    /// Makes two connected ends.
    public static func pair() -> (InMemoryCastTransport, InMemoryCastTransport) {
        let sender = InMemoryCastTransport(name: "in-memory receiver end")
        let receiver = InMemoryCastTransport(name: "in-memory sender end")
        sender.state.withLock { $0.peer = receiver }
        receiver.state.withLock { $0.peer = sender }
        return (sender, receiver)
    }

    /// Delivers `message` to the other end.
    public func send(_ message: CastMessage) async throws {
        let peer = try state.withLock { state throws(CastTransportError) in
            guard !state.closed, let peer = state.peer else {
                throw state.closeReason ?? CastTransportError(code: .closed, message: "Transport is closed")
            }
            return peer
        }
        let size = message.encodedSize
        guard size <= CastFrame.maxBodySize else {
            throw CastTransportError(
                code: .messageTooLarge,
                message: "Message of \(size) bytes exceeds the \(CastFrame.maxBodySize)-byte frame limit")
        }
        // Queue first, then tell the observer: the observer may complete a request at once, and the
        // requester may send (and be answered) before this task runs again; had the observer come
        // first, that answer could be queued ahead of this message, and a plugin saw a broadcast
        // before the reply it follows (seen as a media channel stuck on an old status).
        peer.continuation.yield(message)
        peer.state.withLock { $0.observer }?(message)
    }

    /// Shows each message from the other end to `observer` (on the sending task) before it is queued on ``inbound``.
    public func observeInbound(_ observer: @escaping @Sendable (CastMessage) -> Void) {
        state.withLock { $0.observer = observer }
    }

    /// Closes both ends: this end's inbound finishes, the other end sees `.peerClosed`.
    public func close() async {
        closeLocally(reason: nil)?.closeLocally(
            reason: CastTransportError(code: .peerClosed, message: "The other end closed"))
    }

    /// Simulates the connection dying: both ends fail with `error`.
    public func fail(_ error: CastTransportError) {
        closeLocally(reason: error)?.closeLocally(reason: error)
    }

    @discardableResult
    private func closeLocally(reason: CastTransportError?) -> InMemoryCastTransport? {
        let peer: InMemoryCastTransport? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            state.closeReason = reason
            defer { state.peer = nil }
            return state.peer
        }
        if let reason { continuation.finish(throwing: reason) } else { continuation.finish() }
        return peer
    }

    /// Why this end closed, if it was not closed by its own ``close()``.
    public var closeReason: CastTransportError? { state.withLock { $0.closeReason } }
}
