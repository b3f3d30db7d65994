import NIOCore
import Synchronization

/// The state a socket transport shares with its channel handlers: the inbound stream and why it closed.
final class ChannelTransportCore: Sendable {
    let inbound: AsyncThrowingStream<CastMessage, any Error>
    private let continuation: AsyncThrowingStream<CastMessage, any Error>.Continuation
    private struct State {
        var closeReason: CastTransportError?
        var closedLocally = false
        var finished = false
    }
    private let state = Mutex(State())
    private let observer = Mutex<(@Sendable (CastMessage) -> Void)?>(nil)

    init() {
        (inbound, continuation) = AsyncThrowingStream.makeStream()
    }

    /// Shows the message to the observer (on the event loop), then queues it on ``inbound``.
    func yield(_ message: CastMessage) {
        observer.withLock { $0 }?(message)
        continuation.yield(message)
    }

    func observe(_ body: @escaping @Sendable (CastMessage) -> Void) {
        observer.withLock { $0 = body }
    }

    /// Records the first error; later ones are ignored.
    func record(_ error: CastTransportError) {
        state.withLock { if $0.closeReason == nil && !$0.closedLocally { $0.closeReason = error } }
    }

    func markClosedLocally() { state.withLock { $0.closedLocally = true } }

    var closeReason: CastTransportError? { state.withLock { $0.closeReason } }

    /// Ends the inbound stream: cleanly after a local close or a clean peer close, else with the error.
    func finish() {
        let (reason, alreadyFinished) = state.withLock { state -> (CastTransportError?, Bool) in
            defer { state.finished = true }
            if state.closeReason == nil && !state.closedLocally {
                state.closeReason = CastTransportError(code: .peerClosed, message: "The peer closed the connection")
                return (nil, state.finished)
            }
            return (state.closedLocally ? nil : state.closeReason, state.finished)
        }
        guard !alreadyFinished else { return }
        if let reason { continuation.finish(throwing: reason) } else { continuation.finish() }
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

/// The last handler of a Cast socket pipeline: hands decoded messages and errors to the core.
final class CastMessageBridgeHandler: ChannelInboundHandler {
    typealias InboundIn = CastMessage

    private let core: ChannelTransportCore

    init(core: ChannelTransportCore) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        core.yield(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.record(ChannelTransportCore.transportError(from: error))
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is GnuTLSCloseNotifyReceived {
            // A clean TLS shutdown by the peer: the stream will finish without error.
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.finish()
        context.fireChannelInactive()
    }
}

extension Channel {
    /// Installs TLS, framing and the bridge; returns the TLS handler's handshake future.
    func addCastHandlers(role: GnuTLSHandler.Role, core: ChannelTransportCore) throws -> (GnuTLSHandler, EventLoopFuture<GnuTLSHandshakeCompleted>) {
        let tls = try GnuTLSHandler(role: role)
        let operations = pipeline.syncOperations
        try operations.addHandler(tls)
        try operations.addHandler(ByteToMessageHandler(CastFrameDecoder()))
        try operations.addHandler(CastMessageBridgeHandler(core: core))
        return (tls, tls.handshakeFuture!)
    }
}
