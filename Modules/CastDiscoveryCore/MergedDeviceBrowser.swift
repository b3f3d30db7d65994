import Synchronization

/// Runs several browsers as one and deduplicates their devices by id.
///
/// A device found over mDNS and probed as a known host is one ``CastDevice`` whose
/// ``CastDevice/sources`` lists both and whose endpoints are the union; its descriptive fields
/// come from the most trusted source (mDNS, then known hosts, then DIAL). It is removed only
/// when every source lost it.
public final class MergedDeviceBrowser: DeviceBrowser {
    /// The browsers merged.
    public let browsers: [any DeviceBrowser]
    private let hub = DeviceEventHub()
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Merges `browsers`.
    public init(_ browsers: [any DeviceBrowser]) {
        self.browsers = browsers
    }

    /// Starts every browser.
    public func start() async {
        let alreadyRunning = tasks.withLock { !$0.isEmpty }
        guard !alreadyRunning else { return }
        hub.reopen()
        var started: [Task<Void, Never>] = []
        for (index, browser) in browsers.enumerated() {
            let stream = browser.events()
            let hub = self.hub
            started.append(Task {
                for await event in stream {
                    switch event {
                    case .added(let device), .updated(let device): hub.upsert("\(index)|\(device.id)", device)
                    case .removed(let device): hub.remove("\(index)|\(device.id)")
                    case .diagnostic(let diagnostic): hub.report(diagnostic)
                    }
                }
                hub.removeAll(prefix: "\(index)|")
            })
        }
        tasks.withLock { $0 = started }
        for browser in browsers { await browser.start() }
    }

    /// Stops every browser and finishes the event streams.
    public func stop() async {
        for browser in browsers { await browser.stop() }
        let running = tasks.withLock { current -> [Task<Void, Never>] in
            defer { current = [] }
            return current
        }
        for task in running { await task.value }
        hub.finish(removingDevices: true)
    }

    /// See ``DeviceBrowser/events()``.
    public func events() -> AsyncStream<DeviceBrowserEvent> { hub.events() }
    /// The merged devices.
    public var devices: [CastDevice] { hub.devices }
    /// The problems every browser reports now.
    public var diagnostics: [DiscoveryDiagnostic] { browsers.flatMap(\.diagnostics) }
}
