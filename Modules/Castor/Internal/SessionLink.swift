import CastChannels
import CastDiscoveryCore
import CastJSON
import CastMedia
import CastMultizone
import CastQueue
import CastTLS
import Logging
import Synchronization

/// One session with one device: the connection (replaced on reconnect), the receiver app, and the
/// channels that outlive connections (media, queue, multizone).
///
/// The shell of a ``SessionStateMachine``: the machine decides (when to back off, connect, attach,
/// relaunch, finish, what to publish); this class carries its actions out (the connections, the
/// tasks, the clock) and feeds their outcomes back. All mutable state is one `Mutex`: the machine,
/// the user's plugins and the tasks that carry actions out.
final class SessionLink: Sendable {
    typealias Event = SessionEvent
    typealias Machine = SessionStateMachine<CastConnection>

    /// The device's newest record: replaced when a reconnect finds it again by id at another address.
    var device: CastDevice { read { $0.machine.device } }
    let configuration: CastConfiguration
    let media: CastMediaChannel
    let queue: CastMediaQueue
    let multizone: CastMultizoneChannel
    private let clock: any Clock<Duration>
    /// Elapsed time on ``clock`` since the link was made: the machine's time.
    private let elapsed: @Sendable () -> Duration
    private let connector: any CastDeviceConnector
    /// Looks the device up again by its id (the façade's discovery); `nil` when it is not listed now.
    private let locate: @Sendable (CastDeviceID) -> CastDevice?
    /// Watched while reconnecting: a link or address coming back ends the back-off wait.
    private let networkMonitor: (any CastNetworkMonitor)?
    private let logger: Logger
    private let broadcaster = CastBroadcaster<Event>()

    private struct State {
        var machine: Machine
        /// The user's channel plugins (`Cast.add(_:)`), added to every connection of the session.
        var plugins: [any CastChannelPlugin] = []
        /// Follows the session's connection (its status, its end).
        var follower: Task<Void, Never>?
        /// The back-off wait in progress.
        var timer: Task<Void, Never>?
        /// The reconnect attempt in flight: connecting, launching or attaching (or the channels draining).
        var attempt: Task<Void, Never>?
        /// Watches the network while reconnecting.
        var watcher: Task<Void, Never>?
    }
    private let state: Mutex<State>

    /// - Parameter locate: finds the device's current record by id before each reconnect attempt,
    ///   so a device that came back at a new address or port (a new DHCP lease, a restart on
    ///   another port) is reached there; when it returns `nil` the last known record is used.
    /// - Parameter networkMonitor: watched while reconnecting (``networkReturned(_:)``).
    init(device: CastDevice, configuration: CastConfiguration, clock: any Clock<Duration>,
         connector: any CastDeviceConnector, locate: @escaping @Sendable (CastDeviceID) -> CastDevice? = { _ in nil },
         networkMonitor: (any CastNetworkMonitor)? = nil, logger: Logger, plugins: [any CastChannelPlugin] = []) {
        let machine = Machine(device: device, discovered: locate(device.id), policy: configuration.reconnectPolicy,
                              seed: UInt64.random(in: .min ... .max))
        state = Mutex(State(machine: machine, plugins: plugins))
        self.locate = locate
        self.networkMonitor = networkMonitor
        self.configuration = configuration
        self.clock = clock
        elapsed = Self.stopwatch(on: clock)
        self.connector = connector
        self.logger = logger
        media = CastMediaChannel(clock: clock, timeout: configuration.requestTimeout)
        queue = CastMediaQueue(media: media)
        multizone = CastMultizoneChannel(timeout: configuration.requestTimeout)
    }

    var events: AsyncStream<Event> { broadcaster.subscribe() }

    /// Adds a user's plugin to the current connection and to every later one (reconnects).
    func add(_ plugin: any CastChannelPlugin) async throws(CastChannelError) {
        let connection = state.withLock { state -> CastConnection? in
            guard !state.plugins.contains(where: { $0 === plugin }) else { return nil }
            state.plugins.append(plugin)
            return state.machine.connection
        }
        // A connection that is gone (reconnecting) gets nothing: the next one adds every plugin.
        guard let connection, connection.isRunning else { return }
        do {
            try await connection.add(plugin)
        } catch {
            // The connection ended since (a connection refuses plugins then): as above, the next one adds it.
            if error.code != .invalidNamespace, !connection.isRunning { return }
            state.withLock { $0.plugins.removeAll { $0 === plugin } }
            throw error
        }
    }

