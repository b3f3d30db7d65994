import CastChannels
public import CastDiscoveryCore
import CastMedia
import CastMultizone
public import Logging
import Observation
import Synchronization

/// The entry point: discovers devices, starts and ends sessions, exposes the current device, the
/// connection state and, while a session exists, the ``player``.
///
/// `Cast` is observable (`Observation`) and `Sendable`: its state lives behind a lock and it is
/// not tied to any actor, so a UI can observe it on its main actor and a headless program can
/// drive it from any task with the `async throws` methods.
///
/// ```swift
/// let cast = Cast(configuration: .init(), browser: AvahiDeviceBrowser())
/// cast.delegate = router
/// try await cast.startSession(with: cast.devices[0])
/// try await cast.player?.loadItems(from: [.url(url, configuration: .init(mimeType: "video/mp4"))])
/// await cast.endSession()
/// ```
public final class Cast: Observable, Sendable {
    struct State {
        var configuration: CastConfiguration
        var devices: [CastDevice] = []
        var explicitDevices: [CastDevice]?
        var currentDevice: CastDevice?
        var connectionState: CastConnectionState = .disconnected
        var player: CastPlayer?
        var link: SessionLink?
        var sessionInfo: CastSessionInfo?
        var switchState: CastResumeState?
        weak var delegate: (any CastDelegate)?
        weak var castable: (any Castable)?
        var managers: [String: CastDeviceManager] = [:]
        var tasks: [Task<Void, Never>] = []
        var linkTask: Task<Void, Never>?
        /// Custom channel plugins added with ``Cast/add(_:)``.
        var plugins: [any CastChannelPlugin] = []
    }

    let state: Mutex<State>
    let registrar = ObservationRegistrar()
    let gate = AsyncGate()
    let broadcaster = SessionEventBroadcaster()
    let browser: (any DeviceBrowser)?
    let connector: any CastDeviceConnector
    let networkMonitor: (any CastNetworkMonitor)?
    /// The clock of every timer of the façade (heartbeat, reconnect back-off, position extrapolation).
    public let clock: any Clock<Duration>
    let logger: Logger

    /// Creates the façade.
    /// - Parameters:
    ///   - configuration: receiver app, timers and behaviour.
    ///   - browser: where devices come from (started here; `nil` to set ``devices`` yourself with ``setDevices(_:)``).
    ///   - connector: how a transport to a device is opened (TLS by default).
    ///   - clock: the clock of every timer: heartbeat, reconnect back-off, position extrapolation.
    ///   - networkMonitor: watched while a lost session reconnects: the network coming back (a link up,
    ///     an address added) starts the next attempt at once instead of after the back-off. The kernel's
    ///     routing socket by default (``NetlinkNetworkMonitor``); `nil` for none.
    ///   - logger: where the façade logs.
    public init(
        configuration: CastConfiguration = CastConfiguration(),
        browser: (any DeviceBrowser)? = nil,
        connector: any CastDeviceConnector = TLSDeviceConnector(),
        clock: any Clock<Duration> = ContinuousClock(),
        networkMonitor: (any CastNetworkMonitor)? = NetlinkNetworkMonitor(),
        logger: Logger = Logger(label: "castor.cast")
    ) {
        state = Mutex(State(configuration: configuration))
        self.browser = browser
        self.connector = connector
        self.networkMonitor = networkMonitor
        self.clock = clock
        self.logger = logger
        if let browser {
            let events = browser.events()
            let task = Task { [weak self] in
                await browser.start()
                for await _ in events {
                    guard let self else { return }
                    // Rebuild the whole list on any change (Castor's robust approach).
                    self.updateDevices(browser.devices)
                }
            }
            state.withLock { $0.tasks.append(task) }
        }
    }

    deinit {
        let (tasks, linkTask) = state.withLock { ($0.tasks, $0.linkTask) }
        for task in tasks { task.cancel() }
        linkTask?.cancel()
        broadcaster.finish()
    }

    /// The session's events from now on: connection lost, reconnecting, rejoined, resumed after a
    /// restart, ended (and why), and every receiver and media status. Each access gives an
    /// independent stream, which lasts as long as the `Cast` (across sessions) and keeps at most
    /// the newest 1024 events a reader has not read yet.
    ///
    /// ```swift
    /// for await event in cast.events {
    ///     if case .ended(let error?) = event, error.code == .connectionLost { exit(3) }
    /// }
    /// ```
    public var events: AsyncStream<CastSessionEvent> { broadcaster.subscribe() }

