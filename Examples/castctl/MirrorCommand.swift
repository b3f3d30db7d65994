import ArgumentParser
import CastChannels
import CastJSON
import CastMirroring
import CastStreaming
import Foundation
import Synchronization

/// `castctl mirror`: mirror a source (a test pattern, the screen, a file) to a device over Cast Streaming.
struct Mirror: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mirror the screen, a file or a test pattern to a device over Cast Streaming (as Chrome mirrors a tab).",
        discussion: """
            SOURCE is `screen` (the X11 screen of $DISPLAY or --display, with the desktop's sound: the monitor of \
            PulseAudio's or PipeWire's default sink, or --audio-source NAME), a media file (its pictures and sound, at \
            its own pace), or `test` (a moving pattern and a 1 kHz tone: no screen needed). ffmpeg captures and decodes; \
            pictures are scaled to fit --max-size, encoded with libvpx (VP8, or VP9 with --codec vp9) or OpenH264 \
            (--codec h264: Constrained Baseline, for devices and apps that want H.264) and sound with libopus, and streamed over UDP with Cast Streaming: the device plays them --target-delay behind the source \
            (400 ms by default), asks again for lost packets, and the bit rate follows what it acknowledges. castctl \
            streams until --duration runs out, the file ends, or Ctrl-C, then stops the mirroring app. Wayland desktops \
            are not captured yet (the desktop portal's ScreenCast): run an X11 session or XWayland's screen.

            When the device is lost (reset, closed, heartbeat timeout, no RTCP), castctl connects again with back-off \
            for --reconnect-timeout seconds and starts a new session where the last one was (a file goes on from there; \
            --duration counts the time mirrored).

            Exit status: 0 the mirroring ran to its end (or Ctrl-C stopped it); 1 it could not start (connect, launch, \
            OFFER refused or unanswered, arguments); 3 the device was lost and did not come back within \
            --reconnect-timeout; 4 the mirroring app was stopped on the device; 6 the capture or an encoder failed.
            """)

    @OptionGroup var device: DeviceOptions
    @OptionGroup var reconnect: ReconnectOptions
    @Argument(help: "What to mirror: screen, test, or a media file.") var source: String
    @Flag(help: "Mirror the pictures without the sound.") var noAudio = false
    @Option(help: "The video codec: vp8, vp9 or h264.") var codec = "vp8"
    @Option(help: "Milliseconds the device plays behind the source.") var targetDelay = 400
    @Option(help: "Seconds to mirror; until Ctrl-C (or a file's end) when not given.") var duration: Double?
    @Option(help: "The picture size of the test pattern, WIDTHxHEIGHT.") var size = "640x360"
    @Option(help: "The largest picture sent, WIDTHxHEIGHT: a larger screen or file is scaled down, its shape kept.") var maxSize = "1920x1080"
    @Option(help: "Frames per second.") var frameRate = 30
    @Option(help: "The highest video bit rate, in kbit/s.") var maxBitrate = 5_000
    @Option(help: "The X11 display to capture (default $DISPLAY).") var display: String?
    @Option(help: "The PulseAudio/PipeWire source of the sound with `screen` (default: the default sink's monitor).") var audioSource: String?

    func validate() throws {
        guard ["vp8", "vp9", "h264"].contains(codec) else {
            throw ValidationError("--codec must be vp8, vp9 or h264")
        }
        if source != "test" && source != "screen" {
            guard FileManager.default.isReadableFile(atPath: source) else {
                throw ValidationError("SOURCE must be screen, test or a readable media file; \(source) is none of them")
            }
        }
        guard Self.parse(size) != nil else { throw ValidationError("--size must be WIDTHxHEIGHT with even numbers, e.g. 1280x720") }
        guard Self.parse(maxSize) != nil else { throw ValidationError("--max-size must be WIDTHxHEIGHT with even numbers, e.g. 1280x720") }
        guard (1...120).contains(frameRate) else { throw ValidationError("--frame-rate must be 1...120") }
        guard (50...5_000).contains(targetDelay) else { throw ValidationError("--target-delay must be 50...5000 ms") }
        if let duration { guard duration > 0 else { throw ValidationError("--duration must be positive") } }
    }

    static func parse(_ size: String) -> OfferedStream.Resolution? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 16, parts[1] >= 16, parts[0] % 2 == 0, parts[1] % 2 == 0 else { return nil }
        return OfferedStream.Resolution(width: parts[0], height: parts[1])
    }

    func run() async throws {
        let maximum = Self.parse(maxSize)!
        let (source, noAudio, frameRate, size, display, audioSource) = (source, noAudio, frameRate, size, display, audioSource)
        // Sources for a session that starts `start` into the mirroring (after the device was lost, a file goes on
        // where it was; the screen, the sound and the test pattern are live).
        let sources: MirroringRun.Sources = { start throws(StreamingError) in
            switch source {
            case "test":
                let pattern = Self.parse(size)!
                return (TestPatternSource(width: pattern.width, height: pattern.height, frameRate: frameRate), noAudio ? nil : ToneSource())
            case "screen":
                return (try await FFmpegVideoSource.screen(display: display, frameRate: frameRate, maximumSize: maximum),
                        noAudio ? nil : try await FFmpegAudioSource.pulse(source: audioSource))
            default:
                return (try await FFmpegVideoSource.file(source, frameRate: frameRate, maximumSize: maximum, start: start),
                        noAudio ? nil : try FFmpegAudioSource.file(source, start: start))
            }
        }
        let options = CastMirroringOptions(
            videoCodec: StreamingCodec(name: codec)!, maximumVideoBitRate: maxBitrate * 1000,
            initialVideoBitRate: min(2_000_000, maxBitrate * 1000), targetDelay: .milliseconds(targetDelay))
        try await MirroringRun(device: device, reconnect: reconnect, duration: duration).run(sources: sources, options: options)
    }
}

