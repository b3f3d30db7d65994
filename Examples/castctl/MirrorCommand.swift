import ArgumentParser
import CastChannels
import CastJSON
import CastMirroring
import CastStreaming
import Foundation

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

            Exit status: 0 the mirroring ran to its end (or Ctrl-C stopped it); 1 it could not start (connect, launch, \
            OFFER refused or unanswered, arguments); 3 the device stopped answering; 4 the mirroring app was stopped on \
            the device; 6 the capture or an encoder failed.
            """)

    @OptionGroup var device: DeviceOptions
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
        let video: any VideoSource
        let audio: (any AudioSource)?
        do {
            switch source {
            case "test":
                let pattern = Self.parse(size)!
                video = TestPatternSource(width: pattern.width, height: pattern.height, frameRate: frameRate)
                audio = noAudio ? nil : ToneSource()
            case "screen":
                video = try await FFmpegVideoSource.screen(display: display, frameRate: frameRate, maximumSize: maximum)
                audio = noAudio ? nil : try await FFmpegAudioSource.pulse(source: audioSource)
            default:
                video = try await FFmpegVideoSource.file(source, frameRate: frameRate, maximumSize: maximum)
                audio = noAudio ? nil : try FFmpegAudioSource.file(source)
            }
        } catch {
            FileHandle.standardError.write(Data("castctl: \(error)\n".utf8))
            throw ExitCode(6)
        }
        if let captured = video as? FFmpegVideoSource {
            Output.logger.info("castctl: capturing \(captured.name) at \(captured.width)x\(captured.height), \(captured.frameRate) fps")
        }
        let options = CastMirroringOptions(
            videoCodec: StreamingCodec(name: codec)!, maximumVideoBitRate: maxBitrate * 1000,
            initialVideoBitRate: min(2_000_000, maxBitrate * 1000), targetDelay: .milliseconds(targetDelay))
        try await MirroringRun(device: device, duration: duration).run(video: video, audio: audio, options: options)
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
    @Option(help: "Where the sound comes from: a PulseAudio source name, or test (default: the default sink's monitor).") var source: String?
    @Option(help: "Milliseconds the device plays behind the source.") var targetDelay = 400
    @Option(help: "Seconds to play; until Ctrl-C when not given.") var duration: Double?

    func validate() throws {
        if let duration { guard duration > 0 else { throw ValidationError("--duration must be positive") } }
        guard (50...5_000).contains(targetDelay) else { throw ValidationError("--target-delay must be 50...5000 ms") }
    }

    func run() async throws {
        let audio: any AudioSource
        if source == "test" {
            audio = ToneSource()
        } else {
            do {
                audio = try await FFmpegAudioSource.pulse(source: source)
            } catch {
                FileHandle.standardError.write(Data("castctl: \(error)\n".utf8))
                throw ExitCode(6)
            }
        }
        try await MirroringRun(device: device, duration: duration)
            .run(video: nil, audio: audio, options: CastMirroringOptions(targetDelay: .milliseconds(targetDelay)))
    }
}

/// The part `mirror` and `audio` share: connect, start the session, follow it, stop on Ctrl-C.
struct MirroringRun {
    var device: DeviceOptions
    var duration: Double?

    func run(video: (any VideoSource)?, audio: (any AudioSource)?, options: CastMirroringOptions) async throws {
        try await Output.run {
            let interrupted = SignalFlag()
            let host = try await device.target().host
            let outcome: Result<CastMirroringStatistics, StreamingError> = try await device.withConnection { connection, _ in
                let session: CastMirroringSession
                do {
                    session = try await CastMirroringSession.start(
                        connection: connection, host: host, video: video, audio: audio, options: options, logger: Output.logger)
                } catch {
                    // Say what was offered: a refusal names the device's reason, not what it could not take.
                    let offered = [video.map { _ in "video \(options.videoCodec)" }, audio.map { _ in "audio opus" }].compactMap { $0 }
                    FileHandle.standardError.write(Data("castctl: \(error) (offered \(offered.joined(separator: " and ")))\n".utf8))
                    throw ExitCode.failure
                }
                CommandBudget.current?.settle()
                let streams = session.offer.streams.filter { session.answer.sendIndexes.contains($0.index) }
                    .map { "\($0.codec.isVideo ? "video" : "audio") \($0.codec)" }.joined(separator: ", ")
                let taken = session.offer.streams.filter { session.answer.sendIndexes.contains($0.index) }.map { JSONValue.string($0.codec.name) }
                Output.print(["event": "started", "streams": .array(taken), "udpPort": JSONValue(session.answer.udpPort)],
                             text: "castctl: mirroring \(streams) to UDP port \(session.answer.udpPort)", json: device.json)
                fflush(nil)
                let runner = Task { () -> Result<CastMirroringStatistics, StreamingError> in
                    do throws(StreamingError) {
                        return .success(try await session.run(for: duration.map { .milliseconds(Int64($0 * 1000)) }))
                    } catch {
                        return .failure(error)
                    }
                }
                let finished = await interrupted.wait(orUntil: Task { _ = await runner.value; return true })
                if finished == .interrupted { await session.stop() }
                return await runner.value
            }
            switch outcome {
            case .success(let statistics):
                Output.print(["event": "ended", "statistics": statistics.json],
                             text: "castctl: mirroring ended: \(statistics)", json: device.json)
            case .failure(let error):
                FileHandle.standardError.write(Data("castctl: \(error)\n".utf8))
                switch error.code {
                case .receiverStopped: throw ExitCode(error.message.contains("stopped the mirroring app") ? SessionExit.takenOver.rawValue : SessionExit.lost.rawValue)
                case .captureFailed, .encoderFailed: throw ExitCode(6)
                default: throw ExitCode.failure
                }
            }
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
