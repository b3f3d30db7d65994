public import CastChannels
public import CastStreaming
import CastCore
import CastJSON
import Foundation
public import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Mirrors pictures and sound to a Cast device over Cast Streaming, the protocol of Chrome's tab and
/// screen mirroring.
///
/// It launches the mirroring app (`0F5096E8`, or `85CDB22F` for sound alone), sends an OFFER for
/// the streams the sources give (VP8, VP9 or H.264 video, Opus audio), and once the device ANSWERs,
/// encodes what the sources capture and sends it over UDP: each frame encrypted, NACKed packets sent
/// again, a key frame when the device lost the picture, the video bit rate adapted to the device's
/// feedback, and frames dropped rather than queued when the encoder or the network falls behind.
///
/// ```swift
/// let session = try await CastMirroringSession.start(
///     connection: connection, host: "192.168.1.20",
///     video: TestPatternSource(), audio: ToneSource())
/// let statistics = try await session.run(for: .seconds(10))   // then it stops the app
/// ```
///
/// Everything is bounded: the launch, the ANSWER, a device that stops answering (no RTCP) and a
/// source that stalls each end the session with a `StreamingError` inside their deadline.
public final class CastMirroringSession: Sendable {
    /// The mirroring app for pictures and sound.
    public static let audioVideoAppId = "0F5096E8"
    /// The mirroring app for sound alone.
    public static let audioOnlyAppId = "85CDB22F"

    /// The app session the mirroring runs in.
    public let appSessionId: String
    /// The ANSWER the device gave.
    public let answer: StreamingAnswer
    /// The OFFER this session sent.
    public let offer: StreamingOffer

    private let connection: CastConnection
    private let control: StreamingControlChannel
    private let transmitter: MirroringTransmitter
    private let tasks: Mutex<[Task<Void, Never>]>
    private let lanes: (video: EncodingLane<VideoFrame>?, audio: EncodingLane<AudioChunk>?)
    private let clock: ElapsedClock
    private let logger: Logger

    private init(
        appSessionId: String, answer: StreamingAnswer, offer: StreamingOffer, connection: CastConnection,
        control: StreamingControlChannel, transmitter: MirroringTransmitter,
        lanes: (video: EncodingLane<VideoFrame>?, audio: EncodingLane<AudioChunk>?), clock: ElapsedClock, logger: Logger
    ) {
        self.appSessionId = appSessionId
        self.answer = answer
        self.offer = offer
        self.connection = connection
        self.control = control
        self.transmitter = transmitter
        self.lanes = lanes
        self.clock = clock
        self.logger = logger
        tasks = Mutex([])
    }