/// `castctl audio`: play the desktop's sound (or a test tone) on a device over Cast Streaming.
struct AudioMirror: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract: "Play the desktop's sound on a device (a speaker, a group, a TV) over Cast Streaming.",
        discussion: """
            By default the sound is what the desktop plays: the monitor of PulseAudio's (or PipeWire's) default sink, \
            captured by ffmpeg. --source NAME takes another PulseAudio source (`pactl list short sources`), and \
            --source test a 1 kHz tone. The sound is encoded with libopus and streamed with Cast Streaming to the audio \
            mirroring app (85CDB22F), which speakers and groups run too, --target-delay behind the source.

            Exit status: as castctl mirror.
            """)

    @OptionGroup var device: DeviceOptions
    @OptionGroup var reconnect: ReconnectOptions
    @Option(help: "Where the sound comes from: a PulseAudio source name, or test (default: the default sink's monitor).") var source: String?
    @Option(help: "Milliseconds the device plays behind the source.") var targetDelay = 400
    @Option(help: "Seconds to play; until Ctrl-C when not given.") var duration: Double?

    func validate() throws {
        if let duration { guard duration > 0 else { throw ValidationError("--duration must be positive") } }
        guard (50...5_000).contains(targetDelay) else { throw ValidationError("--target-delay must be 50...5000 ms") }
    }

    func run() async throws {
        let source = source
        let sources: MirroringRun.Sources = { _ throws(StreamingError) in
            (nil, source == "test" ? ToneSource() : try await FFmpegAudioSource.pulse(source: source))
        }
        try await MirroringRun(device: device, reconnect: reconnect, duration: duration)
            .run(sources: sources, options: CastMirroringOptions(targetDelay: .milliseconds(targetDelay)))
    }
}

/// The part `mirror` and `audio` share: connect, start the session, follow it, stop on Ctrl-C, and when the
/// device is lost, connect again within --reconnect-timeout and start a new session where the last one was.
struct MirroringRun {
    /// The sources of a session that starts this far into the mirroring.
    typealias Sources = @Sendable (_ start: Duration) async throws(StreamingError) -> (video: (any VideoSource)?, audio: (any AudioSource)?)

    var device: DeviceOptions
    var reconnect: ReconnectOptions
    var duration: Double?

    /// How one session went.
    private enum Outcome: Sendable {
        /// It could not start (connect, launch, OFFER): the error, and what was offered.
        case notStarted(any Error, offered: String)
        /// It ran for `ran`, then ended or failed.
        case ran(Result<CastMirroringStatistics, StreamingError>, ran: Duration)
        /// Its sources could not start.
        case sourcesFailed(StreamingError)
    }

