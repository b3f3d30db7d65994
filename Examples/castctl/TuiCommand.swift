import ArgumentParser
import CastDiscoveryCore
import CastMedia
import CastMediaMetadata
import CastEmulator
import CastCore
import Castor
import Foundation
import Synchronization

/// `castctl tui`: the expanded controller in the terminal, driven by Castor's headless models.
struct Tui: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A terminal remote: the expanded controller with a progress bar and a key per slot.",
        discussion: """
            Keys: 1 rewind 30 s · 2 previous · space/p play-pause · 3 next · 4 forward 30 s · m mute · +/- volume · q quit. \
            With --emulated, an emulated receiver runs in this process with a three-item queue. \
            The connection state shows under the title: connected, reconnecting (with the attempt and a countdown) or lost; \
            while the device is away no stale position is drawn. When another sender's cast replaces ours (typically \
            on a device that restarted while we were away), the remote follows that cast, as a remote should: it joins \
            it without launching anything and shows its queue (status 4 only when that cast cannot be joined within \
            --reconnect-timeout, or the app was stopped on the receiver).

            \(SessionExit.help)
            """)

    @Option(help: "The device's address.") var host: String?
    @Option(help: "The device's Cast port.") var port = 8009
    @Option(help: "The device: an alias, its friendly name or UUID (found through mDNS), or HOST:PORT; by default $CASTCTL_DEVICE or the configured default.")
    var device: String?
    @Flag(help: "Start an emulated receiver in this process and play a demo queue on it.") var emulated = false
    @Option(help: "Draw this many frames, then quit (for scripts; 0 = until q).") var frames = 0
    @Option(help: "Milliseconds between frames.") var intervalMs = 250
    @Flag(help: "Also publish the session as an MPRIS 2 player on the D-Bus session bus (desktop media controls, playerctl).") var mpris = false
    @Option(help: "Seconds a connect or request may take (TLS, device authentication, each command).") var timeout: Double = 10
    @Flag(help: "Refuse a device that device authentication does not prove genuine.") var requireGenuine = false
    @Option(help: "A PEM file of extra trusted Cast roots (for test devices: the file cast-receiver --export-trust-root writes).")
    var trustRoot: String?
    @OptionGroup var reconnect: ReconnectOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard [host != nil, device != nil, emulated].filter({ $0 }).count <= 1 else {
            throw ValidationError("Give at most one of --host, --device and --emulated (none: the default device)")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if emulated, requireGenuine || trustRoot != nil {
            throw ValidationError("--require-genuine and --trust-root are for a device (--host or --device), not --emulated")
        }
    }

    /// The device options as `castctl status` would take them: where, how long, how much trust, how much logging.
    func deviceArguments() throws -> [String] {
        DeviceOptions.arguments(host: host, port: port, device: device, timeout: timeout, requireGenuine: requireGenuine,
                                trustRoot: trustRoot, logLevel: try logging.level().rawValue)
    }

    func run() async throws {
        try await Output.run {
            var receiver: EmulatedReceiver?
            let target: CastDevice
            let cast: Castor.Cast
            if emulated {
                let emulatedReceiver = EmulatedReceiver(
                    configuration: EmulatedReceiverConfiguration(name: "Castor TUI TV", host: "127.0.0.1", port: 0), logger: Output.logger)
                try await emulatedReceiver.start()
                let boundPort = try await emulatedReceiver.port.unwrap("the receiver did not report its port")
                receiver = emulatedReceiver
                target = CastDevice(id: CastDeviceID(UUID()), friendlyName: "Castor TUI TV",
                                    endpoints: [KnownHost(host: "127.0.0.1", port: boundPort).endpoint])
                cast = Castor.Cast(configuration: CastConfiguration(reconnectPolicy: reconnect.policy), logger: Output.logger)
            } else {
                let options = try DeviceOptions.parse(try deviceArguments())
                (cast, target) = try await options.façade(reconnect: reconnect)
            }
            let connection = TuiConnectionState()
            let events = cast.events
            let follower = Task { for await event in events { connection.apply(event) } }
            defer { follower.cancel() }
            try await cast.startSession(with: target)
            guard var player = cast.player else { throw ValidationError("No player: the session did not start") }
            if emulated {
                let assets = DemoSession.queue().compactMap { $0.media }.map(CastAsset.init(media:))
                try await player.loadItems(from: assets)
            }
            let desktop = mpris ? TuiMprisExport(cast: cast, device: target) : nil
            var volume = cast.deviceManager()
            var model = CastExpandedControllerModel(player: player, volume: volume)
            var volumeController = volume.map(CastDeviceVolumeController.init(device:))
            let screen = TerminalScreen()
            screen.enterRawMode()
            defer { screen.leaveRawMode() }
            var drawn = 0
            loop: while frames == 0 || drawn < frames {
                for key in screen.pendingKeys() {
                    switch key {
                    case "q", "\u{1b}": break loop
                    case "m": volumeController?.toggleMute()
                    case "+", "=": volumeController?.increase()
                    case "-": volumeController?.decrease()
                    default: _ = model.handleKey(key)
                    }
                }
                if let takenOver = connection.takeFollowRequest() {
                    // Another sender's cast runs on the device now: a remote shows what plays, so
                    // join it (launching nothing) and go on with its queue.
                    screen.draw(Self.following(takenOver, device: target.friendlyName))
                    do {
                        try await Self.join(cast, target, within: reconnect.reconnectTimeout)
                    } catch {
                        connection.fail(.takenOver, "\(takenOver); following its cast failed: \(error)")
                        continue
                    }
                    guard let joined = cast.player else { continue }
                    player = joined
                    volume = cast.deviceManager()
                    model = CastExpandedControllerModel(player: player, volume: volume)
                    volumeController = volume.map(CastDeviceVolumeController.init(device:))
                    connection.followed()
                    continue
                }
                if let (status, message) = connection.exit {
                    screen.leaveRawMode()
                    await desktop?.stop()
                    if let receiver { await receiver.stop() }
                    FileHandle.standardError.write(Data("castctl: \(message)\n".utf8))
                    throw ExitCode(status.rawValue)
                }
                screen.draw(Self.frame(player: player, model: model, volume: volumeController, device: target.friendlyName,
                                       connection: connection.line(now: .now)) + (desktop?.lines ?? []))
                drawn += 1
                try await Task.sleep(for: .milliseconds(intervalMs))
            }
            screen.leaveRawMode()
            await desktop?.stop()
            await cast.endSession()
            if let receiver { await receiver.stop() }
        }
    }

    /// Joins the media session running on `target` (another sender's), giving up after `seconds` (0: at once).
    static func join(_ cast: Castor.Cast, _ target: CastDevice, within seconds: Double) async throws(CastError) {
        let joining = Task { try await cast.joinSession(with: target) }
        let deadline = Task {
            try? await Task.sleep(for: .milliseconds(Int64(max(seconds, 1) * 1000)))
            joining.cancel()
        }
        defer { deadline.cancel() }
        do {
            try await joining.value
        } catch let error as CastError {
            throw error
        } catch {
            throw CastError(code: .cancelled, message: "\(error)")
        }
    }

    /// The screen while joining another sender's cast.
    static func following(_ why: String, device: String) -> [String] {
        ["Castor — \(device)", "  \(why)", "  following its cast…"]
    }

    /// One screen of the remote, as lines.
    static func frame(player: CastPlayer, model: CastExpandedControllerModel, volume: CastDeviceVolumeController?,
                      device: String, connection: String = "connected") -> [String] {
        let away = connection != "connected"
        let title = player.currentAsset?.metadata?.title ?? "—"
        let time = player.time()
        let range = player.seekableTimeRange()
        let seconds = { (duration: Duration?) -> Double in
            guard let duration else { return 0 }
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        let position = seconds(time)
        let end = range.map { seconds($0.upperBound) } ?? 0
        let width = 40
        let fraction = end > 0 ? min(1, max(0, position / end)) : 0
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let buttons = model.positions.map { position -> String in
            let button = model.button(at: position)
            let key = model.key(for: position).map { $0 == " " ? "␣" : String($0) } ?? "·"
            let glyph = button.isEnabled ? button.glyph : "·"
            return "[\(key)] \(glyph)"
        }
        let state = away ? "—" : player.isBusy ? "buffering" : (player.shouldPlay ? "playing" : "paused")
        var volumeText = ""
        if let volume {
            volumeText = volume.isMuted ? "muted" : String(format: "volume %3.0f%%", volume.fraction * 100)
        }
        return [
            "Castor — \(device)",
            "  \(connection)",
            "  \(title)",
            away ? "  \(String(repeating: "·", count: width)) -:--:-- / \(MediaStatus.clock(end))  \(state)"
                : "  \(bar) \(MediaStatus.clock(position)) / \(MediaStatus.clock(end))  \(state)  ×\(player.playbackSpeed)",
            "",
            "  " + buttons.joined(separator: "   "),
            "",
            "  \(volumeText)   m mute · +/- volume · q quit",
        ]
    }
}