    /// Removes a user's plugin from the current connection and from later ones.
    func remove(_ plugin: any CastChannelPlugin) {
        let connection = state.withLock { state -> CastConnection? in
            state.plugins.removeAll { $0 === plugin }
            return state.machine.connection
        }
        connection?.remove(plugin)
    }
    var app: ReceiverStatus.Application? { read { $0.machine.app } }
    var receiverStatus: ReceiverStatus? { read { $0.machine.receiverStatus } }
    var connection: CastConnection? { read { $0.machine.connection } }

    /// Connects, then joins the session `sessionId` if the receiver still runs it, else joins the
    /// configured app if it runs, else launches it.
    ///
    /// With `waitingForMediaApp`, nothing is launched: the configured app, or else any app with the
    /// media namespace, is joined once the receiver runs one (started by any sender); the wait ends
    /// when the connection drops (`.connectionLost`) or the task is cancelled (`.cancelled`).
    /// - Returns: whether an existing session was joined.
    func open(resumingSessionId sessionId: String?, waitingForMediaApp: Bool = false) async throws(CastError) -> Bool {
        let connection = try await connect()
        var status = connection.receiverStatus
        if waitingForMediaApp {
            let events = connection.events
            var iterator = events.makeAsyncIterator()
            while Self.mediaApp(in: status, preferring: configuration.receiverAppID) == nil {
                guard let event = await iterator.next() else {
                    await connection.close()
                    if Task.isCancelled { throw CastError(code: .cancelled, message: "Stopped waiting for a media session") }
                    throw CastError(code: .connectionLost, message: "The connection to \(device.friendlyName) dropped while waiting for a media session")
                }
                switch event {
                case .receiverStatus(let update): status = update
                case .closed:
                    await connection.close()
                    throw CastError(code: .connectionLost, message: "The connection to \(device.friendlyName) dropped while waiting for a media session")
                default: break
                }
            }
        }
        let running = status?.applications.first { app in
            if let sessionId { return app.sessionId == sessionId }
            return app.appId == configuration.receiverAppID
        } ?? (waitingForMediaApp ? Self.mediaApp(in: status, preferring: configuration.receiverAppID) : nil)
        let app: ReceiverStatus.Application
        let joined: Bool
        if let running {
            app = running
            joined = true
        } else if sessionId != nil && status?.applications.contains(where: { $0.appId == configuration.receiverAppID }) != true {
            await connection.close()
            throw CastError(code: .sessionEnded, message: "The receiver no longer runs session \(sessionId ?? "")")
        } else {
            do {
                app = try await connection.receiver.launch(
                    appId: configuration.receiverAppID, supportedAppTypes: configuration.supportedAppTypes)
            } catch {
                await connection.close()
                throw CastError(error, doing: "Launching \(configuration.receiverAppID)")
            }
            joined = false
        }
        do throws(CastError) {
            try await attach(app, on: connection)
        } catch {
            await connection.close()
            throw error
        }
        return joined
    }

    /// The app a media session can be joined in: `appId` if it runs, else the first app (not the idle
    /// screen) that speaks the media namespace.
    static func mediaApp(in status: ReceiverStatus?, preferring appId: String) -> ReceiverStatus.Application? {
        let apps = status?.applications ?? []
        return apps.first { $0.appId == appId }
            ?? apps.first { !$0.isIdleScreen && $0.namespaces.contains("urn:x-cast:com.google.cast.media") }
    }

    /// Ends the session: stops the app when asked, then closes the connection.
    func close(stopApp: Bool) async {
        await handle(.close(stopApp: stopApp))
    }

    /// Discovery's list changed; `record` is the device's entry in it now (`nil`: not listed). A
    /// device that restarts announces itself again over mDNS (it went away, or its address or port
    /// changed), so a back-off wait in progress ends and the next attempt starts at once instead of
    /// sleeping past the moment the device is back.
    func discoveryListed(_ record: CastDevice?) {
        signal(.deviceListed(record))
    }

    /// The network came back (`change`: a link up, an address added), reported by the network monitor
    /// while the session reconnects: like a fresh announcement, it ends a back-off wait and replaces an
    /// attempt in flight (sent while the link was down, its SYN was lost and would be retried only after
    /// seconds). An input of the reconnect logic, as discovery's is.
    func networkReturned(_ change: CastNetworkChange) {
        signal(.networkChanged(change))
    }