    /// Launches the mirroring app on a started connection, negotiates, and starts streaming.
    /// - Parameters:
    ///   - connection: a started connection to the device.
    ///   - host: the device's address (the UDP stream goes to it, at the port the ANSWER names).
    ///   - video: where pictures come from; `nil` mirrors sound alone (app `85CDB22F`).
    ///   - audio: where sound comes from; `nil` sends pictures alone.
    ///   - options: codec, bit rates, target delay and deadlines.
    ///   - clock: the clock of every deadline and of capture times.
    ///   - logger: where the session logs.
    /// - Throws: `StreamingError`: `.launchFailed`, `.answerTimeout`, `.answerRefused`,
    ///   `.noStreamSelected`, `.socketFailed`, `.encoderFailed`, `.invalidConfiguration`.
    public static func start(
        connection: CastConnection, host: String, video: (any VideoSource)?, audio: (any AudioSource)?,
        options: CastMirroringOptions = CastMirroringOptions(), clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "castor.mirroring")
    ) async throws(StreamingError) -> CastMirroringSession {
        guard video != nil || audio != nil else {
            throw StreamingError(code: .invalidConfiguration, message: "nothing to mirror: no video and no audio source")
        }
        guard [.vp8, .vp9, .h264].contains(options.videoCodec) else {
            throw StreamingError(code: .invalidConfiguration, message: "\(options.videoCodec) is not an encoder this sender has (vp8, vp9, h264)")
        }
        let elapsed = ElapsedClock(clock)
        let control = StreamingControlChannel()
        do {
            try await connection.add(control)
        } catch {
            throw StreamingError(code: .launchFailed, message: "cannot add the mirroring channel", cause: error)
        }
        let appId = video == nil ? audioOnlyAppId : audioVideoAppId
        let app: ReceiverStatus.Application
        do {
            app = try await connection.receiver.launch(appId: appId, supportedAppTypes: ["WEB"], timeout: options.launchTimeout)
            _ = try await connection.waitUntilConnected(control, timeout: options.launchTimeout)
        } catch {
            connection.remove(control)
            throw StreamingError(code: .launchFailed, message: "the device did not launch the mirroring app \(appId)", cause: error)
        }
        logger.info("mirroring app launched", metadata: ["appId": "\(appId)", "session": "\(app.sessionId)"])

        var random = SystemRandomNumberGenerator()
        let offer = options.offer(
            video: video.map { CastMirroringOptions.OfferedVideo(width: $0.width, height: $0.height, frameRate: $0.frameRate) },
            audioChannels: audio?.channels, using: &random)
        let reply: StreamingMessage?
        do {
            reply = try await control.request(.offer(sequenceNumber: control.nextSequenceNumber(), offer: offer),
                                              timeout: options.answerTimeout, clock: clock)
        } catch {
            connection.remove(control)
            throw StreamingError(code: .launchFailed, message: "cannot send the OFFER", cause: error)
        }
        let answer: StreamingAnswer
        switch reply {
        case .answer(_, let body):
            answer = body
        case .error(_, _, let code, let description):
            connection.remove(control)
            throw StreamingError(code: .answerRefused, message: "the device refused the OFFER: \(description) (\(code))")
        case .none:
            connection.remove(control)
            throw StreamingError(code: .answerTimeout, message: "the device did not ANSWER within \(options.answerTimeout)")
        case .some(let other):
            connection.remove(control)
            throw StreamingError(code: .answerRefused, message: "the device answered the OFFER with \(other.type)")
        }
        logger.info("mirroring negotiated", metadata: ["udpPort": "\(answer.udpPort)", "streams": "\(answer.sendIndexes)"])

        // The streams the device took, with the SSRC it uses for each.
        let remote: SocketAddress
        do {
            remote = try SocketAddress.makeAddressResolvingHost(host, port: answer.udpPort)
        } catch {
            connection.remove(control)
            throw StreamingError(code: .socketFailed, message: "cannot resolve \(host)", cause: error)
        }
        let timeline = NTPTimeline.sampling(local: { elapsed.elapsed() })
        var senders: [MirroringTransmitter.Kind: StreamSender] = [:]
        var takenVideo: OfferedStream?
        var takenAudio: OfferedStream?
        for (index, ssrc) in zip(answer.sendIndexes, answer.ssrcs) {
            guard let stream = offer.streams.first(where: { $0.index == index }) else { continue }
            guard let crypto = try? FrameCrypto(key: stream.aesKey, ivMask: stream.aesIvMask) else { continue }
            let sender = StreamSender(configuration: .init(
                senderSSRC: stream.ssrc, receiverSSRC: ssrc, payloadType: stream.payloadType, timeBase: stream.timeBase,
                targetDelay: .milliseconds(stream.targetDelay), crypto: crypto, ntpTimeline: timeline))
            if stream.codec.isVideo {
                senders[.video] = sender
                takenVideo = stream
            } else {
                senders[.audio] = sender
                takenAudio = stream
            }
        }
        guard !senders.isEmpty else {
            connection.remove(control)
            throw StreamingError(code: .noStreamSelected, message: "the ANSWER takes none of the offered streams (\(answer.sendIndexes))")
        }
        let transmitter = MirroringTransmitter(
            loop: MultiThreadedEventLoopGroup.singleton.next(), remote: remote, senders: senders, options: options, clock: elapsed,
            logger: logger)
        do {
            try await transmitter.open()
        } catch {
            connection.remove(control)
            throw error
        }

        // Encoders, each on a queue of its own, handing frames to the transmitter's loop.
        var videoLane: EncodingLane<VideoFrame>?
        var audioLane: EncodingLane<AudioChunk>?
        do throws(StreamingError) {
            if let video, takenVideo != nil {
                let encode: @Sendable (VideoFrame, Bool, Int?) throws(StreamingError) -> [EncodedFrame]
                if options.videoCodec == .h264 {
                    let encoder = try H264Encoder(width: video.width, height: video.height, frameRate: video.frameRate,
                                                  bitRate: options.initialVideoBitRate)
                    encode = { frame, keyFrame, bitRate throws(StreamingError) in
                        if let bitRate { encoder.setBitRate(bitRate) }
                        return try encoder.encode(frame, keyFrame: keyFrame)
                    }
                } else {
                    let encoder = try VPXEncoder(codec: options.videoCodec, width: video.width, height: video.height,
                                                 frameRate: video.frameRate, bitRate: options.initialVideoBitRate)
                    encode = { frame, keyFrame, bitRate throws(StreamingError) in
                        if let bitRate { encoder.setBitRate(bitRate) }
                        return try encoder.encode(frame, keyFrame: keyFrame)
                    }
                }
                videoLane = EncodingLane<VideoFrame>(
                    label: "castor.mirroring.video", keepsOnlyLatest: true, encode: encode,
                    deliver: { frames in transmitter.deliver(frames, kind: .video, timeBase: 90_000) },
                    fail: { error in Task { await transmitter.fail(error) } })
            }
            if let audio, let stream = takenAudio {
                let encoder = try OpusEncoder(channels: audio.channels, bitRate: stream.bitRate)
                audioLane = EncodingLane<AudioChunk>(
                    label: "castor.mirroring.audio", keepsOnlyLatest: false,
                    encode: { chunk, _, _ throws(StreamingError) in try encoder.encode(chunk) },
                    deliver: { frames in transmitter.deliver(frames, kind: .audio, timeBase: AudioChunk.sampleRate) },
                    fail: { error in Task { await transmitter.fail(error) } })
            }
        } catch {
            await transmitter.finish()
            connection.remove(control)
            throw error
        }
        let lanes = (video: videoLane, audio: audioLane)
        control.whenDisconnected { [connection] in
            // The app's virtual connection closes both when the device stops the app and when the whole
            // connection is lost; only the first is the device's decision.
            let error = connection.isRunning
                ? StreamingError(code: .receiverStopped, message: "the device stopped the mirroring app")
                : StreamingError(code: .deviceLost, message: "the connection to the device was lost", cause: connection.closeReason)
            Task { await transmitter.fail(error) }
        }
        await transmitter.setHandlers(keyFrame: { lanes.video?.requestKeyFrame() }, bitRate: { lanes.video?.setBitRate($0) })
        let session = CastMirroringSession(
            appSessionId: app.sessionId, answer: answer, offer: offer, connection: connection, control: control,
            transmitter: transmitter, lanes: lanes, clock: elapsed, logger: logger)
        session.startSources(video: takenVideo == nil ? nil : video, audio: takenAudio == nil ? nil : audio, clock: CaptureClock(elapsed: elapsed))
        return session
    }

    private func startSources(video: (any VideoSource)?, audio: (any AudioSource)?, clock: CaptureClock) {
        var started: [Task<Void, Never>] = []
        let transmitter = self.transmitter
        if let video, let lane = lanes.video {
            started.append(Task {
                do {
                    for try await frame in video.frames(clock: clock) {
                        await transmitter.noteInput(.video)
                        lane.submit(frame)
                    }
                    // A source that ends (a file played to its end) ends the session cleanly.
                    if !Task.isCancelled { await transmitter.finish() }
                } catch {
                    await transmitter.fail(StreamingError(code: .captureFailed, message: "the video source failed", cause: error))
                }
            })
        }
        if let audio, let lane = lanes.audio {
            started.append(Task {
                do {
                    for try await chunk in audio.chunks(clock: clock) {
                        await transmitter.noteInput(.audio)
                        lane.submit(chunk)
                    }
                    if !Task.isCancelled { await transmitter.finish() }
                } catch {
                    await transmitter.fail(StreamingError(code: .captureFailed, message: "the audio source failed", cause: error))
                }
            })
        }
        tasks.withLock { $0 = started }
    }

    /// What the session did so far.
    public var statistics: CastMirroringStatistics {
        get async {
            let (video, audio, bitRate) = await transmitter.statistics
            var statistics = CastMirroringStatistics()
            statistics.video = video
            statistics.audio = audio
            statistics.videoBitRate = bitRate
            statistics.framesCaptured = await transmitter.framesCaptured
            statistics.framesSkippedByEncoder = lanes.video?.skipped ?? 0
            return statistics
        }
    }

    /// Streams for `duration` (until ``stop()``, or the task is cancelled, when `nil`), then stops.
    /// - Returns: what the session did.
    /// - Throws: `StreamingError` when the session failed first (`.receiverStopped`, `.deviceLost`,
    ///   `.captureFailed`, `.encoderFailed`).
    public func run(for duration: Duration?) async throws(StreamingError) -> CastMirroringStatistics {
        let transmitter = self.transmitter
        let clock = self.clock
        let deadline = duration.map { clock.elapsed() + $0 }
        let failure: StreamingError? = await withTaskGroup(of: StreamingError?.self) { group in
            group.addTask { await transmitter.ended() }
            if let deadline {
                group.addTask {
                    // The deadline ends the transmitter, which resumes the other child: a group waits for
                    // all its children, and a continuation ignores cancellation.
                    guard (try? await clock.sleepUntil(deadline)) != nil else { return nil }
                    await transmitter.finish()
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let statistics = await self.statistics
        await stop()
        if let failure { throw failure }
        return statistics
    }

    /// Stops the sources and the streaming, and stops the mirroring app on the device. Idempotent.
    public func stop() async {
        for task in tasks.withLock({ tasks in defer { tasks = [] }; return tasks }) { task.cancel() }
        lanes.video?.close()
        lanes.audio?.close()
        await transmitter.finish()
        if control.isConnected {
            _ = try? await connection.receiver.stop(sessionId: appSessionId)
        }
        connection.remove(control)
    }
}
