import NIOCore

/// What `castor-bench decode --stage inbound` measures: the handlers a socket transport decodes its
/// bytes with, after TLS, installed on a channel the benchmark drives (an embedded channel, one thread).
@_spi(Benchmarking)
public enum CastInboundPipelineBenchmark {
    /// Adds the frame handler, with a core that hands each decoded message (and the end) to `deliver`,
    /// to `channel`. Call it on the channel's event loop.
    public static func install(on channel: any Channel, deliver: @escaping @Sendable (CastInboundEvent) -> Void) throws {
        let core = ChannelTransportCore()
        try channel.pipeline.syncOperations.addHandler(CastFrameHandler(core: core))
        core.deliver(to: deliver)
    }
}