    func run(sources: @escaping Sources, options: CastMirroringOptions) async throws {
        try await Output.run {
            let interrupted = SignalFlag()
            let host = try await device.target().host
            let current = Current()
            let loop = Task { try await follow(host: host, sources: sources, options: options, current: current) }
            let finished = await interrupted.wait(orUntil: Task { _ = await loop.result; return true })
            if finished == .interrupted {
                if let session = current.stop() { await session.stop() }
                loop.cancel()
            }
            try await loop.value
        }
    }

    /// Sessions one after the other until one ends, fails for good, or Ctrl-C.
    private func follow(
        host: String, sources: Sources, options: CastMirroringOptions, current: Current
    ) async throws {
        let clock = ContinuousClock()
        let total = duration.map { Duration.milliseconds(Int64($0 * 1000)) }
        var streamed = Duration.zero
        var lost: (since: ContinuousClock.Instant, reason: String)?
        var attempt = 0
        while true {
            let outcome = await session(host: host, sources: sources, start: streamed, remaining: total.map { $0 - streamed },
                                        options: options, current: current)
            if current.isStopped {
                if case .ran(.success(let statistics), _) = outcome { report(statistics) }
                return
            }
            let failure: (error: any Error, lostDevice: Bool)
            switch outcome {
            case .ran(.success(let statistics), _):
                report(statistics)
                return
            case .ran(.failure(let error), let ran):
                streamed += ran
                if ran > .zero { attempt = 0 }
                let isLoss = error.code == StreamingError.Code.deviceLost
                    || (error.code == StreamingError.Code.receiverStopped && error.message.contains("no RTCP"))
                failure = (error, isLoss)
            case .notStarted(let error, let offered):
                // While reconnecting, a device that is not back yet is one more failed attempt.
                guard lost == nil else {
                    failure = (error, true)
                    break
                }
                FileHandle.standardError.write(Data("castctl: \(error)\(offered.isEmpty ? "" : " (offered \(offered))")\n".utf8))
                throw ExitCode.failure
            case .sourcesFailed(let error):
                FileHandle.standardError.write(Data("castctl: \(error)\n".utf8))
                throw ExitCode(6)
            }
            guard failure.lostDevice else { throw Self.exit(for: failure.error) }
            if lost == nil || attempt == 0 {
                lost = (lost?.since ?? clock.now, "\(failure.error)")
                Output.print(["event": "lost", "reason": .string("\(failure.error)")],
                             text: "castctl: connection lost (\(failure.error))", json: device.json)
            }
            let deadline = lost!.since + .milliseconds(Int64(reconnect.reconnectTimeout * 1000))
            attempt += 1
            // Back-off: 0.5, 1, 2, 4, then 5 s between attempts, never past the deadline.
            let wait = min(.milliseconds(500) * (1 << min(attempt - 1, 4)), .seconds(5))
            guard reconnect.reconnectTimeout > 0, clock.now + wait < deadline else {
                FileHandle.standardError.write(Data("castctl: lost the device: \(lost!.reason); reconnecting gave up after \(attempt - 1) attempt(s)\n".utf8))
                throw ExitCode(SessionExit.lost.rawValue)
            }
            var event: [String: JSONValue] = ["event": "reconnecting", "attempt": JSONValue(attempt)]
            var text = "castctl: reconnecting (attempt \(attempt), next in \(wait))"
            if attempt > 1 {
                event["failure"] = .string("\(failure.error)")
                text += "; the last attempt: \(failure.error)"
            }
            Output.print(.object(event), text: text, json: device.json)
            // Ctrl-C during the wait cancels it: the mirroring ends there, as Ctrl-C ends it.
            guard (try? await clock.sleep(for: wait)) != nil, !current.isStopped else { return }
        }
    }

