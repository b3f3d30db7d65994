import CastCore
import CastStreaming
import Logging
import NIOCore
import NIOPosix

/// The network side of a mirroring session, on one event loop: its UDP socket, the stream senders,
/// their timers, and the checks that end the session (a silent receiver, a stalled source).
actor MirroringTransmitter {
    enum Kind: Sendable, Hashable { case audio, video }

    nonisolated let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    private let clock: ElapsedClock
    private let options: CastMirroringOptions
    private let logger: Logger
    private var senders: [Kind: StreamSender]
    private var bitRate: BitrateController?
    private var channel: (any Channel)?
    private let remote: SocketAddress
    private var timer: Scheduled<Void>?
    private var timerDeadline: Duration?
    private var lastTimerFire: Duration?
    private var lastRTCP: Duration?
    private var lastInput: [Kind: Duration] = [:]
    private var started: Duration
    private var failure: StreamingError?
    private var finished = false
    private var waiters: [CheckedContinuation<StreamingError?, Never>] = []
    private(set) var framesCaptured = 0
    /// Asks an encoder for a key frame; bit rate changes go to the video encoder.
    var onKeyFrameNeeded: (@Sendable () -> Void)?
    var onBitRate: (@Sendable (Int) -> Void)?

    init(loop: any EventLoop, remote: SocketAddress, senders: [Kind: StreamSender], options: CastMirroringOptions,
         clock: ElapsedClock, logger: Logger) {
        self.loop = loop
        self.remote = remote
        self.senders = senders
        self.options = options
        self.clock = clock
        self.logger = logger
        started = clock.elapsed()
        if senders[.video] != nil {
            bitRate = BitrateController(minimum: options.minimumVideoBitRate, maximum: options.maximumVideoBitRate,
                                        initial: options.initialVideoBitRate)
        }
    }

    func setHandlers(keyFrame: @escaping @Sendable () -> Void, bitRate: @escaping @Sendable (Int) -> Void) {
        onKeyFrameNeeded = keyFrame
        onBitRate = bitRate
    }

    /// Binds the UDP socket (any local address of the remote's family, a free port).
    func open() async throws(StreamingError) {
        let host = remote.protocol == .inet6 ? "::" : "0.0.0.0"
        do {
            channel = try await DatagramBootstrap(group: loop)
                .channelInitializer { [weak self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RTCPInbound { bytes in
                            self?.assumeIsolated { $0.datagram(bytes) }
                        })
                    }
                }
                .bind(host: host, port: 0).get()
        } catch {
            throw StreamingError(code: .socketFailed, message: "cannot open a UDP socket", cause: error)
        }
        started = clock.elapsed()
        rearm()
    }

    /// The current counters.
    var statistics: (video: StreamSender.Statistics?, audio: StreamSender.Statistics?, bitRate: Int?) {
        (senders[.video]?.statistics, senders[.audio]?.statistics, bitRate?.current)
    }

    // MARK: Input

    /// An input reached the encoder (for the stall check).
    func noteInput(_ kind: Kind) {
        lastInput[kind] = clock.elapsed()
        if kind == .video { framesCaptured += 1 }
    }

    /// Hands encoded frames over from an encoder's queue, in the order they come (a task per frame
    /// could reach the actor out of order).
    nonisolated func deliver(_ frames: [EncodedFrame], kind: Kind, timeBase: Int) {
        loop.execute { self.assumeIsolated { $0.send(frames, kind: kind, timeBase: timeBase) } }
    }

    /// Encoded frames of a stream: sent, or refused when too much is in flight.
    func send(_ frames: [EncodedFrame], kind: Kind, timeBase: Int) {
        guard !finished, var sender = senders[kind] else { return }
        let now = clock.elapsed()
        for frame in frames {
            let rtp = Int64((Double(frame.captureTime.components.seconds) + Double(frame.captureTime.components.attoseconds) / 1e18) * Double(timeBase))
            switch sender.send(StreamSender.Frame(data: frame.data, isKeyFrame: frame.isKeyFrame, captureTime: frame.captureTime, rtpTimestamp: rtp), at: now) {
            case .success(let actions): write(actions)
            case .failure(let refusal): logger.trace("frame refused", metadata: ["stream": "\(kind)", "reason": "\(refusal)"])
            }
        }
        senders[kind] = sender
        if kind == .video, sender.needsKeyFrame { onKeyFrameNeeded?() }
        rearm()
    }

    private func datagram(_ bytes: [UInt8]) {
        guard !finished, !RTPPacket.looksLikeRTP(bytes), let packets = try? RTCPPacket.parseCompound(bytes) else { return }
        let now = clock.elapsed()
        lastRTCP = now
        for kind in Array(senders.keys) {
            guard var sender = senders[kind] else { continue }
            write(sender.receive(packets, at: now))
            senders[kind] = sender
        }
        if senders[.video]?.needsKeyFrame == true { onKeyFrameNeeded?() }
        adjustBitRate(now: now)
        rearm()
    }

    private func adjustBitRate(now: Duration) {
        guard var controller = bitRate, let video = senders[.video] else { return }
        if let rate = controller.update(at: now, statistics: video.statistics) { onBitRate?(rate) }
        bitRate = controller
    }

    private func write(_ actions: [StreamSender.Action]) {
        guard let channel else { return }
        for action in actions {
            let bytes: [UInt8]
            switch action {
            case .sendRTP(let packet), .sendRTCP(let packet): bytes = packet
            }
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.write(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: nil)
        }
        channel.flush()
    }

    // MARK: Time

    private func rearm() {
        guard !finished else { return }
        let now = clock.elapsed()
        var deadline = senders.values.compactMap(\.nextDeadline).min() ?? now + .seconds(1)
        deadline = min(deadline, now + .milliseconds(250))  // the silence and stall checks
        if let fired = lastTimerFire, deadline <= fired { deadline = fired + .milliseconds(1) }
        if let armed = timerDeadline, armed <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        let delay = max(.zero, deadline - now)
        timer = loop.scheduleTask(in: TimeAmount(delay)) { [weak self] in
            self?.assumeIsolated { $0.timerFired() }
        }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard !finished else { return }
        let now = clock.elapsed()
        lastTimerFire = now
        for kind in Array(senders.keys) {
            guard var sender = senders[kind] else { continue }
            write(sender.tick(now: now))
            senders[kind] = sender
        }
        adjustBitRate(now: now)
        // The receiver answers every sender report (every 500 ms): silence means it is gone.
        if now - (lastRTCP ?? started) > options.receiverSilenceTimeout {
            fail(StreamingError(code: .receiverStopped, message: "the device sent no RTCP for \(options.receiverSilenceTimeout)"))
            return
        }
        for kind in Array(senders.keys) where now - (lastInput[kind] ?? started) > options.captureStallTimeout {
            fail(StreamingError(code: .captureFailed, message: "the \(kind) source produced nothing for \(options.captureStallTimeout)"))
            return
        }
        rearm()
    }

    // MARK: End

    /// Ends the session with an error (the first one wins).
    func fail(_ error: StreamingError) {
        guard !finished else { return }
        failure = error
        finish()
    }

    /// Ends the session.
    func finish() {
        guard !finished else { return }
        finished = true
        timer?.cancel()
        timer = nil
        channel?.close(promise: nil)
        channel = nil
        for waiter in waiters { waiter.resume(returning: failure) }
        waiters = []
    }

    /// Waits until the session ends; its error, if it failed.
    func ended() async -> StreamingError? {
        if finished { return failure }
        return await withCheckedContinuation { waiters.append($0) }
    }
}

/// Hands each RTCP datagram to the transmitter (on its loop, where the socket lives).
private final class RTCPInbound: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let deliver: ([UInt8]) -> Void

    init(_ deliver: @escaping ([UInt8]) -> Void) { self.deliver = deliver }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deliver(Array(unwrapInboundIn(data).data.readableBytesView))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors (a device that closed its port) arrive here; silence ends the session instead.
    }
}
