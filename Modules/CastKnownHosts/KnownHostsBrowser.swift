import CastDiscoveryCore
import Synchronization

/// Probes a list of `host[:port]` periodically and reports the Cast devices that answer.
///
/// For networks where multicast does not cross (VLANs, Docker, Wi-Fi client isolation). Every
/// ``Configuration/interval`` (on the injected clock) each host is probed concurrently; a host
/// that answers is `added`/`updated`, one that stops answering is `removed` after
/// ``Configuration/missesBeforeRemoval`` failed rounds. Each failure is explained:
/// `DiscoveryDiagnostic.Code.hostRefused` (nothing on the port),
/// `DiscoveryDiagnostic.Code.hostUnreachable`, or `DiscoveryDiagnostic.Code.probeFailed`.
public final class KnownHostsBrowser: DeviceBrowser {
    /// What to probe and how often.
    public struct Configuration: Sendable {
        /// The hosts.
        public var hosts: [KnownHost]
        /// The pause between two probing rounds.
        public var interval: Duration
        /// Failed rounds in a row before a device that answered before is removed.
        public var missesBeforeRemoval: Int
        /// The clock the pauses run on.
        public var clock: any Clock<Duration>

        /// Creates a configuration.
        public init(hosts: [KnownHost], interval: Duration = .seconds(30), missesBeforeRemoval: Int = 2,
                    clock: any Clock<Duration> = ContinuousClock()) {
            self.hosts = hosts
            self.interval = interval
            self.missesBeforeRemoval = max(1, missesBeforeRemoval)
            self.clock = clock
        }
    }

    /// The configuration.
    public let configuration: Configuration
    private let prober: any CastDeviceProber
    private let hub = DeviceEventHub()
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let misses = Mutex<[KnownHost: Int]>([:])

    /// Creates a browser probing with `prober` (by default TLS + GET_STATUS, ``TLSStatusProber``).
    public init(configuration: Configuration, prober: any CastDeviceProber = TLSStatusProber()) {
        self.configuration = configuration
        self.prober = prober
    }

    /// Starts probing (the first round runs at once).
    public func start() async {
        task.withLock { current in
            guard current == nil else { return }
            hub.reopen()
            current = Task { [self] in
                while !Task.isCancelled {
                    await probeAll()
                    do { try await configuration.clock.sleep(for: configuration.interval, tolerance: nil) } catch { return }
                }
            }
        }
    }

    /// Runs one probing round now and returns when it is done.
    public func probeAll() async {
        await withTaskGroup(of: Void.self) { group in
            for host in configuration.hosts {
                group.addTask { await self.probe(host) }
            }
        }
    }

    private func probe(_ host: KnownHost) async {
        let key = "known|\(host)"
        do {
            var device = try await prober.probe(host)
            device.sources.insert(.knownHost)
            if device.endpoints.isEmpty { device.endpoints = [host.endpoint] }
            misses.withLock { $0[host] = 0 }
            for code in [DiscoveryDiagnostic.Code.hostRefused, .hostUnreachable, .probeFailed] {
                hub.clear(code, subject: host.description)
            }
            hub.upsert(key, device)
        } catch {
            let count = misses.withLock { state -> Int in
                state[host, default: 0] += 1
                return state[host]!
            }
            if count >= configuration.missesBeforeRemoval { hub.remove(key) }
            hub.report(Self.diagnostic(for: error, host: host))
        }
    }

    static func diagnostic(for error: CastDiscoveryError, host: KnownHost) -> DiscoveryDiagnostic {
        switch error.code {
        case .connectionRefused:
            return DiscoveryDiagnostic(
                code: .hostRefused,
                message: "\(host) refused the connection: nothing listens on port \(host.port) (not a Cast device, turned off, or a wrong port).",
                fix: "check the address and port (a group uses its leader's port, not 8009): nc -vz \(host.host) \(host.port)",
                subject: host.description, source: .knownHost)
        case .socket, .cancelled:
            return DiscoveryDiagnostic(
                code: .hostUnreachable, message: "\(host) did not answer: \(error.message).",
                fix: "ping \(host.host)   (check routing/firewall between this host and the device)",
                subject: host.description, source: .knownHost)
        default:
            return DiscoveryDiagnostic(
                code: .probeFailed, message: "\(host) answered but not as a Cast device: \(error.message).",
                subject: host.description, source: .knownHost)
        }
    }

    /// Stops probing and finishes the event streams.
    public func stop() async {
        let running = task.withLock { current -> Task<Void, Never>? in
            defer { current = nil }
            return current
        }
        running?.cancel()
        await running?.value
        hub.finish(removingDevices: true)
    }

    /// See `DeviceBrowser.events()`.
    public func events() -> AsyncStream<DeviceBrowserEvent> { hub.events() }
    /// See `DeviceBrowser.devices`.
    public var devices: [CastDevice] { hub.devices }
    /// See `DeviceBrowser.diagnostics`.
    public var diagnostics: [DiscoveryDiagnostic] { hub.diagnostics }
    /// `DiscoverySource.knownHost`.
    public var discoverySource: DiscoverySource { .knownHost }
}
