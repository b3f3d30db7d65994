import NIOCore

/// First in a Cast socket pipeline (below TLS): decides when to read from the socket.
///
/// Reading pauses while the transport's inbound queue is full (the consumer is behind; see
/// ``ChannelTransportCore``) and, when an unsent-bytes limit is given, while the channel is not
/// writable: more than that many bytes of ciphertext wait for a peer that does not read (the
/// channel's high write watermark is set to the limit). A peer still over the limit when the
/// limit's timeout passes (on the injected clock) is dropped with
/// `CastTransportError.Code.peerNotReading`. Loop-bound: used on its channel's event loop only.
final class ReadGateHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How a server treats a peer that stops reading.
    struct UnsentLimit: Sendable {
        /// Ciphertext bytes waiting for the peer before reading from it stops.
        var bytes: Int
        /// How long it may stay over the limit before it is dropped.
        var timeout: Duration
        var clock: ElapsedClock
        /// Told when reading stops (`true`) or resumes (`false`) because of the limit.
        var report: @Sendable (_ paused: Bool) -> Void
    }

    private let core: ChannelTransportCore
    private let unsentLimit: UnsentLimit?
    /// Called once, when the first bytes arrive (a server notes that the peer spoke).
    private var firstBytes: (() -> Void)?
    private var context: ChannelHandlerContext?
    /// A read the channel asked for while the gate was closed.
    private var readPending = false
    /// The peer is behind: the channel is over its high write watermark.
    private var peerBehind = false
    private var dropTask: Task<Void, Never>?

    init(core: ChannelTransportCore, unsentLimit: UnsentLimit?, firstBytes: (() -> Void)? = nil) {
        self.core = core
        self.unsentLimit = unsentLimit
        self.firstBytes = firstBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let firstBytes {
            self.firstBytes = nil
            firstBytes()
        }
        context.fireChannelRead(data)
    }

    private var isClosed: Bool { peerBehind || core.isInboundFull }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        core.onInboundDrained {
            bound.eventLoop.execute { bound.value.reopenIfPossible() }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        dropTask?.cancel()
        dropTask = nil
        self.context = nil
        // The drained handler holds this gate, and the gate holds the core: replacing it breaks the
        // cycle, which kept every connection's gate and inbound queue alive for good.
        core.onInboundDrained {}
    }

    func channelInactive(context: ChannelHandlerContext) {
        dropTask?.cancel()
        dropTask = nil
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if isClosed {
            readPending = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        defer { context.fireChannelWritabilityChanged() }
        guard let limit = unsentLimit else { return }
        if !context.channel.isWritable, !peerBehind {
            peerBehind = true
            limit.report(true)
            let deadline = limit.clock.elapsed() + limit.timeout
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            dropTask = Task {
                do { try await limit.clock.sleepUntil(deadline) } catch { return }
                bound.eventLoop.execute { bound.value.dropDeadlinePassed() }
            }
        } else if context.channel.isWritable, peerBehind {
            peerBehind = false
            dropTask?.cancel()
            dropTask = nil
            limit.report(false)
            reopenIfPossible()
        }
    }

    private func reopenIfPossible() {
        guard let context, readPending, !isClosed else { return }
        readPending = false
        context.read()
    }

    private func dropDeadlinePassed() {
        guard let context, let limit = unsentLimit, peerBehind else { return }
        core.record(CastTransportError(
            code: .peerNotReading,
            message: "\(context.channel.remoteAddress.map(TLSCastTransport.describe) ?? "The peer") stopped reading: more than "
                + "\(limit.bytes) bytes stayed unsent to it for \(limit.timeout.castDescription)"))
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ReadGateHandler: Sendable {}
