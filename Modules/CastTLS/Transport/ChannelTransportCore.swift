import NIOCore
import Synchronization

/// The state a socket transport shares with its channel handlers: the inbound queue (or the handler
/// that takes inbound messages instead) and why it closed.
///
/// The inbound queue is bounded: once more than ``inboundLimit`` bytes of decoded messages wait for
/// the consumer of ``inbound``, ``isInboundFull`` tells the ``ReadGateHandler`` to stop reading from
/// the socket, and the consumer's pulls reopen it (below half the limit). A peer that writes faster
/// than its messages are handled therefore waits in TCP flow control instead of in our memory.
final class ChannelTransportCore: Sendable {
    /// The default bound of the inbound queue: 1 MiB of encoded messages.
    static let defaultInboundLimit = 1 << 20

    let inbound: AsyncThrowingStream<CastMessage, any Error>
    /// The bytes of decoded messages the inbound queue holds before reading pauses.
    let inboundLimit: Int
    private let queue: InboundQueue
    private struct State {
        var closeReason: CastTransportError?
        var closedLocally = false
        var finished = false
        /// Takes inbound messages instead of the queue, once installed (see ``deliver(to:)``).
        var handler: (@Sendable (CastInboundEvent) -> Void)?
    }
    private let state = Mutex(State())

    init(inboundLimit: Int = ChannelTransportCore.defaultInboundLimit) {
        self.inboundLimit = inboundLimit
        let queue = InboundQueue(limit: inboundLimit)
        self.queue = queue
        inbound = AsyncThrowingStream(unfolding: { try await queue.next() })
    }

    /// Hands a decoded message to the handler, or queues it on ``inbound``. On the event loop.
    func yield(_ message: CastMessage) {
        if let handler = state.withLock({ $0.handler }) {
            handler(.message(message))
        } else {
            queue.push(message)
        }
    }

    /// Makes `handler` the taker of inbound messages: what the queue holds first, then each message
    /// as it is decoded, then the end. Must run on the channel's event loop, which also calls
    /// ``yield(_:)`` and (on channel inactive) ``finish()``, so nothing is delivered out of order.
    func deliver(to handler: @escaping @Sendable (CastInboundEvent) -> Void) {
        let (queued, end) = queue.takeAll()
        for message in queued { handler(.message(message)) }
        switch end {
        case .success: return handler(.ended(nil))
        case .failure(let error): return handler(.ended(error))
        case nil: break
        }
        state.withLock { $0.handler = handler }
    }

    /// Whether the inbound queue is at its limit (reading should pause).
    var isInboundFull: Bool { queue.isFull }

    /// Called (from the consumer's task) when a full inbound queue has drained to half its limit.
    func onInboundDrained(_ body: @escaping @Sendable () -> Void) { queue.onDrained(body) }

    /// Records the first error; later ones are ignored.
    func record(_ error: CastTransportError) {
        state.withLock { if $0.closeReason == nil && !$0.closedLocally { $0.closeReason = error } }
    }

    func markClosedLocally() { state.withLock { $0.closedLocally = true } }

    var closeReason: CastTransportError? { state.withLock { $0.closeReason } }

    /// Ends the inbound stream: cleanly after a local close or a clean peer close, else with the error.
    /// Messages already queued are still delivered first.
    func finish() {
        let (reason, alreadyFinished, handler) = state.withLock {
            state -> (CastTransportError?, Bool, (@Sendable (CastInboundEvent) -> Void)?) in
            defer {
                state.finished = true
                state.handler = nil
            }
            if state.closeReason == nil && !state.closedLocally {
                state.closeReason = CastTransportError(code: .peerClosed, message: "The peer closed the connection")
                return (nil, state.finished, state.handler)
            }
            return (state.closedLocally ? nil : state.closeReason, state.finished, state.handler)
        }
        guard !alreadyFinished else { return }
        if let handler {
            handler(.ended(reason))
        } else {
            queue.finish(throwing: reason)
        }
    }

    /// Maps anything a pipeline can raise to a transport error.
    static func transportError(from error: any Error) -> CastTransportError {
        switch error {
        case let error as CastTransportError: return error
        case let error as TLSError: return CastTransportError(code: .tls, message: error.message, cause: error)
        case let error as IOError: return CastTransportError(code: .io, message: "\(error)", cause: error)
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.outputClosed:
            return CastTransportError(code: .closed, message: "The connection is closed")
        case ChannelError.connectTimeout:
            return CastTransportError(code: .connectTimeout, message: "TCP connect timed out")
        default:
            return CastTransportError(code: .io, message: "\(error)")
        }
    }
}

extension Channel {
    /// Installs the read gate, TLS and the frame handler (framing, and the hand-over to `core`); returns the TLS handler's handshake future.
    func addCastHandlers(
        role: GnuTLSHandler.Role, core: ChannelTransportCore, gate: ReadGateHandler
    ) throws -> (GnuTLSHandler, EventLoopFuture<GnuTLSHandshakeCompleted>) {
        let tls = try GnuTLSHandler(role: role)
        let operations = pipeline.syncOperations
        try operations.addHandler(gate)
        try operations.addHandler(tls)
        try operations.addHandler(CastFrameHandler(core: core))
        return (tls, tls.handshakeFuture!)
    }
}