    /// Connects, starts one session, and follows it to its end.
    private func session(
        host: String, sources: Sources, start: Duration, remaining: Duration?, options: CastMirroringOptions,
        current: Current
    ) async -> Outcome {
        let (video, audio): ((any VideoSource)?, (any AudioSource)?)
        do throws(StreamingError) {
            (video, audio) = try await sources(start)
        } catch {
            return .sourcesFailed(error)
        }
        if let captured = video as? FFmpegVideoSource {
            Output.logger.info("castctl: capturing \(captured.name) at \(captured.width)x\(captured.height), \(captured.frameRate) fps")
        }
        // Say what was offered: a refusal names the device's reason, not what it could not take.
        let offered = [video.map { _ in "video \(options.videoCodec)" }, audio.map { _ in "audio opus" }].compactMap { $0 }
            .joined(separator: " and ")
        do {
            return try await device.withConnection { connection, _ in
                let session: CastMirroringSession
                do {
                    session = try await CastMirroringSession.start(
                        connection: connection, host: host, video: video, audio: audio, options: options, logger: Output.logger)
                } catch {
                    return Outcome.notStarted(error, offered: offered)
                }
                CommandBudget.current?.settle()
                guard current.start(session) else {
                    await session.stop()
                    return .ran(.success(await session.statistics), ran: .zero)
                }
                defer { current.end() }
                let taken = session.offer.streams.filter { session.answer.sendIndexes.contains($0.index) }
                let streams = taken.map { "\($0.codec.isVideo ? "video" : "audio") \($0.codec)" }.joined(separator: ", ")
                Output.print(["event": "started", "streams": .array(taken.map { .string($0.codec.name) }),
                              "udpPort": JSONValue(session.answer.udpPort)],
                             text: "castctl: mirroring \(streams) to UDP port \(session.answer.udpPort)", json: device.json)
                fflush(nil)
                let began = ContinuousClock.now
                do throws(StreamingError) {
                    let statistics = try await session.run(for: remaining)
                    return .ran(.success(statistics), ran: ContinuousClock.now - began)
                } catch {
                    return .ran(.failure(error), ran: ContinuousClock.now - began)
                }
            }
        } catch {
            return .notStarted(error, offered: "")
        }
    }

    /// The session running now, and whether Ctrl-C came.
    private final class Current: Sendable {
        private let state = Mutex<(session: CastMirroringSession?, stopped: Bool)>((nil, false))

        /// Makes `session` the current one; `false` when Ctrl-C came first.
        func start(_ session: CastMirroringSession) -> Bool {
            state.withLock { state in
                guard !state.stopped else { return false }
                state.session = session
                return true
            }
        }

        func end() { state.withLock { $0.session = nil } }

        /// Notes Ctrl-C and gives the session to stop.
        func stop() -> CastMirroringSession? { state.withLock { $0.stopped = true; return $0.session } }

        var isStopped: Bool { state.withLock { $0.stopped } }
    }

    private func report(_ statistics: CastMirroringStatistics) {
        Output.print(["event": "ended", "statistics": statistics.json], text: "castctl: mirroring ended: \(statistics)", json: device.json)
    }

    private static func exit(for error: any Error) -> ExitCode {
        FileHandle.standardError.write(Data("castctl: \(error)\n".utf8))
        guard let error = error as? StreamingError else { return ExitCode.failure }
        switch error.code {
        case .receiverStopped:
            return ExitCode(error.message.contains("stopped the mirroring app") ? SessionExit.takenOver.rawValue : SessionExit.lost.rawValue)
        case .deviceLost: return ExitCode(SessionExit.lost.rawValue)
        case .captureFailed, .encoderFailed: return ExitCode(6)
        default: return ExitCode.failure
        }
    }
}

extension CastMirroringStatistics {
    /// What `castctl mirror --json` prints when the session ends: per stream, frames sent, refused and
    /// acknowledged, packets, retransmissions, NACKs and PLIs received, the last loss and round trip.
    var json: JSONValue {
        func stream(_ sender: StreamSender.Statistics?) -> JSONValue {
            guard let sender else { return .null }
            var object: [String: JSONValue] = [
                "framesSent": JSONValue(sender.framesSent), "framesRefused": JSONValue(sender.framesRefused),
                "framesAcknowledged": JSONValue(sender.framesAcknowledged), "packetsSent": JSONValue(sender.packetsSent),
                "retransmissions": JSONValue(sender.retransmissions), "nacksReceived": JSONValue(sender.nacksReceived),
                "pictureLossIndications": JSONValue(sender.pictureLossIndications), "fractionLost": JSONValue(Int(sender.fractionLost)),
            ]
            if let rtt = sender.roundTripTime {
                object["roundTripMs"] = JSONValue(Double(rtt.components.attoseconds / 1_000_000_000_000) / 1_000_000 + Double(rtt.components.seconds) * 1000)
            }
            return .object(object)
        }
        var object: [String: JSONValue] = [
            "video": stream(video), "audio": stream(audio), "framesCaptured": JSONValue(framesCaptured),
            "framesSkippedByEncoder": JSONValue(framesSkippedByEncoder),
        ]
        if let videoBitRate { object["videoBitRate"] = JSONValue(videoBitRate) }
        return .object(object)
    }
}
