import CastStreaming
import Foundation
import Logging
import NIOCore
import NIOPosix

/// The UDP side of a running mirroring app: its socket (bound on the receiver's event loop), the
/// sender's address it locked onto, and the recorder.
struct StreamingSocket {
    var appSessionId: String
    var channel: (any Channel)?
    var port: Int?
    var remote: SocketAddress?
    var recorder: MirroringRecorder?
}

extension EmulatedReceiver {
    // MARK: API

    /// Every mirroring session this device negotiated: those that ended, then the running one.
    public var mirroringSessions: [EmulatedReceiverMirroringSession] {
        catchUp()
        var sessions = endedMirroringSessions
        if let live = engine.mirroringSnapshot, live.ended == nil {
            var current = live
            current.streams = current.streams.map { stream in
                var stream = stream
                stream.recording = streaming?.recorder?.files[stream.index]?.path
                return stream
            }
            sessions.append(current)
        }
        return sessions
    }

    /// The UDP port of the running mirroring session, once bound.
    public var mirroringPort: Int? { streaming?.port }

    /// Follows mirroring sessions: each is delivered when it is negotiated and again when it ends.
    public func mirroringUpdates() -> AsyncStream<EmulatedReceiverMirroringSession> {
        let (stream, continuation) = AsyncStream.makeStream(of: EmulatedReceiverMirroringSession.self, bufferingPolicy: .bufferingNewest(64))
        let key = (mirroringSubscribers.keys.max() ?? 0) + 1
        mirroringSubscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.dropMirroringSubscriber(key) } }
        return stream
    }

    private func dropMirroringSubscriber(_ key: Int) { mirroringSubscribers[key] = nil }

    // MARK: Actions

    func performStreaming(_ action: ReceiverAction) {
        switch action {
        case .openStreamingPort(let appSessionId, let port):
            openStreamingPort(appSessionId: appSessionId, port: port)
        case .closeStreamingPort:
            if let channel = streaming?.channel { channel.close(promise: nil) }
            streaming = nil
        case .sendDatagram(let bytes):
            guard let channel = streaming?.channel, let remote = streaming?.remote else { return }
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: nil)
        case .mirroring(let event):
            mirroringEvent(event)
        default:
            break
        }
    }

    private func mirroringEvent(_ event: MirroringEvent) {
        switch event {
        case .started(let session):
            logger.info("mirroring session negotiated", metadata: ["session": "\(session)"])
            if let root = configuration.mirroring.recordDirectory, streaming != nil {
                do {
                    streaming?.recorder = try MirroringRecorder(root: root, session: session)
                } catch {
                    logger.error("cannot record the mirroring session", metadata: ["error": "\(error)"])
                }
            }
            var announced = session
            announced.streams = announced.streams.map { stream in
                var stream = stream
                stream.recording = streaming?.recorder?.files[stream.index]?.path
                return stream
            }
            for subscriber in mirroringSubscribers.values { subscriber.yield(announced) }
        case .frame(let stream, _, let frame):
            streaming?.recorder?.record(stream: stream, frame: frame)
        case .skipped(let stream, let range):
            logger.debug("mirroring frames skipped", metadata: ["stream": "\(stream)", "frames": "\(range)"])
        case .ended(let session):
            endStreaming(final: session)
        }
    }

    /// Ends the recording and reports the session's last state.
    func endStreaming(final session: EmulatedReceiverMirroringSession?) {
        guard var session else { return }
        session.streams = session.streams.map { stream in
            var stream = stream
            stream.recording = streaming?.recorder?.files[stream.index]?.path
            return stream
        }
        if session.ended == nil { session.ended = "the receiver stopped" }
        streaming?.recorder?.finish(session)
        streaming?.recorder = nil
        guard !endedMirroringSessions.contains(where: { $0.number == session.number }) else { return }
        endedMirroringSessions.append(session)
        logger.notice("mirroring session ended", metadata: ["reason": "\(session.ended ?? "")", "session": "\(session)"])
        for subscriber in mirroringSubscribers.values { subscriber.yield(session) }
    }

    private func openStreamingPort(appSessionId: String, port: Int) {
        if let old = streaming?.channel { old.close(promise: nil) }
        streaming = StreamingSocket(appSessionId: appSessionId)
        let host = configuration.host
        let bootstrap = DatagramBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramInbound { envelope in
                        self?.assumeIsolated { $0.datagramArrived(envelope) }
                    })
                }
            }
        bootstrap.bind(host: host, port: port).whenComplete { [weak self] (result: Result<any Channel, any Error>) in
            guard let self else { return }
            self.assumeIsolated { receiver in
                switch result {
                case .success(let channel):
                    guard receiver.streaming?.appSessionId == appSessionId, receiver.phase == .running || receiver.phase == .idle else {
                        channel.close(promise: nil)
                        return
                    }
                    let bound = channel.localAddress?.port ?? port
                    receiver.streaming?.channel = channel
                    receiver.streaming?.port = bound
                    receiver.logger.info("mirroring port open", metadata: ["port": "\(bound)"])
                    receiver.perform(receiver.engine.streamingPortOpened(bound, appSessionId: appSessionId, now: receiver.clock.elapsed()))
                case .failure(let error):
                    receiver.perform(receiver.engine.streamingPortFailed("\(error)", appSessionId: appSessionId))
                }
                receiver.rearm()
            }
        }
    }

    private func datagramArrived(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard phase != .stopped, streaming != nil else { return }
        if let remote = streaming?.remote {
            guard remote == envelope.remoteAddress else {
                engine.app?.mirroring?.refuseForeign()
                return
            }
        } else {
            streaming?.remote = envelope.remoteAddress
        }
        let bytes = Array(envelope.data.readableBytesView)
        let before = engine.violations.count
        perform(engine.receiveDatagram(bytes, now: clock.elapsed()))
        logNewViolations(since: before)
        rearm()
        refreshAdvertisement()
    }
}

/// Hands each datagram to the receiver (on the receiver's loop, where the socket lives).
private final class DatagramInbound: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let deliver: (AddressedEnvelope<ByteBuffer>) -> Void

    init(_ deliver: @escaping (AddressedEnvelope<ByteBuffer>) -> Void) { self.deliver = deliver }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deliver(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP unreachable as an error on the next read; the session goes on.
    }
}
