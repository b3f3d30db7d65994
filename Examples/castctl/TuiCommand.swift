import ArgumentParser
import CastDiscovery
import CastMedia
import CastMetadata
import CastReceiver
import CastTransport
import Castor
import Foundation
import Synchronization

/// `castctl tui`: the expanded controller in the terminal, driven by Castor's headless models.
struct Tui: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A terminal remote: the expanded controller with a progress bar and a key per slot.",
        discussion: """
            Keys: 1 rewind 30 s · 2 previous · space/p play-pause · 3 next · 4 forward 30 s · m mute · +/- volume · q quit. \
            With --emulated, an emulated receiver runs in this process with a three-item queue.
            """)

    @Option(help: "The device's address.") var host: String?
    @Option(help: "The device's Cast port.") var port = 8009
    @Option(help: "The device's friendly name or UUID, found through mDNS.") var device: String?
    @Flag(help: "Start an emulated receiver in this process and play a demo queue on it.") var emulated = false
    @Option(help: "Draw this many frames, then quit (for scripts; 0 = until q).") var frames = 0
    @Option(help: "Milliseconds between frames.") var intervalMs = 250
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard [host != nil, device != nil, emulated].filter({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --host, --device and --emulated")
        }
    }

    func run() async throws {
        try await Output.run {
            var receiver: CastReceiver?
            let target: CastDevice
            if emulated {
                let emulatedReceiver = CastReceiver(
                    configuration: CastReceiverConfiguration(name: "Castor TUI TV", host: "127.0.0.1", port: 0), logger: Output.logger)
                try await emulatedReceiver.start()
                let boundPort = try await emulatedReceiver.port.unwrap("the receiver did not report its port")
                receiver = emulatedReceiver
                target = CastDevice(id: CastDeviceID(UUID()), friendlyName: "Castor TUI TV",
                                    endpoints: [KnownHost(host: "127.0.0.1", port: boundPort).endpoint])
            } else {
                let options = try DeviceOptions.parse((host.map { ["--host", $0, "--port", String(port)] } ?? [])
                                                      + (device.map { ["--device", $0] } ?? [])
                                                      + ["--log-level", try logging.level().rawValue])
                let (address, devicePort) = try await options.target()
                target = CastDevice(id: CastDeviceID(UUID()), friendlyName: address,
                                    endpoints: [KnownHost(host: address, port: devicePort).endpoint])
            }
            let cast = Castor.Cast(configuration: CastConfiguration(), logger: Output.logger)
            try await cast.startSession(with: target)
            guard let player = cast.player else { throw ValidationError("No player: the session did not start") }
            if emulated {
                let assets = DemoSession.queue().compactMap { $0.media }.map(CastAsset.init(media:))
                try await player.loadItems(from: assets)
            }
            let volume = cast.deviceManager()
            let model = CastExpandedControllerModel(player: player, volume: volume)
            let volumeController = volume.map(CastDeviceVolumeController.init(device:))
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
                screen.draw(Self.frame(player: player, model: model, volume: volumeController, device: target.friendlyName))
                drawn += 1
                try await Task.sleep(for: .milliseconds(intervalMs))
            }
            screen.leaveRawMode()
            await cast.endSession()
            if let receiver { await receiver.stop() }
        }
    }

    /// One screen of the remote, as lines.
    static func frame(player: CastPlayer, model: CastExpandedControllerModel, volume: CastDeviceVolumeController?,
                      device: String) -> [String] {
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
        let state = player.isBusy ? "buffering" : (player.shouldPlay ? "playing" : "paused")
        var volumeText = ""
        if let volume {
            volumeText = volume.isMuted ? "muted" : String(format: "volume %3.0f%%", volume.fraction * 100)
        }
        return [
            "Castor — \(device)",
            "",
            "  \(title)",
            "  \(bar) \(MediaStatus.clock(position)) / \(MediaStatus.clock(end))  \(state)  ×\(player.playbackSpeed)",
            "",
            "  " + buttons.joined(separator: "   "),
            "",
            "  \(volumeText)   m mute · +/- volume · q quit",
        ]
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