    // MARK: Internals

    private func connect() async throws(CastError) -> CastConnection {
        let device = self.device
        let transport: any CastTransport
        do {
            transport = try await connector.connect(to: device)
        } catch let error as CastError {
            throw error
        } catch {
            throw CastError(code: .deviceUnreachable, message: "Cannot connect to \(device.friendlyName): \(error)",
                            cause: error as? CastTransportError)
        }
        let connection = CastConnection(
            transport: transport, configuration: configuration.connectionConfiguration, clock: clock, logger: logger)
        do {
            try await connection.start()
        } catch {
            throw CastError(code: .deviceUnreachable, message: "Cannot start a connection to \(device.friendlyName): \(error.message)",
                            cause: error)
        }
        return connection
    }

    /// Adds the channels to `connection`, waits for the media channel, has the machine adopt the
    /// connection, fetches the status, starts following the connection, and tells the machine the
    /// session is up on it.
    private func attach(_ app: ReceiverStatus.Application, on connection: CastConnection) async throws(CastError) {
        let userPlugins = read { $0.plugins }
        do {
            try await connection.add(media)
            try await connection.add(multizone)
            for plugin in userPlugins { try await connection.add(plugin) }
        } catch {
            throw CastError(error, doing: "Adding channels")
        }
        // Adding the channel connects it at once when the app speaks its namespace; the channel
        // learns it through its mailbox task, so await that (bounded by the request timeout).
        guard connection.context(for: media) != nil else {
            throw CastError(code: .connectionLost, message: "The media channel did not connect to \(app.appId)")
        }
        do {
            _ = try await connection.waitUntilConnected(media, timeout: configuration.requestTimeout)
        } catch {
            throw CastError(code: .connectionLost, message: "The media channel did not connect to \(app.appId): \(error.message)")
        }
        // Plugins added while this connection was being made: from here on `add(_:)` sees this connection.
        let latePlugins = state.withLock { state -> [any CastChannelPlugin]? in
            guard state.machine.adopt(connection, app: app, status: connection.receiverStatus) else { return nil }
            return state.plugins.filter { plugin in !userPlugins.contains { $0 === plugin } }
        }
        // The session was ended while this connection was being made (a reconnect racing endSession).
        guard let latePlugins else { throw CastError(code: .sessionEnded, message: "The session ended while connecting") }
        for plugin in latePlugins { try? await connection.add(plugin) }
        do {
            _ = try await media.getStatus()
        } catch {
            logger.debug("GET_STATUS after attaching failed: \(error)")
        }
        if media.status != nil {
            do { try await queue.reload() } catch { logger.debug("Reloading the queue after attaching failed: \(error)") }
        }
        follow(connection)
        await handle(.settled)
    }