    func changed<Value>(_ keyPath: KeyPath<Cast, Value>) {
        registrar.withMutation(of: self, keyPath: keyPath) {}
    }

    // MARK: Configuration and roles

    /// The configuration; changes apply to the player at once and to connections made later.
    public var configuration: CastConfiguration {
        get {
            registrar.access(self, keyPath: \.configuration)
            return state.withLock { $0.configuration }
        }
        set {
            let player = state.withLock { state in
                state.configuration = newValue
                return state.player
            }
            player?.configuration = newValue
            changed(\.configuration)
        }
    }

    /// The app-level delegate (weak).
    public var delegate: (any CastDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The playback context that hands playback over (weak).
    public var castable: (any Castable)? {
        get { state.withLock { $0.castable } }
        set { state.withLock { $0.castable = newValue } }
    }

    // MARK: Devices

    /// The devices known now, sorted by name.
    public var devices: [CastDevice] {
        registrar.access(self, keyPath: \.devices)
        return state.withLock { $0.devices }
    }

    /// Sets the device list explicitly (known hosts, tests); the browser's list is ignored from then on.
    public func setDevices(_ devices: [CastDevice]) {
        state.withLock { $0.explicitDevices = devices }
        updateDevices(devices, explicit: true)
    }

    func updateDevices(_ devices: [CastDevice], explicit: Bool = false) {
        let (applied, link) = state.withLock { state -> (Bool, SessionLink?) in
            if !explicit, state.explicitDevices != nil { return (false, nil) }
            state.devices = devices.sorted { ($0.friendlyName, $0.id) < ($1.friendlyName, $1.id) }
            return (true, state.link)
        }
        guard applied else { return }
        changed(\.devices)
        // A session reconnecting to a device that discovery lists again tries at once.
        if let link {
            let id = link.device.id
            link.discoveryListed(devices.first { $0.id == id })
        }
    }

    /// The members of the current session's speaker group (empty unless there are more than one).
    public var multizoneDevices: [CastMultizoneDevice] {
        registrar.access(self, keyPath: \.multizoneDevices)
        guard let link = state.withLock({ $0.link }) else { return [] }
        let members = link.multizone.members
        guard members.count > 1 else { return [] }
        return members.map { CastMultizoneDevice(id: $0.id, name: $0.name) }
    }

    /// The device of the current session. Setting a device starts a session with it (switching
    /// from the current one, which carries the queue over); setting `nil` ends the session; a device
    /// not in ``devices`` is ignored.
    public var currentDevice: CastDevice? {
        get {
            registrar.access(self, keyPath: \.currentDevice)
            return state.withLock { $0.currentDevice }
        }
        set {
            if let newValue {
                guard devices.contains(where: { $0.id == newValue.id }) else { return }
                Task { try? await self.startSession(with: newValue) }
            } else {
                Task { await self.endSession() }
            }
        }
    }

    /// The state of the connection to the current device.
    public var connectionState: CastConnectionState {
        registrar.access(self, keyPath: \.connectionState)
        return state.withLock { $0.connectionState }
    }

    /// The player while a session exists, else `nil`.
    public var player: CastPlayer? {
        registrar.access(self, keyPath: \.player)
        return state.withLock { $0.player }
    }

    /// What is needed to rejoin the current session later (see ``resumeSession(_:on:)``).
    public var sessionInfo: CastSessionInfo? {
        registrar.access(self, keyPath: \.sessionInfo)
        return state.withLock { $0.sessionInfo }
    }

    /// Whether a session with `device` exists.
    public func isCasting(on device: CastDevice) -> Bool {
        state.withLock { $0.currentDevice?.id == device.id && $0.player != nil }
    }

    /// Volume and mute for the device (`nil`) or one member of its speaker group. Managers are
    /// kept per session; `nil` when there is no session.
    public func deviceManager(forMultizoneDevice member: CastMultizoneDevice? = nil) -> CastDeviceManager? {
        state.withLock { state in
            guard let link = state.link else { return nil }
            let key = member?.id ?? ""
            if let manager = state.managers[key] { return manager }
            let manager = CastDeviceManager(link: link, multizoneDevice: member)
            state.managers[key] = manager
            return manager
        }
    }

    func setConnectionState(_ connectionState: CastConnectionState) {
        state.withLock { $0.connectionState = connectionState }
        changed(\.connectionState)
    }
}