/// The connection as the TUI shows it, fed by the façade's events.
final class TuiConnectionState: @unchecked Sendable {
    private struct State {
        var text = "connected"
        var retryAt: ContinuousClock.Instant?
        var exit: (SessionExit, String)?
        /// Another sender took the device over (the message): the remote follows its cast.
        var follow: String?
    }
    private let state = Mutex(State())

    func apply(_ event: CastSessionEvent) {
        state.withLock { state in
            switch event {
            case .connectionLost:
                state.text = "lost; reconnecting"
                state.retryAt = nil
            case .reconnecting(let attempt, let delay):
                state.text = "reconnecting (attempt \(attempt)"
                state.retryAt = .now.advanced(by: delay)
            case .rejoined, .resumed, .started:
                state.text = "connected"
                state.retryAt = nil
            case .resumeFailed(let error) where error.code == .noSession:
                // Nothing played when the device went: the app runs again with nothing to reload.
                state.text = "connected"
                state.retryAt = nil
            case .resumeFailed(let error):
                state.exit = (.failure, "the device restarted but reloading the media failed: \(error.message)")
            case .ended(let error?):
                state.text = "lost"
                if error.code == .connectionLost {
                    state.exit = (.lost, "lost the device: \(error.message)")
                } else if error.code == .sessionTakenOver {
                    state.text = "another sender took over"
                    state.follow = error.message
                } else {
                    state.exit = (.takenOver, error.code == .sessionTakenOver ? error.message : "the session ended on the receiver: \(error.message)")
                }
            case .ended(nil), .mediaStatus, .receiverStatus:
                break
            }
        }
    }

