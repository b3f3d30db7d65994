import ArgumentParser
import CastJSON
import CastMedia
import CastMediaServer
import CastMediaMetadata
import CastctlKit
import Castor
import Dispatch
import Foundation

/// `castctl announce`: play an announcement, then put back what played.
struct Announce: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play an announcement (a media file or URL, or --say TEXT), then restore what played as if nothing happened.",
        discussion: """
            Saves what plays (queue, item, position, rate, repeat, tracks, volume), sets --volume, plays the \
            announcement in the Default Media Receiver and waits until it ends (at most --wait-limit), then sets the \
            volume back and loads what played at the saved position, playing or paused as it was. With nothing \
            playing it only plays the announcement (and stops the app afterwards when none ran). On a speaker group \
            it announces to the group and puts each member's volume back. Ctrl-C cuts the announcement short and \
            restores at once. If another sender's media replaces the announcement, that is left playing.

            --say speaks through espeak-ng (--voice, --words-per-minute), or through --tts-command CMD, run by \
            /bin/sh -c with the text on standard input and in $CASTCTL_TTS_TEXT, writing audio to the file \
            $CASTCTL_TTS_OUTPUT. Local files and speech are served over HTTP from this machine (like `castctl cast`) \
            while the announcement plays. Progress goes to standard error; the result to standard output.
            """)

    @OptionGroup var device: DeviceOptions
    @Argument(help: "A media file or http(s) URL to play (instead of --say).") var media: String?
    @Option(help: "Text to speak.") var say: String?
    @Option(help: "The device volume while the announcement plays, 0 to 1 (it is unmuted).") var volume: Double?
    @Option(help: "The espeak-ng voice (en, fr, de+f3, …).") var voice: String?
    @Option(help: "espeak-ng's speed in words per minute.") var wordsPerMinute: Int?
    @Option(help: "A shell command that renders the text to $CASTCTL_TTS_OUTPUT (instead of espeak-ng).") var ttsCommand: String?
    @Option(help: "The longest the announcement may play, in seconds (default: its duration plus 30 s when known, else 120).")
    var waitLimit: Double?
    @Option(help: "The address to serve files on; by default the local address that reaches the device.") var serveHost: String?
    @Option(help: "The port to serve files on (0 picks a free one).") var servePort = 0

    func validate() throws {
        guard (media != nil) != (say != nil) else { throw ValidationError("Give exactly one of MEDIA and --say TEXT") }
        if say == nil, voice != nil || wordsPerMinute != nil || ttsCommand != nil {
            throw ValidationError("--voice, --words-per-minute and --tts-command go with --say")
        }
        if ttsCommand != nil, voice != nil || wordsPerMinute != nil {
            throw ValidationError("--voice and --words-per-minute are espeak-ng's; --tts-command replaces it")
        }
        if let volume, !(0...1).contains(volume) { throw ValidationError("--volume must be between 0 and 1") }
        if let waitLimit, !(waitLimit > 0 && waitLimit.isFinite) { throw ValidationError("--wait-limit must be a positive number of seconds") }
        if let wordsPerMinute, !(80...450).contains(wordsPerMinute) { throw ValidationError("--words-per-minute must be between 80 and 450") }
    }

    func run() async throws {
        try await Output.run {
            let options = try await device.resolvedToAddress()
            let (host, port) = try await options.target()
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-announce-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            var server: MediaServer?
            defer { if let server { Task { await server.shutdown() } } }
            func serve(_ path: String) async throws -> (url: String, contentType: String) {
                let started = try await {
                    if let server { return server }
                    if let serveHost { return try await MediaServer.start(.init(host: serveHost, port: servePort)) }
                    return try await MediaServer.start(reaching: host, receiverPort: port, port: servePort)
                }()
                server = started
                let registration = try started.register(file: path)
                return (registration.url, registration.contentType)
            }

            // What to play.
            var asset: CastAsset
            var duration: Double?
            if let say {
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                let path = scratch.appendingPathComponent("announcement.wav").path
                let engine: SpeechRenderer.Engine = ttsCommand.map { .command($0) } ?? .espeakNG(voice: voice, wordsPerMinute: wordsPerMinute)
                let mimeType = try await Progress.during("rendering the announcement with \(ttsCommand == nil ? "espeak-ng" : "the TTS command")") {
                    try await SpeechRenderer(engine: engine).render(say, to: path)
                }
                duration = await MediaDuration.probe(path)
                let served = try await serve(path)
                var metadata = CastMetadata(title: "Announcement", metadataType: .generic, images: [])
                metadata.subtitle = say
                asset = .url(URL(string: served.url)!, configuration: CastAssetURLConfiguration(mimeType: mimeType, duration: duration),
                             metadata: metadata)
            } else if let media, CastPlan.isURL(media) {
                guard let url = URL(string: media) else { throw ValidationError("\(media) is not a URL") }
                asset = .url(url, configuration: CastAssetURLConfiguration(mimeType: LoadOptions.guessContentType(media)),
                             metadata: CastMetadata(title: "Announcement", metadataType: .generic, images: []))
            } else if let media {
                guard FileManager.default.fileExists(atPath: media) else { throw ValidationError("\(media): no such file") }
                duration = await MediaDuration.probe(media)
                let served = try await serve(media)
                var metadata = CastMetadata(title: "Announcement", metadataType: .generic, images: [])
                metadata.subtitle = (media as NSString).lastPathComponent
                asset = .url(URL(string: served.url)!, configuration: CastAssetURLConfiguration(mimeType: served.contentType, duration: duration),
                             metadata: metadata)
            } else {
                return
            }
            let limit = waitLimit ?? duration.map { $0 + 30 } ?? 120

            // Announce.
            let status = try await options.receiverStatus()
            let (cast, target) = try await options.oneShotFaçade()
            let announcer = Announcer(cast: cast, device: target, joinTimeout: options.requestTimeout)
            let interruptions = InterruptionSignals()
            let json = device.json
            let length = duration
            let report = try await announcer.announce(
                Announcement(asset: asset, volume: volume, waitLimit: .milliseconds(Int64(limit * 1000))),
                receiverStatus: status, interruptions: interruptions.stream
            ) { step in
                switch step {
                case .saved(let snapshot): Progress.say("saved \(snapshot.summary)")
                case .playing: Progress.say("announcing" + (length.map { String(format: " (%.1f s)", $0) } ?? "") + "…")
                case .ended(let end): Progress.say(end.description)
                case .restored(let status):
                    if let status { Progress.say("restored: \(status.summary)") }
                }
            }
            interruptions.stop()
            for note in report.notes { Progress.say(note) }
            var value: JSONValue = [
                "saved": (try? JSONValue(encoding: report.before)) ?? .null,
                "end": .string(report.end.description),
                "restored": report.restored?.json ?? .null,
                "stoppedApp": .bool(report.stoppedApp),
                "notes": .array(report.notes.map(JSONValue.string)),
            ]
            if json { value["device"] = .string(options.deviceDescription) }
            let text: String
            if let restored = report.restored {
                text = "announced; restored \(restored.summary)"
            } else if report.before.playback == nil {
                text = "announced; nothing was playing" + (report.stoppedApp ? " (stopped the app again)" : "")
            } else {
                text = "announced; \(report.end.description), so what played was not restored"
            }
            Output.print(value, text: text, json: json)
        }
    }
}

/// SIGINT and SIGTERM as a stream (each yields once per signal) for as long as it is not stopped.
///
/// `@unchecked Sendable`: `sources` is written once in `init` and only cancelled afterwards.
final class InterruptionSignals: @unchecked Sendable {
    let stream: AsyncStream<Void>
    private let sources: [any DispatchSourceSignal]

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        self.stream = stream
        sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
    }

    /// Stops listening (a later Ctrl-C ends castctl as usual).
    func stop() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
