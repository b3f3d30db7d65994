import ArgumentParser
import CastJSON
import CastReceiver
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
            """)

    @Option(help: "The friendly name (TXT fn).")
    var name = "Castor Receiver"

    @Option(help: "The model name (TXT md); defaults by device kind.")
    var model: String?

    @Option(help: "The device id (a UUID); random by default.")
    var id: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The TCP port; 0 picks a free one (printed in the ready line).")
    var port = 8009

    @Flag(help: "Emulate an audio-only device (no Backdrop, audio DMR variant 705D30C6).")
    var audio = false

    @Flag(help: "Emulate an audio group (multizone status lists the members).")
    var group = false

    @Option(name: .customLong("member"), help: "A group member's name (repeatable; with --group).")
    var members: [String] = []

    @Option(name: .customLong("echo-app"), help: "A custom app APPID=NAMESPACE that echoes {\"echo\": message} (repeatable).")
    var echoApps: [String] = []

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

    func validate() throws {
        if audio && group { throw ValidationError("--audio and --group are mutually exclusive") }
        if !members.isEmpty && !group { throw ValidationError("--member needs --group") }
        if let id, UUID(uuidString: id) == nil { throw ValidationError("--id must be a UUID") }
        if !(0...65_535).contains(port) { throw ValidationError("--port must be in 0...65535") }
        if latencyMs < 0 { throw ValidationError("--latency-ms must not be negative") }
        if !(heartbeatTimeout > 0) { throw ValidationError("--heartbeat-timeout must be positive") }
        if !(fetchTimeout > 0) { throw ValidationError("--fetch-timeout must be positive") }
        for app in echoApps {
            let parts = app.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].hasPrefix("urn:x-cast:") else {
                throw ValidationError("--echo-app must be APPID=urn:x-cast:NAMESPACE, got \(app)")
            }
        }
    }

    func run() async throws {
        let logger = try makeLogger()
        let kind: CastReceiverDeviceKind
        if group {
            let names = members.isEmpty ? ["Kitchen speaker", "Living Room speaker"] : members
            kind = .group(members: names.map { CastReceiverGroupMember(name: $0) })
        } else {
            kind = audio ? .audio : .video
        }
        let brokenParts = broken
        let apps = echoApps.map { spec -> CastReceiverApp in
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            return CastReceiverApp(appId: parts[0], displayName: "Echo \(parts[0])", namespaces: [parts[1]], handler: EchoAppHandler())
        }
        let configuration = CastReceiverConfiguration(
            name: name, model: model, id: id.flatMap(UUID.init(uuidString:)) ?? UUID(), kind: kind, host: host,
            port: port, replyLatency: .milliseconds(latencyMs),
            heartbeat: CastReceiverHeartbeat(silenceTimeout: .milliseconds(Int(heartbeatTimeout * 1000))),
            isBrokenContent: { url in brokenParts.contains { url.contains($0) } },
            apps: apps, volumeLevel: volume,
            mediaFetching: fetchMedia ? CastReceiverMediaFetching(timeout: .milliseconds(Int(fetchTimeout * 1000))) : nil)
        let receiver = CastReceiver(
            configuration: configuration, advertiser: advertise ? AvahiAdvertiser() : nil, logger: logger)
        let waitForTermination = Self.installTerminationHandlers()
        do {
            try await receiver.start()
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("cast-receiver: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let boundPort = await receiver.port ?? port
        say("cast-receiver: listening on \(host):\(boundPort)")
        say("cast-receiver: \(name) (\(configuration.model)) id \(configuration.id.uuidString.lowercased())")
        let fetchPrinter = fetchMedia ? Task {
            for await fetch in await receiver.fetchEvents() { say("cast-receiver: fetch \(fetch)") }
        } : nil

        await waitForTermination()
        await receiver.stop()
        await fetchPrinter?.value
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

/// A custom app that answers every message with `{"echo": <message>}`.
struct EchoAppHandler: CastReceiverAppHandler {
    func handle(_ message: CastReceiverAppMessage) -> [CastReceiverAppResponse] {
        [.reply(["echo": message.json ?? .string(message.text)])]
    }
}