    /// The takeover to follow, once: the caller joins the other sender's cast.
    func takeFollowRequest() -> String? {
        state.withLock { state in
            defer { state.follow = nil }
            return state.follow
        }
    }

    /// The other sender's cast was joined.
    func followed() {
        state.withLock { state in
            state.text = "connected (following another sender's cast)"
            state.retryAt = nil
        }
    }

    /// The TUI must stop with `status`.
    func fail(_ status: SessionExit, _ message: String) {
        state.withLock { $0.exit = (status, message) }
    }

    /// Why the TUI must stop, if it must.
    var exit: (SessionExit, String)? { state.withLock { $0.exit } }

    /// The connection line, with a countdown to the next attempt while reconnecting.
    func line(now: ContinuousClock.Instant) -> String {
        state.withLock { state in
            guard let retryAt = state.retryAt else { return state.text }
            let left = max(.zero, now.duration(to: retryAt))
            return state.text + String(format: ", next in %.1f s)", SessionNarrator.seconds(left))
        }
    }
}

/// Raw-mode terminal input and in-place redraws; plain line output when not on a terminal.
final class TerminalScreen: @unchecked Sendable {
    private let isTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    private var saved = termios()
    private var raw = false
    private let keys = Mutex<[Character]>([])
    private var linesDrawn = 0

    func enterRawMode() {
        guard isTerminal, !raw else { return }
        tcgetattr(STDIN_FILENO, &saved)
        var settings = saved
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        raw = true
        print("\u{1b}[?25l", terminator: "")  // hide the cursor
        Thread.detachNewThread { [self] in
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                let scalar = Character(Unicode.Scalar(byte))
                keys.withLock { $0.append(scalar) }
            }
        }
    }

    func leaveRawMode() {
        guard raw else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        raw = false
        print("\u{1b}[?25h", terminator: "")
        fflush(nil)
    }

    func pendingKeys() -> [Character] {
        keys.withLock { keys in
            defer { keys.removeAll() }
            return keys
        }
    }

    func draw(_ lines: [String]) {
        if isTerminal, linesDrawn > 0 { print("\u{1b}[\(linesDrawn)A", terminator: "") }
        for line in lines { print(isTerminal ? "\u{1b}[2K" + line : line) }
        linesDrawn = lines.count
        fflush(nil)
    }
}