    /// Feeds the connection's events to the machine until it ends.
    private func follow(_ connection: CastConnection) {
        let events = connection.events
        let task = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .receiverStatus(let status):
                    await self.handle(.statusSeen(status))
                case .appClosed(let transportId):
                    await self.handle(.appClosed(transportId: transportId))
                case .closed(let error):
                    await self.handle(.connectionClosed(error.map { CastError($0, doing: "The connection to \(self.device.friendlyName)") }))
                    return
                default:
                    // Other events (device authentication...) do not affect the session.
                    break
                }
            }
        }
        store(\.follower, task)
    }

    // MARK: The shell

    /// Reads the state under the lock.
    private func read<Value: Sendable>(_ body: (State) -> Value) -> Value {
        state.withLock { body($0) }
    }

    /// Feeds `event` to the machine at the clock's elapsed time: the actions to carry out.
    private func receive(_ event: Machine.Event) -> [Machine.Action] {
        let now = elapsed()
        return state.withLock { $0.machine.receive(event, at: now) }
    }

    /// Feeds `event` to the machine and carries its actions out, in order.
    private func handle(_ event: Machine.Event) async {
        for action in receive(event) { await perform(action) }
    }

    /// Feeds `event` to the machine from a synchronous caller: its actions are carried out now when
    /// none of them waits (those of a retry signal never do), else on a task, in order.
    private func signal(_ event: Machine.Event) {
        let actions = receive(event)
        if actions.allSatisfy({ !Self.waits($0) }) {
            for action in actions { start(action) }
        } else {
            Task { for action in actions { await self.perform(action) } }
        }
    }

    /// Whether carrying `action` out waits for the device.
    private static func waits(_ action: Machine.Action) -> Bool {
        switch action {
        case .stopApp, .closeConnection, .finish: true
        default: false
        }
    }

    /// Carries one action out; those that wait for the device are awaited, the others start a task
    /// or act at once (``start(_:)``).
    private func perform(_ action: Machine.Action) async {
        switch action {
        case .stopApp(let connection, let app):
            if connection.isRunning { _ = try? await connection.receiver.stop(sessionId: app.sessionId) }
        case .closeConnection(let connection):
            await connection.close()
        case .finish(let end):
            if let error = end.error { broadcaster.yield(.ended(error)) }
            broadcaster.finish()
        default:
            start(action)
        }
    }

    /// Carries out an action that does not wait: publishing, logging, starting or cancelling a task.
    private func start(_ action: Machine.Action) {
        switch action {
        case .publish(let event):
            broadcaster.yield(event)
        case .log(let line):
            logger.info("\(line)")
        case .drainChannels:
            // The channels outlive connections: let the old connection's disconnect reach them first,
            // so it cannot arrive after the new connection's connect.
            let old = connection
            store(\.attempt, Task { [self] in
                if let old, !(await old.waitUntilPluginsDisconnected(timeout: configuration.requestTimeout)) {
                    logger.warning("The channels were not told of the lost connection within \(configuration.requestTimeout)")
                }
                await handle(.channelsDrained)
            })
        case .watchNetwork:
            guard let networkMonitor else { return }
            let changes = networkMonitor.changes()
            store(\.watcher, Task { [weak self] in
                for await change in changes { self?.networkReturned(change) }
            })
        case .stopWatchingNetwork:
            store(\.watcher, nil)
        case .backOff(let serial, let delay):
            store(\.timer, Task { [weak self, clock] in
                do { try await clock.sleep(for: delay) } catch { return }
                await self?.handle(.backOffElapsed(serial: serial))
            })
        case .cancelBackOff:
            store(\.timer, nil)
        case .connect(let serial):
            if let fresh = locate(device.id) { signal(.relocated(fresh)) }
            store(\.attempt, Task { [self] in
                do throws(CastError) {
                    let connection = try await connect()
                    await handle(.connected(serial: serial, connection, connection.receiverStatus))
                } catch {
                    let refused = (error.cause as? CastTransportError)?.isConnectionRefused == true
                    await handle(refused ? .attemptRefused(serial: serial, error) : .attemptFailed(serial: serial, error))
                }
            })
        case .cancelAttempt:
            store(\.attempt, nil)
        case .launch(let serial, let connection):
            store(\.attempt, Task { [self] in
                do {
                    let app = try await connection.receiver.launch(
                        appId: configuration.receiverAppID, supportedAppTypes: configuration.supportedAppTypes)
                    await handle(.launched(serial: serial, connection, app))
                } catch let error as CastError {
                    await handle(.attachFailed(serial: serial, connection, error))
                } catch let error as CastChannelError {
                    await handle(.attachFailed(serial: serial, connection, CastError(error, doing: "Launching \(configuration.receiverAppID) again")))
                } catch {
                    await handle(.attachFailed(serial: serial, connection, CastError(
                        code: .launchFailed, message: "Launching \(configuration.receiverAppID) again: \(error)")))
                }
            })
        case .attach(let serial, let connection, let app):
            store(\.attempt, Task { [self] in
                do throws(CastError) {
                    try await attach(app, on: connection)
                } catch {
                    await handle(.attachFailed(serial: serial, connection, error))
                }
            })
        case .stopFollowing:
            store(\.follower, nil)
        case .stopApp, .closeConnection, .finish:
            Task { await perform(action) }
        }
    }

    /// Puts `task` in the slot at `keyPath`, cancelling the one it replaces.
    private func store(_ keyPath: any WritableKeyPath<State, Task<Void, Never>?> & Sendable, _ task: Task<Void, Never>?) {
        let replaced = state.withLock { state in
            defer { state[keyPath: keyPath] = task }
            return state[keyPath: keyPath]
        }
        replaced?.cancel()
    }

    /// Elapsed time on `clock` from now, each time the result is called.
    private static func stopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
