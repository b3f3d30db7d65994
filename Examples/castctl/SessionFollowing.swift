import ArgumentParser
import CastChannels
import CastDiscovery
import CastJSON
import CastMedia
import CastTLS
import Castor
import CastctlKit
import Foundation

/// How long-running commands (`cast`, `tui`, `watch`) end, as exit statuses.
enum SessionExit: Int32 {
    /// Playback finished (IDLE, FINISHED), or Ctrl-C stopped it.
    case finished = 0
    /// The command failed (could not connect, launch or load; a bad argument).
    case failure = 1
    /// The device vanished (heartbeat timeout, reset, closed) and did not come back within --reconnect-timeout.
    case lost = 3
    /// Another sender took the device over, or the app or media was stopped on the receiver.
    case takenOver = 4
    /// The receiver could not play the media (IDLE, ERROR).
    case mediaError = 5

    /// The paragraph every long-running command's `--help` shows.
    static let help = """
        Exit status: 0 playback finished (or Ctrl-C stopped it); 1 the command failed (connect, launch, load, arguments); \
        3 the device was lost (heartbeat timeout, reset, closed) and did not come back within --reconnect-timeout; \
        4 another sender took the device over, or the app or media was stopped on the receiver; \
        5 the receiver could not play the media.
        """
}

/// How a lost connection is recovered.
struct ReconnectOptions: ParsableArguments {
    @Option(help: "Seconds to keep reconnecting after the device is lost (with back-off and jitter); 0 gives up at once.")
    var reconnectTimeout: Double = 60

    func validate() throws {
        guard reconnectTimeout >= 0, reconnectTimeout.isFinite else { throw ValidationError("--reconnect-timeout must be 0 or more seconds") }
    }

    /// The façade's policy for this option.
    var policy: CastReconnectPolicy {
        reconnectTimeout == 0 ? .never : .within(.milliseconds(Int64(reconnectTimeout * 1000)))
    }
}

/// Connects to the device castctl was pointed at with `--host`.
struct CastctlConnector: CastDeviceConnector {
    let options: DeviceOptions
    let connectTimeout: Duration

    func connect(to device: CastDevice) async throws -> any CastTransport {
        let (host, port) = try await options.target()
        return try await TLSCastTransport.connect(host: host, port: port, configuration: .init(connectTimeout: connectTimeout))
    }
}

extension DeviceOptions {
    /// The Castor façade for this device, following `--timeout`, `--require-genuine`, `--trust-root`
    /// and the reconnect policy; and the device to start a session with.
    ///
    /// For a device named by name or id (``DeviceOptions/choice()``), the façade browses mDNS
    /// (avahi-daemon) for as long as it runs and the device is the record found by name or id: when it
    /// comes back at a new address or port after a loss, the façade's reconnect finds it there by its
    /// id. For an address (`--host`, or HOST:PORT), the device is that address.
    func façade(reconnect: ReconnectOptions, clock: any Clock<Duration> = ContinuousClock()) async throws -> (Castor.Cast, CastDevice) {
        let budget = Duration.milliseconds(Int64(timeout * 1000))
        var configuration = CastConfiguration(requestTimeout: budget, launchTimeout: max(budget, .seconds(30)),
                                              reconnectPolicy: reconnect.policy)
        configuration.userAgent = "castctl"
        configuration.stopsReceiverAppOnEnd = false  // leave the receiver as it is; Ctrl-C stops the media itself
        configuration.deviceAuthPolicy = requireGenuine ? .require : .report
        if let trustRoot {
            let pem = try String(contentsOfFile: trustRoot, encoding: .utf8)
            configuration.deviceAuthTrustStore = CastTrustStore.cast.merging(try CastTrustStore(deviceRootsPEM: pem))
        }
        let connectTimeout = min(budget, .seconds(5))
        let choice = try choice()
        guard case .address(let known) = choice.reference else {
            let browser = AvahiDeviceBrowser()
            let cast = Castor.Cast(configuration: configuration, browser: browser, connector: TLSDeviceConnector(connectTimeout: connectTimeout),
                                   clock: clock, logger: Output.logger)
            let target = try await Progress.during("looking for the \(choice) on the network") {
                try await DeviceResolver.find(choice.reference.description, in: browser, timeout: connectTimeout)
            }
            return (cast, target)
        }
        let target = CastDevice(id: CastDeviceID(UUID()), friendlyName: known.description, endpoints: [known.endpoint])
        let cast = Castor.Cast(configuration: configuration, connector: CastctlConnector(options: self, connectTimeout: connectTimeout),
                               clock: clock, logger: Output.logger)
        return (cast, target)
    }
}

/// Turns the façade's session events into status lines and, at the end, an exit status.
struct SessionNarrator {
    let json: Bool
    /// The media session whose end counts: statuses of older sessions (before the load) are ignored.
    var baseline: Int?

    /// What an event means for the command.
    enum Verdict: Equatable {
        case carryOn
        case exit(SessionExit, String)
    }

    /// Prints what `event` means and says whether the command ends.
    mutating func handle(_ event: CastSessionEvent, player: CastPlayer?) -> Verdict {
        switch event {
        case .connectionLost(let error):
            say("connection lost: \(error.message)", ["event": "connectionLost", "message": .string(error.message)])
        case .reconnecting(let attempt, let delay):
            let seconds = String(format: "%.1f", Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            say("reconnecting (attempt \(attempt), next in \(seconds) s)",
                ["event": "reconnecting", "attempt": .number(Double(attempt)), "nextIn": .number(Double(seconds) ?? 0)])
        case .rejoined(let attempt):
            let position = player?.time().map(Self.seconds) ?? player?.mediaStatus?.currentTime ?? 0
            say("reconnected (attempt \(attempt)); resumed at \(MediaStatus.clock(position))",
                ["event": "rejoined", "attempt": .number(Double(attempt)), "position": .number(position)])
        case .resumed(let state):
            baseline = player?.mediaStatus?.mediaSessionId
            let position = state.options.time.map(Self.seconds) ?? 0
            let title = state.assets.indices.contains(state.options.index) ? state.assets[state.options.index].metadata?.title : nil
            say("the device restarted; reloaded \(title.map { "“\($0)”" } ?? "the media"); resumed at \(MediaStatus.clock(position))",
                ["event": "resumed", "position": .number(position)])
        case .resumeFailed(let error):
            return .exit(.failure, "the device restarted but reloading the media failed: \(error.message)")
        case .ended(let error):
            guard let error else { return .exit(.finished, "the session ended") }
            if error.code == .connectionLost { return .exit(.lost, "lost the device: \(error.message)") }
            if error.code == .sessionTakenOver { return .exit(.takenOver, error.message) }
            return .exit(.takenOver, "the session ended on the receiver: \(error.message)")
        case .mediaStatus(let status):
            guard let status, status.mediaSessionId >= (baseline ?? 0) else { return .carryOn }
            if status.playerState == .idle, let reason = status.idleReason {
                switch reason {
                case .finished: return .exit(.finished, "playback ended")
                case .error: return .exit(.mediaError, "the receiver could not play the media (IDLE, ERROR)")
                case .interrupted: return .exit(.takenOver, "another load replaced the media (IDLE, INTERRUPTED)")
                default: return .exit(.takenOver, "the media was stopped on the receiver or by another sender (IDLE, \(reason.rawValue))")
                }
            }
        case .started, .receiverStatus:
            break
        }
        return .carryOn
    }

    private func say(_ text: String, _ object: JSONValue) {
        if json { print(object.serialized()) } else { print("castctl: \(text)") }
        fflush(nil)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
