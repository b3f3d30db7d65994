import Synchronization

/// A transport whose two ends live in one process: what one end sends, the other receives.
///
/// For unit tests of channel logic without sockets. Messages still pass the frame-size check,
/// so an oversize message fails here as it would on a socket.
public final class InMemoryCastTransport: CastTransport {
    private struct State {
        var peer: InMemoryCastTransport?
        var closed = false
        var closeReason: CastTransportError?
        /// Takes this end's inbound messages instead of ``inbound``, once installed.
        var handler: (@Sendable (CastInboundEvent) -> Void)?
        /// Events for the handler, in order; one thread at a time hands them over (``drain(_:)``).
        var pending: [CastInboundEvent] = []
        var draining = false
        /// The end was received: nothing more is.
        var ended = false
    }

    /// Messages from the other end.
    public let inbound: AsyncThrowingStream<CastMessage, any Error>
    /// What ``inbound`` has not yielded yet (until a handler takes over).
    private let queue = InboundQueue(limit: .max)
    private let state = Mutex(State())
    /// A name for logs.
    public let peerDescription: String

    private init(name: String) {
        let queue = self.queue
        inbound = AsyncThrowingStream(unfolding: { try await queue.next() })
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

    /// Delivers `message` to the other end: to its ``inbound``, or to its handler on this thread
    /// (unless another thread is handing it messages already, which then hands this one over too).
    public func send(_ message: CastMessage) throws(CastTransportError) {
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
        peer.received(.message(message))
    }

    /// Hands each message from the other end, then the end, to `handler`, on the thread that sent
    /// it (what ``inbound`` had not yielded yet first, on this thread); ``inbound`` yields nothing afterwards.
    ///
    /// The handler never runs inside itself or on two threads at once: a message sent meanwhile
    /// (by the handler, through the other end, or by another thread) waits until the running call
    /// returns and is then handed over by that thread, so each end sees its messages one at a time
    /// and in order, as on a socket.
    public func deliverInbound(to handler: @escaping @Sendable (CastInboundEvent) -> Void) {
        let start = state.withLock { state -> Bool in
            let (queued, end) = queue.takeAll()
            state.pending = queued.map { .message($0) } + state.pending
            switch end {
            case .success: state.pending.append(.ended(nil))
            case .failure(let error): state.pending.append(.ended(error))
            case nil: break
            }
            state.handler = handler
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if start { drain(handler) }
    }

    /// An event for this end: queued on ``inbound``, or handed to the handler.
    private func received(_ event: CastInboundEvent) {
        let handler = state.withLock { state -> (@Sendable (CastInboundEvent) -> Void)? in
            guard !state.ended else { return nil }
            if case .ended = event { state.ended = true }
            guard let handler = state.handler else {
                switch event {
                case .message(let message): queue.push(message)
                case .ended(let error): queue.finish(throwing: error)
                }
                return nil
            }
            state.pending.append(event)
            guard !state.draining else { return nil }
            state.draining = true
            return handler
        }
        if let handler { drain(handler) }
    }

    /// Hands pending events to the handler until there are none; the caller set `draining`.
    private func drain(_ handler: @Sendable (CastInboundEvent) -> Void) {
        while true {
            let next = state.withLock { state -> CastInboundEvent? in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return nil
                }
                let event = state.pending.removeFirst()
                if case .ended = event { state.handler = nil }
                return event
            }
            guard let next else { return }
            handler(next)
        }
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
        received(.ended(reason))
        return peer
    }

    /// Why this end closed, if it was not closed by its own ``close()``.
    public var closeReason: CastTransportError? { state.withLock { $0.closeReason } }
}
