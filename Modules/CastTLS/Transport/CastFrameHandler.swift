import NIOCore

/// The last handler of a Cast socket pipeline: splits the decrypted byte stream into frames, decodes
/// each with a ``CastFrameDecoder`` and hands the message, or the error that ends the connection, to
/// the transport's core.
///
/// One handler where there were two (NIO's `ByteToMessageHandler` around the decoder, then a bridge to
/// the core): a message goes from the decoder to the core as a value, without being boxed in an
/// `NIOAny`, passed down the pipeline and cast back, and without `ByteToMessageHandler`'s general
/// machinery, which this one stream of length-prefixed frames does not need.
///
/// Bounded like the decoder: a frame's length is read and checked (at most
/// `CastFrame.maxBodySize`) before its body is waited for, so the bytes held are at most one frame
/// and one read. Any decoding error is final: it is recorded as the close reason, the channel is
/// closed, and nothing read later is decoded. A read that arrives while a message is being handed
/// over (a consumer that makes the channel read again, synchronously) is appended and decoded by the
/// loop already running, so messages keep their order.
final class CastFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let core: ChannelTransportCore
    private var decoder = CastFrameDecoder()
    /// Bytes read and not yet decoded (`nil` when there are none).
    private var buffered: ByteBuffer?
    /// Set while the decoding loop runs: a re-entrant read only appends.
    private var decoding = false
    /// Set by the first error: the connection is closing, later bytes are dropped.
    private var failed = false
    /// Set when the channel went inactive while the loop ran: it decodes the whole frames already read,
    /// then drops the rest.
    private var inputEnded = false

    init(core: ChannelTransportCore) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var incoming = unwrapInboundIn(data)
        if var pending = buffered {
            buffered = nil
            // The start of the unfinished frame moves to the front, so the buffer never holds more than it.
            if pending.readerIndex > 0 { pending.discardReadBytes() }
            pending.writeBuffer(&incoming)
            buffered = pending
        } else {
            buffered = incoming
        }
        guard !decoding else { return }
        decoding = true
        defer { decoding = false }
        decodeBuffered(context: context)
        if inputEnded { buffered = nil }
    }

    /// Decodes and hands over every complete frame buffered, one at a time: the buffer is touched only
    /// between hand-overs, where a re-entrant read may have appended to it.
    private func decodeBuffered(context: ChannelHandlerContext) {
        while !failed, var bytes = buffered {
            buffered = nil
            let message: CastMessage?
            do {
                message = try decoder.decodeFrame(from: &bytes)
            } catch {
                fail(context: context, error)
                return
            }
            if bytes.readableBytes > 0 { buffered = bytes }
            guard let message else { return }
            core.yield(message)
        }
    }

    private func fail(context: ChannelHandlerContext, _ error: CastTransportError) {
        failed = true
        buffered = nil
        core.record(error)
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.record(ChannelTransportCore.transportError(from: error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A partial frame left over is dropped: the peer went away mid-frame. While a message is being handed
        // over (the consumer's write failed and closed the channel), the running loop first decodes the whole
        // frames already read, as NIO's `ByteToMessageHandler` did; they come before the end, which follows.
        if decoding {
            inputEnded = true
        } else {
            buffered = nil
        }
        // After the current loop task: the socket can close inside a handler's own write (a flush that
        // fails), and the handler must not get the end while it is still handling a message.
        let core = self.core
        context.eventLoop.execute { core.finish() }
        context.fireChannelInactive()
    }
}
