import ArgumentParser
import CastDiscoveryCore
import CastKnownHosts
import CastMPRIS
import CastCore
import Castor
import Foundation
import Synchronization

/// `castctl mpris`: the device's media session in the desktop's media controls (MPRIS 2 on D-Bus).
struct Mpris: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publish the device's media session as an MPRIS 2 player on the D-Bus session bus.",
        discussion: """
            Stays connected to the device. While a media session runs on it (started by any sender), \
            org.mpris.MediaPlayer2.castor.<id> is on the session bus, so desktop media controls, media keys, \
            playerctl and status bars show and drive it; when the session ends the name goes away until the \
            next one. Prints one line when the player appears or goes. Stops on SIGINT or SIGTERM, leaving \
            what plays playing.
            """)

    @Option(help: "The device's address.") var host: String?
    @Option(help: "The device's Cast port.") var port = 8009
    @Option(help: "The device: an alias, its friendly name or UUID (found through mDNS), or HOST:PORT; by default $CASTCTL_DEVICE or the configured default.")
    var device: String?
    @Option(help: "The name desktops show (Identity); the device name by default.") var name: String?
    @Option(help: "The last element of the bus name (default: d + 8 hex digits of the device id).") var instance: String?
    @Option(help: "Publish on the D-Bus bus at this address instead of the session bus.") var busAddress: String?
    @Flag(help: "Show what plays without letting the desktop control it (CanControl false).") var readOnly = false
    @Option(help: "Seconds a connect or request may take (TLS, device authentication, each command).") var timeout: Double = 10
    @Flag(help: "Refuse a device that device authentication does not prove genuine.") var requireGenuine = false
    @Option(help: "A PEM file of extra trusted Cast roots (for test devices: the file cast-receiver --export-trust-root writes).")
    var trustRoot: String?
    @OptionGroup var reconnect: ReconnectOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard host == nil || device == nil else { throw ValidationError("Give at most one of --host and --device") }
    }

    /// The device options as `DeviceOptions` parses them (the same flags as every device command).
    func deviceArguments() throws -> [String] {
        DeviceOptions.arguments(host: host, port: port, device: device, timeout: timeout, requireGenuine: requireGenuine,
                                trustRoot: trustRoot, logLevel: try logging.level().rawValue)
    }

    func run() async throws {
        try await Output.run {
            let options = try DeviceOptions.parse(try deviceArguments())
            // Connects through --host, or --device found over mDNS: the façade looks that device up
            // again by its id before every reconnect attempt (a new address is found there).
            let (cast, found) = try await options.façade(reconnect: reconnect)
            // The device as chosen: an address (--host, HOST:PORT, an alias of one) or a name or id found over mDNS.
            let (host, port, device): (String?, Int, String?)
            switch try options.choice().reference {
            case .address(let known): (host, port, device) = (known.host, known.port, nil)
            case let other: (host, port, device) = (nil, self.port, other.description)
            }
            let mpris = CastMPRISPlayer(cast: cast, configuration: CastMPRISConfiguration(
                bus: busAddress.map(CastMPRISConfiguration.Bus.address) ?? .session, instanceName: instance,
                identity: name, allowsControl: !readOnly))
            // --device: the device as discovery found it (its Cast id and addresses; the id also names
            // the bus name); --host: a record derived from host:port, stable from run to run.
            var chosen = device == nil ? Self.target(host: host, port: port, device: device, name: name) : found
            if let name {
                chosen.friendlyName = name
            } else if let host, let own = await Self.friendlyName(
                host: host, port: port, timeout: .milliseconds(Int64(options.timeout * 1000))) {
                chosen.friendlyName = own  // Identity: the device's name, as discovery would have found it
            }
            let target = chosen
            let failure = FailureBox()
            // Which parts still run, to name the one that hangs while stopping.
            let running = Stage("the player, the announcer, the follower")
            let parts = Mutex<Set<String>>(["the player", "the announcer", "the follower"])
            let finished: @Sendable (String) -> Void = { part in
                running.set(parts.withLock { $0.remove(part); return $0.sorted().joined(separator: ", ") })
            }
            let (outcomes, outcome) = AsyncStream<Bool>.makeStream()
            let work = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do { try await mpris.run() } catch { failure.set(error) }
                        finished("the player")
                    }
                    group.addTask { await Self.announce(mpris); finished("the announcer") }
                    group.addTask { await Self.follow(cast, device: target); finished("the follower") }
                    _ = await group.next()  // the player stopped (the bus went away), or cancellation
                    group.cancelAll()
                }
                outcome.yield(true)
            }
            // SIGINT/SIGTERM, or the player stopping by itself; not waiting for `work` on a signal.
            signal(SIGINT, SIG_IGN)
            signal(SIGTERM, SIG_IGN)
            let sources = [SIGINT, SIGTERM].map { number in
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { outcome.yield(false) }
                source.resume()
                return source
            }
            for await _ in outcomes { break }
            work.cancel()
            // Stopping is bounded: a part that hangs is named, and castctl exits anyway.
            let stopped = await Self.within(.seconds(10)) {
                _ = await work.value
                running.set("ending the session")
                await cast.endSession(stoppingReceiverApp: false)
            }
            for source in sources { source.cancel() }
            guard stopped else {
                FileHandle.standardError.write(Data("castctl: stopping hung (still running: \(running.value)); exiting\n".utf8))
                throw ExitCode.failure
            }
            if let error = failure.error { throw error }
        }
    }

    /// The device to follow, with an id derived from `--host:port` or `--device`, so the bus name
    /// stays the same from one run to the next.
    static func target(host: String?, port: Int, device: String?, name: String?) -> CastDevice {
        let key = host.map { "\($0):\(port)" } ?? device ?? ""
        return CastDevice(id: CastDeviceID.derived(from: key), friendlyName: name ?? device ?? key,
                          endpoints: host.map { [KnownHost(host: $0, port: port).endpoint] } ?? [])
    }

    /// The name a device at `host` gives itself: `eureka_info` on port 8008, asked the way
    /// `TLSStatusProber` does, the connect and the status request each within `timeout` (`--timeout`:
    /// a fixed 3 s ran out on a loaded machine, silently). `nil` when the device does not say (then
    /// `Identity` is `host:port`, or what `--name` gives); a probe that fails says why on standard error.
    static func friendlyName(host: String, port: Int, timeout: Duration) async -> String? {
        let prober = TLSStatusProber(connectTimeout: timeout, requestTimeout: timeout)
        do {
            let probed = try await prober.probe(KnownHost(host: host, port: port))
            return probed.friendlyName != host ? probed.friendlyName : nil
        } catch {
            let line = "castctl mpris: the device's own name is unknown (\(error.message)); Identity is \(host):\(port)\n"
            FileHandle.standardError.write(Data(line.utf8))
            return nil
        }
    }

    /// Prints a line each time the player appears or goes.
    static func announce(_ mpris: CastMPRISPlayer) async {
        var last: String?
        for await name in mpris.busNames where name != last {
            last = name
            print(name.map { "published \($0)" } ?? "no media session")
            fflush(nil)  // castctl keeps running: show the line now, also through a pipe
        }
    }

    /// Joins every media session on the device, one after the other, reconnecting with a capped
    /// back-off while the device cannot be reached.
    static func follow(_ cast: Castor.Cast, device: CastDevice) async {
        var delay = Duration.seconds(1)
        while !Task.isCancelled {
            do {
                try await cast.joinSession(with: device)
                delay = .seconds(1)
            } catch {
                if Task.isCancelled { return }
                FileHandle.standardError.write(Data("castctl: \(error); retrying in \(delay)\n".utf8))
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
                continue
            }
            // Wait, connected, until the session ends (the app stops, or the reconnect policy gives
            // up). Subscribed before the check, so an end between the two is still seen.
            let events = cast.events
            guard cast.player != nil else { continue }
            for await event in events {
                if case .ended = event { break }
            }
        }
    }
}

extension Mpris {
    /// Runs `operation`; `false` when it has not finished after `limit` (it is left running).
    static func within(_ limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        let (results, result) = AsyncStream<Bool>.makeStream()
        let work = Task {
            await operation()
            result.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            result.yield(false)
        }
        var finished = false
        for await value in results {
            finished = value
            break
        }
        timer.cancel()
        _ = work
        return finished
    }
}

/// What castctl is doing while it stops, for the message when a step hangs.
private final class Stage: Sendable {
    private let text: Mutex<String>
    init(_ text: String) { self.text = Mutex(text) }
    var value: String { text.withLock { $0 } }
    func set(_ value: String) { text.withLock { $0 = value } }
}

/// The error that stopped the player, set once from a child task.
private final class FailureBox: Sendable {
    private let stored = Mutex<(any Error)?>(nil)
    var error: (any Error)? { stored.withLock { $0 } }
    func set(_ error: any Error) { stored.withLock { $0 = error } }
}
