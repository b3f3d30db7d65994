import ArgumentParser
import CastChannels
import CastJSON
import CastMedia
import CastMediaMetadata
import CastQueue
import CastEmulator
import CastTLS
import ChatChannel
import Foundation

/// `castctl demo`: an emulated receiver in this process, driven through the public API.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a whole session against an emulated receiver started in this process.",
        discussion: "Needs no Cast hardware and no avahi-daemon: the receiver listens on a loopback port.")

    @Option(help: "Seconds each step lets playback run, with a live progress bar.") var stepSeconds = 1.5
    @Option(help: "The emulated receiver's friendly name.") var name = "Castor Demo TV"
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        try await Output.run { try await DemoSession(stepSeconds: stepSeconds, name: name).run() }
    }
}

/// The narrated session.
struct DemoSession {
    let stepSeconds: Double
    let name: String
    let narrator = Narrator()

    static let sampleBase = "https://storage.googleapis.com/gtv-videos-bucket/sample"

    func run() async throws {
        // 1. The device.
        // Device-authentication credentials from a test root this demo trusts (no Google-chained keys).
        let credentials = try CastDeviceCredentials.generate(deviceID: "Castor Demo TV")
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: name, host: "127.0.0.1", port: 0, apps: [ChatReceiverHandler.app()], deviceCredentials: credentials),
            logger: Output.logger)
        try await receiver.start()
        let port = try await receiver.port.unwrap("the receiver did not report its port")
        narrator.step("Emulated receiver “\(name)” listening on 127.0.0.1:\(port) (TLS, self-signed certificate)")

        // 2. Connect: TLS, device authentication, CONNECT, heartbeat, GET_STATUS.
        let transport = try await TLSCastTransport.connect(host: "127.0.0.1", port: port)
        let trust = CastTrustStore.cast.merging(try credentials.authority.unwrap("the demo credentials have no authority").trustStore)
        let connection = CastConnection(
            transport: transport,
            configuration: .init(userAgent: "castctl demo", deviceAuthPolicy: .require, deviceAuthTrustStore: trust),
            logger: Output.logger)
        let media = CastMediaChannel()
        let chat = ChatChannel()
        try await connection.add(media)
        try await connection.add(chat)
        let status = try await connection.start()
        narrator.step("Connected over \(transport.tlsVersion); device authentication: \(connection.deviceAuthStatus)")
        narrator.detail("receiver status: \(status.applications.map(\.displayName).joined(separator: ", ").nonEmpty ?? "idle"), volume \(status.volume.level.map { String(format: "%.2f", $0) } ?? "?")")

        // 3. Launch the Default Media Receiver.
        let app = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
        _ = try await connection.waitUntilConnected(media)
        narrator.step("Launched \(app.displayName) (\(app.appId)), session \(app.sessionId.prefix(8))…")

        // 4. A three-item queue with metadata, artwork and a subtitle track.
        let items = Self.queue()
        var mediaStatus = try await media.queueLoad(items, startIndex: 0)
        narrator.step("Loaded a queue of \(items.count) items; playing “\(mediaStatus.media?.metadata?.title ?? "?")”")
        try await watch(media)

        // 5. Pause, play, seek, rate.
        mediaStatus = try await media.pause()
        narrator.step("Paused at \(MediaStatus.clock(mediaStatus.currentTime))")
        mediaStatus = try await media.play()
        narrator.step("Playing again")
        mediaStatus = try await media.seek(to: 120)
        narrator.step("Seeked to \(MediaStatus.clock(mediaStatus.currentTime))")
        try await watch(media)
        mediaStatus = try await media.setPlaybackRate(1.5)
        narrator.step("Playback rate \(mediaStatus.playbackRate)×")
        try await watch(media)

        // 6. Subtitles on, then styled.
        mediaStatus = try await media.setActiveTracks([1])
        narrator.step("Subtitles on: active tracks \(mediaStatus.activeTrackIds ?? [])")
        var style = TextTrackStyle()
        style.foregroundColor = CastColor(red: 255, green: 255, blue: 0)
        style.backgroundColor = CastColor(red: 0, green: 0, blue: 0, alpha: 160)
        style.edgeType = .outline
        style.fontScale = 1.2
        mediaStatus = try await media.setTextTrackStyle(style)
        narrator.step("Subtitles styled: yellow on translucent black, outlined, 120 %")

        // 7. Next item.
        mediaStatus = try await media.queueNext()
        narrator.step("Next item: “\(mediaStatus.media?.metadata?.title ?? "?")” (item \(mediaStatus.currentItemId ?? 0))")
        try await watch(media)

        // 8. Device volume and mute.
        var receiverStatus = try await connection.receiver.setVolume(level: 0.35)
        narrator.step("Device volume \(String(format: "%.2f", receiverStatus.volume.level ?? 0))")
        receiverStatus = try await connection.receiver.setMuted(true)
        narrator.step("Muted: \(receiverStatus.volume.muted == true)")
        receiverStatus = try await connection.receiver.setMuted(false)
        narrator.step("Unmuted: \(receiverStatus.volume.muted == false)")

        // 9. A custom channel: the chat plugin from Examples/ChatChannel, with its receiver app.
        let chatApp = try await connection.receiver.launch(appId: ChatChannel.appId)
        _ = try await connection.waitUntilConnected(chat)
        narrator.step("Launched \(chatApp.displayName) (\(chatApp.appId)); the media app was replaced")
        let reply = try await chat.say("hello from Linux")
        narrator.step("Custom channel \(ChatChannel.namespace): sent “hello from Linux”, got “\(reply.text)” (#\(reply.count))")

        // 10. Stop and show the final state.
        let final = try await connection.receiver.stop(sessionId: chatApp.sessionId)
        narrator.step("Stopped the app; receiver shows \(final.applications.map { "\($0.displayName)\($0.isIdleScreen ? " (idle screen)" : "")" }.joined(separator: ", ").nonEmpty ?? "nothing (idle)")")
        await connection.close()
        let violations = await receiver.violations
        await receiver.stop()
        narrator.step("Closed. Protocol violations recorded by the receiver: \(violations.count)")
        guard violations.isEmpty else {
            throw ValidationError("the emulated receiver recorded violations: \(violations)")
        }
    }

    /// Lets playback run for one step, drawing a progress bar from the extrapolated position.
    func watch(_ media: CastMediaChannel) async throws {
        let steps = max(1, Int(stepSeconds * 10))
        for tick in 0...steps {
            if let status = media.status, let position = media.estimatedPosition {
                narrator.progress(position: position, duration: status.media?.duration, state: status.playerState.rawValue,
                                  final: tick == steps)
            }
            if tick < steps { try await Task.sleep(for: .milliseconds(100)) }
        }
    }

    static func queue() -> [QueueItem] {
        let entries: [(String, String, Double, String)] = [
            ("Big Buck Bunny", "BigBuckBunny.mp4", 596, "BigBuckBunny.jpg"),
            ("Elephants Dream", "ElephantsDream.mp4", 653, "ElephantsDream.jpg"),
            ("Sintel", "Sintel.mp4", 888, "Sintel.jpg"),
        ]
        return entries.enumerated().map { index, entry in
            var metadata = CastMetadata(title: entry.0, metadataType: .movie, images: [])
            if let image = URL(string: "\(sampleBase)/images/\(entry.3)") {
                metadata.images = [CastImage(url: image, width: 480, height: 270)]
            }
            metadata.subtitle = "Blender Foundation"
            var tracks: [MediaTrack]?
            if index == 0 {
                tracks = [MediaTrack(trackId: 1, type: .text, subtype: .subtitles, contentId: "\(sampleBase)/subtitles/\(entry.1).en.vtt",
                                     contentType: "text/vtt", name: "English", language: "en")]
            }
            let media = MediaInformation(contentId: "\(sampleBase)/\(entry.1)", contentType: "video/mp4", streamType: .buffered,
                                         duration: entry.2, metadata: metadata, tracks: tracks)
            return QueueItemBuilder(media: media).build()
        }
    }
}

/// Prints the demo's steps; draws the progress bar in place on a terminal, as lines otherwise.
final class Narrator: Sendable {
    let isTerminal = isatty(STDOUT_FILENO) == 1

    /// Flushes standard output (progress lines are drawn without a newline).
    static func flush() { fflush(nil) }
    private let start = ContinuousClock.now

    func step(_ text: String) {
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "[%5.1fs] ", seconds) + "✔ " + text)
        Narrator.flush()
    }

    func detail(_ text: String) {
        print("         " + text)
        Narrator.flush()
    }

    func progress(position: Double, duration: Double?, state: String, final: Bool) {
        let width = 32
        let fraction = duration.map { $0 > 0 ? min(1, max(0, position / $0)) : 0 } ?? 0
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "         \(bar) \(MediaStatus.clock(position)) / \(duration.map(MediaStatus.clock) ?? "live") \(state)"
        if isTerminal {
            print("\r" + line, terminator: final ? "\n" : "")
        } else if final {
            print(line)
        }
        Narrator.flush()
    }
}

extension Optional {
    func unwrap(_ message: String) throws -> Wrapped {
        guard let self else { throw ValidationError(message) }
        return self
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
