import CastDiscoveryCore
import CastMPRIS
import Castor
import Synchronization

/// `castctl tui --mpris`: the TUI's session also published as an MPRIS 2 player on the D-Bus
/// session bus, so the desktop's media controls and `playerctl` drive the same device; the player
/// goes when the TUI quits.
final class TuiMprisExport: Sendable {
    private let player: CastMPRISPlayer
    private let task: Task<Void, Never>
    private let status = Line()

    /// The line shown, set from the player's task.
    private final class Line: Sendable {
        private let text = Mutex("desktop: connecting to the session bus")
        var value: String { text.withLock { $0 } }
        func set(_ value: String) { text.withLock { $0 = value } }
    }

    /// Starts publishing `cast`'s session under a bus name derived from `device`'s name (the same
    /// one `castctl mpris --host` uses for that address).
    init(cast: Castor.Cast, device: CastDevice) {
        let instance = "d" + CastDeviceID.derived(from: device.friendlyName).txtValue.prefix(8)
        let player = CastMPRISPlayer(cast: cast, configuration: CastMPRISConfiguration(instanceName: instance))
        let status = status
        self.player = player
        task = Task {
            let names = Task {
                for await name in player.busNames {
                    status.set(name.map { "desktop: \($0)" } ?? "desktop: no media session")
                }
            }
            defer { names.cancel() }
            do {
                try await player.run()
            } catch {
                status.set("desktop: \((error as? CastMPRISError)?.message ?? "\(error)")")
            }
        }
    }

    /// The line the TUI draws under its frame.
    var lines: [String] { ["  " + status.value] }

    /// Removes the player from the bus.
    func stop() async {
        task.cancel()
        await task.value
    }
}
