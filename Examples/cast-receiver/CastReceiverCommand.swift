import ArgumentParser
import CastDeviceProfiles
import CastJSON
import CastEmulator
import CastStreaming
import CastorVersion
import Foundation
import Logging

/// `cast-receiver`: runs an emulated Cast device until interrupted, for any Cast sender
/// (pychromecast, castctl, Chrome with a fixed device IP) to talk to.
@main
struct CastReceiverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cast-receiver",
        abstract: "Run an emulated Google Cast device (Default Media Receiver, Backdrop, custom echo apps).",
        discussion: """
            Prints "cast-receiver: listening on HOST:PORT" once it accepts senders, runs until SIGINT or \
            SIGTERM, then prints the violations it recorded (sender mistakes a real device would reject) \
            and exits with status 0 (or 3 with --strict when there were violations).
            """,
        version: CastorVersion.description)

    @Option(help: "The friendly name (TXT fn).")
    var name = "Castor Receiver"

    @Option(help: "The model name (TXT md, eureka_info model_name); defaults to the profile's model.")
    var model: String?

    @Option(help: ArgumentHelp(
        "What the device decodes, as this model of Cast device: \(CastDeviceProfile.presets.map(\.id).joined(separator: ", ")).",
        discussion: """
            With --fetch-media the device reads the codecs, profile, level and size of what it is asked to load \
            and fails a LOAD of what the model cannot play with LOAD_FAILED (detailedErrorCode 104, or 110 for \
            HLS and DASH), naming the codec on the fetch line. The preset also sets the advertised model name \
            (Chromecast, Chromecast Ultra, Google Nest Hub…); "audio" makes an audio-only device. "any" (the \
            default) plays anything, as before.
            """),
        transform: { name in
            guard let profile = CastDeviceProfile.preset(named: name) else {
                throw ValidationError("unknown profile \(name); choose one of \(CastDeviceProfile.presets.map(\.id).joined(separator: ", "))")
            }
            return profile
        })
    var profile: CastDeviceProfile = .any

    @Flag(help: "The device's HDMI sink decodes AC-3 and E-AC-3 (a TV or receiver that takes Dolby); without it such audio is refused.")
    var hdmiPassthrough = false

    @Option(help: "The device id (a UUID); random by default.")
    var id: String?

    @Option(help: ArgumentHelp(
        "The address to listen on (default 127.0.0.1; with --advertise, every IPv4 and IPv6 address).",
        discussion: "With --advertise and an explicit --host, only the interface holding that address is advertised."))
    var host: String?

    @Option(help: "The TCP port; 0 picks a free one (printed in the ready line).")
    var port = 8009

    @Flag(help: "Emulate an audio-only device (no Backdrop, audio DMR variant 705D30C6).")
    var audio = false

    @Flag(help: "Emulate an audio group (multizone status lists the members).")
    var group = false

    @Option(name: .customLong("member"), help: "A group member's name (repeatable; with --group).")
    var members: [String] = []

    @Option(name: .customLong("echo-app"), help: "A custom app APPID=NAMESPACE that answers each message with the message itself (repeatable).")
    var echoApps: [String] = []

    @Flag(help: "Echo apps answer {\"echo\": message, \"requestId\": …} instead of the message itself.")
    var echoWrapped = false

    @Option(name: .customLong("broken"), help: "Content whose URL contains this text fails with LOAD_FAILED 104 (repeatable).")
    var broken: [String] = []

    @Option(help: "Milliseconds to wait before each reply, like a device on a LAN.")
    var latencyMs = 5

    @Option(help: "Seconds of sender silence before its socket is dropped.")
    var heartbeatTimeout = 20.0

    @Option(help: "The device volume at start (0...1).")
    var volume = 0.5

    @Flag(help: "Publish the device over mDNS through avahi-daemon (_googlecast._tcp with a real TXT record).")
    var advertise = false

    @Option(help: "Append the receiver's log (connections, violations) to this file.")
    var log: String?

    @Flag(help: "Exit with status 3 when violations were recorded.")
    var strict = false

    @Flag(help: ArgumentHelp(
        "Fetch what senders load, like a real receiver: the media's first bytes (a Range request) and every text track, over HTTP.",
        discussion: "Each fetch is printed as a \"cast-receiver: fetch …\" line; a failed fetch fails the LOAD with LOAD_FAILED."))
    var fetchMedia = false

    @Option(help: "Seconds each fetch may take (with --fetch-media).")
    var fetchTimeout = 10.0

    @Option(help: ArgumentHelp(
        "Seconds BUFFERED media plays when neither the sender nor the fetched bytes tell its duration; 0 plays it until stopped.",
        discussion: "With --fetch-media the receiver reads the duration of MP4/MOV, Matroska/WebM, MP3, AAC (ADTS), FLAC, Ogg, WAV, HLS and DASH itself."))
    var defaultDuration = 600.0

    @Option(help: ArgumentHelp(
        "A directory of device-authentication credentials: device.crt + device.key, or a test root (root.crt, intermediate.crt, … as written on first use).",
        discussion: "Without it a fresh test root (root → intermediate → device) is made at start. An empty or missing directory gets a new test root, kept for later runs."))
    var credentials: String?

    @Option(help: ArgumentHelp(
        "Write the PEM of the test root that vouches for the device to this file.",
        discussion: "Senders that verify devices trust it: castctl --trust-root FILE --require-genuine."))
    var exportTrustRoot: String?

    @Option(help: ArgumentHelp(
        "Write each screen-mirroring session's streams to DIR/session-N/ as files ffmpeg plays.",
        discussion: "VP8/VP9/AV1 as IVF, H.264/HEVC as Annex B, Opus as Ogg, AAC as ADTS, with session.json (codecs, counters, lip sync).",
        valueName: "DIR"))
    var mirrorRecord: String?

    @Option(help: ArgumentHelp(
        "The video codecs mirroring takes, in order of preference (vp8, vp9, h264, hevc, av1).",
        discussion: "By default what --profile decodes: vp8 and h264 on every device with a screen, then vp9, hevc and av1 where the profile has them; none on a speaker."))
    var mirrorVideoCodecs: String?

    @Option(help: "The UDP port mirroring sessions receive on; 0 picks a free one per session.")
    var mirrorPort = 0

    @Option(help: "The UDP port the ANSWER names, when packets come through a forwarder (default: the bound port).")
    var mirrorAnswerPort: Int?

    @Option(help: "Seconds without a packet after which a mirroring session ends.")
    var mirrorIdleTimeout = 10.0

    @Option(help: "The HTTP port of /setup/eureka_info (devices: 8008); 0 serves none.")
    var eurekaPort = 8008

    @Option(help: "The HTTPS port of /setup/eureka_info (devices: 8443); 0 serves none.")
    var eurekaTlsPort = 8443

    func validate() throws {
        if audio && group { throw ValidationError("--audio and --group are mutually exclusive") }
        if (audio || group) && profile.hasVideoOutput && !profile.acceptsEverything {
            throw ValidationError("--profile \(profile.id) is a video device; --audio and --group take --profile audio or any")
        }
        if !members.isEmpty && !group { throw ValidationError("--member needs --group") }
        if let id, UUID(uuidString: id) == nil { throw ValidationError("--id must be a UUID") }
        if !(0...65_535).contains(port) { throw ValidationError("--port must be in 0...65535") }
        if latencyMs < 0 { throw ValidationError("--latency-ms must not be negative") }
        if !(heartbeatTimeout > 0) { throw ValidationError("--heartbeat-timeout must be positive") }
        if !(fetchTimeout > 0) { throw ValidationError("--fetch-timeout must be positive") }
        if !(defaultDuration >= 0) { throw ValidationError("--default-duration must not be negative") }
        for (name, value) in [("--eureka-port", eurekaPort), ("--eureka-tls-port", eurekaTlsPort)] where !(0...65_535).contains(value) {
            throw ValidationError("\(name) must be in 0...65535")
        }
        for name in (mirrorVideoCodecs ?? "").split(separator: ",") {
            guard let codec = StreamingCodec(name: String(name)), codec.isVideo else {
                throw ValidationError("--mirror-video-codecs: \(name) is not one of vp8, vp9, h264, hevc, av1")
            }
            _ = codec
        }
        if !(0...65_535).contains(mirrorPort) { throw ValidationError("--mirror-port must be in 0...65535") }
        if let mirrorAnswerPort, !(1...65_535).contains(mirrorAnswerPort) { throw ValidationError("--mirror-answer-port must be in 1...65535") }
        if !(mirrorIdleTimeout > 0) { throw ValidationError("--mirror-idle-timeout must be positive") }
        for app in echoApps {
            let parts = app.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].hasPrefix("urn:x-cast:") else {
                throw ValidationError("--echo-app must be APPID=urn:x-cast:NAMESPACE, got \(app)")
            }
        }
    }

    func run() async throws {
        let logger = try makeLogger()
        let kind: EmulatedReceiverDeviceKind
        if group {
            let names = members.isEmpty ? ["Kitchen speaker", "Living Room speaker"] : members
            kind = .group(members: names.map { EmulatedReceiverGroupMember(name: $0) })
        } else {
            kind = audio ? .audio : .video
        }
        let deviceID = id.flatMap(UUID.init(uuidString:)) ?? UUID()
        let loaded: DeviceCredentialsLoader.Loaded
        do {
            loaded = try DeviceCredentialsLoader.load(directory: credentials, deviceID: deviceID.uuidString.lowercased())
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("cast-receiver: cannot load device credentials: \(error)\n".utf8))
            throw ExitCode(1)
        }
        if let exportTrustRoot {
            guard let root = loaded.rootPEM else {
                try? FileHandle.standardError.write(contentsOf: Data(
                    "cast-receiver: --export-trust-root: the credentials directory has no root.crt\n".utf8))
                throw ExitCode(1)
            }
            try Data(root.utf8).write(to: URL(fileURLWithPath: exportTrustRoot), options: .atomic)
        }
        let brokenParts = broken
        let wrapped = echoWrapped
        let apps = echoApps.map { spec -> EmulatedReceiverApp in
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            return EmulatedReceiverApp(
                appId: parts[0], displayName: "Echo \(parts[0])", namespaces: [parts[1]], handler: EchoAppHandler(wrapped: wrapped))
        }
        let waitForTermination = Self.installTerminationHandlers()
        // With --advertise and no --host, listen wherever the device is advertised: every IPv4 and
        // IPv6 address ("::" is dual-stack on Linux), or every IPv4 address where IPv6 is off.
        let hosts = host.map { [$0] } ?? (advertise ? ["::", "0.0.0.0"] : ["127.0.0.1"])
        var started: (receiver: EmulatedReceiver, host: String, configuration: EmulatedReceiverConfiguration)?
        var lastError: (any Error)?
        for candidate in hosts {
            var mirroring = EmulatedReceiverMirroring(profile: profile)
            if let mirrorVideoCodecs {
                mirroring.videoCodecs = mirrorVideoCodecs.split(separator: ",").compactMap { StreamingCodec(name: String($0)) }
            }
            mirroring.port = mirrorPort
            mirroring.advertisedPort = mirrorAnswerPort
            mirroring.idleTimeout = .milliseconds(Int(mirrorIdleTimeout * 1000))
            mirroring.recordDirectory = mirrorRecord
            let configuration = EmulatedReceiverConfiguration(
                name: name, model: model, id: deviceID, kind: kind, host: candidate,
                port: port, replyLatency: .milliseconds(latencyMs),
                heartbeat: EmulatedReceiverHeartbeat(silenceTimeout: .milliseconds(Int(heartbeatTimeout * 1000))),
                isBrokenContent: { url in brokenParts.contains { url.contains($0) } },
                apps: apps, volumeLevel: volume, deviceCredentials: loaded.credentials,
                mediaFetching: fetchMedia ? EmulatedReceiverMediaFetching(timeout: .milliseconds(Int(fetchTimeout * 1000))) : nil,
                profile: profile, hdmiPassthrough: hdmiPassthrough,
                defaultMediaDuration: defaultDuration > 0 ? .milliseconds(Int(defaultDuration * 1000)) : nil,
                eureka: EmulatedReceiverEureka(httpPort: eurekaPort, httpsPort: eurekaTlsPort),
                mirroring: mirroring)
            let advertiser = advertise ? try AvahiAdvertiser(listeningOn: candidate) : nil
            let receiver = EmulatedReceiver(configuration: configuration, advertiser: advertiser, logger: logger)
            do {
                try await receiver.start()
                started = (receiver, candidate, configuration)
                break
            } catch {
                lastError = error
            }
        }
        guard let (receiver, boundHost, configuration) = started else {
            try? FileHandle.standardError.write(contentsOf: Data("cast-receiver: \(lastError.map { "\($0)" } ?? "cannot start")\n".utf8))
            throw ExitCode(1)
        }
        let boundPort = await receiver.port ?? port
        say("cast-receiver: listening on \(boundHost):\(boundPort)")
        say("cast-receiver: \(name) (\(configuration.model)) id \(configuration.id.uuidString.lowercased())")
        if !profile.acceptsEverything {
            let passthrough = hdmiPassthrough ? ", HDMI passthrough" : ""
            let fetching = fetchMedia ? "" : " (codecs are checked only with --fetch-media)"
            say("cast-receiver: profile \(profile)\(passthrough)\(fetching)")
        }
        let mirroring = configuration.mirroring
        let mirroredVideo = mirroring.videoCodecs.isEmpty ? "sound alone"
            : mirroring.videoCodecs.map(\.name).joined(separator: ", ")
                + " up to \(mirroring.maximumWidth)x\(mirroring.maximumHeight) at \(Int(mirroring.maximumFrameRate)) fps"
        say("cast-receiver: mirroring takes \(mirroredVideo)\(mirroring.recordDirectory.map { ", recorded to \($0)" } ?? "")")
        say("cast-receiver: device authentication with \(loaded.summary)")
        if let exportTrustRoot { say("cast-receiver: trust root written to \(exportTrustRoot)") }
        if let eureka = await receiver.eurekaPorts {
            if let http = eureka.http { say("cast-receiver: eureka_info on http port \(http)") }
            if let https = eureka.https { say("cast-receiver: eureka_info on https port \(https)") }
            for problem in eureka.problems { say("cast-receiver: warning: \(problem)") }
        }
        let fetchPrinter = fetchMedia ? Task {
            for await fetch in await receiver.fetchEvents() { say("cast-receiver: fetch \(fetch)") }
        } : nil
        let mirroringPrinter = Task {
            for await session in await receiver.mirroringUpdates() {
                if let ended = session.ended {
                    say("cast-receiver: mirroring session \(session.number) ended (\(ended))")
                    for stream in session.streams {
                        say("cast-receiver: mirroring stream \(stream)" + (stream.recording.map { " → \($0)" } ?? ""))
                    }
                } else {
                    let streams = session.streams.map { "\($0.codec.isVideo ? "video" : "audio") \($0.codec)" }.joined(separator: ", ")
                    say("cast-receiver: mirroring session \(session.number) negotiated (app \(session.appId)): \(streams)")
                }
            }
        }

        await waitForTermination()
        await receiver.stop()
        await fetchPrinter?.value
        await mirroringPrinter.value
        let violations = await receiver.violations
        say("cast-receiver: stopped; \(violations.count) violation(s)")
        for violation in violations { say("cast-receiver: violation \(violation)") }
        if strict && !violations.isEmpty { throw ExitCode(3) }
    }

    private func makeLogger() throws -> Logger {
        guard let log else {
            var logger = Logger(label: "cast-receiver", factory: { _ in SwiftLogNoOpLogHandler() })
            logger.logLevel = .critical
            return logger
        }
        let handler = try FileLogHandler(path: log)
        var logger = Logger(label: "cast-receiver", factory: { _ in handler })
        logger.logLevel = .debug
        return logger
    }

    /// Installs the SIGINT/SIGTERM handlers (before the ready line, so a signal sent right after it
    /// is never lost) and returns a function that suspends until one arrives.
    ///
    /// The handler only writes a byte to a pipe (async-signal-safe); a thread blocked on the pipe's
    /// other end resumes the program. Installing our own handler also works when the program was
    /// started in the background by a shell that set SIGINT to "ignore".
    static func installTerminationHandlers() -> @Sendable () async -> Void {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return {} }
        signalPipe = fds[1]
        signal(SIGPIPE, SIG_IGN)
        let handler: @convention(c) (Int32) -> Void = { _ in
            var byte: UInt8 = 1
            _ = write(signalPipe, &byte, 1)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        let readEnd = fds[0]
        return {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    var byte: UInt8 = 0
                    while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
                    continuation.resume()
                }
            }
        }
    }
}

/// The write end of the pipe the signal handler writes to; set once before the handler is installed.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// Writes one line to standard output, unbuffered, so a driving script sees it at once.
/// A closed pipe (the reader went away) is ignored rather than fatal.
func say(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
