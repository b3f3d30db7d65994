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
final class SessionLink: Sendable {
    enum Event: Sendable {
        case state(CastConnectionState)
        case receiverStatus(ReceiverStatus)
        /// The session is over: the app stopped, another sender took over, or reconnecting gave up. Carries the reason.
        case ended(CastError)
        /// The connection dropped; reconnecting starts.
        case lost(CastError)
        /// Attempt `attempt` starts after `delay`.
        case reconnecting(attempt: Int, delay: Duration)
        /// The app still ran and was joined again.
        case rejoined(attempt: Int)
        /// The receiver ran no app any more (it restarted): the app was launched again, with no media.
        case relaunched(attempt: Int)
    }

    /// The device's newest record: replaced when a reconnect finds it again by id at another address.
    var device: CastDevice { state.withLock { $0.device } }
    let configuration: CastConfiguration
    let media: CastMediaChannel
    let queue: CastMediaQueue
    let multizone: CastMultizoneChannel
    private let clock: any Clock<Duration>
    private let connector: any CastDeviceConnector
    /// Looks the device up again by its id (the façade's discovery); `nil` when it is not listed now.
    private let locate: @Sendable (CastDeviceID) -> CastDevice?
    /// Watched while reconnecting: a link or address coming back ends the back-off wait.
    private let networkMonitor: (any CastNetworkMonitor)?
    private let logger: Logger
    private let broadcaster = CastBroadcaster<Event>()

    private struct State {
        var device: CastDevice
        var connection: CastConnection?
        var app: ReceiverStatus.Application?
        var receiverStatus: ReceiverStatus?
        var closing = false
        var ended = false
        var monitor: Task<Void, Never>?
        /// The user's channel plugins (`Cast.add(_:)`), added to every connection of the session.
        var plugins: [any CastChannelPlugin] = []
        /// The device's record as discovery last listed it (`nil`: not listed).
        var discovered: CastDevice?
        /// How many reasons to try again at once came so far: discovery listing the device anew
        /// (``discoveryListed(_:)``), the network coming back (``networkReturned(_:)``). A back-off
        /// wait, or an attempt in flight, ends when it changes.
        var discoveryChanges = 0
        /// The latest such reason, for the log.
        var lastSignal = RetrySignal.announced
        /// A back-off wait in progress, ended by a discovery change, the network coming back, or cancellation.
        var announcementWaiter: CheckedContinuation<Void, Never>?
    }
    private let state: Mutex<State>

    /// - Parameter locate: finds the device's current record by id before each reconnect attempt,
    ///   so a device that came back at a new address or port (a new DHCP lease, a restart on
    ///   another port) is reached there; when it returns `nil` the last known record is used.
    /// - Parameter networkMonitor: watched while reconnecting (``networkReturned(_:)``).
    init(device: CastDevice, configuration: CastConfiguration, clock: any Clock<Duration>,
         connector: any CastDeviceConnector, locate: @escaping @Sendable (CastDeviceID) -> CastDevice? = { _ in nil },
         networkMonitor: (any CastNetworkMonitor)? = nil, logger: Logger, plugins: [any CastChannelPlugin] = []) {
        var initial = State(device: device)
        initial.plugins = plugins
        initial.discovered = locate(device.id)
        state = Mutex(initial)
        self.locate = locate
        self.networkMonitor = networkMonitor
        self.configuration = configuration
        self.clock = clock
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
            return state.connection
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
            return state.connection
        }
        connection?.remove(plugin)
    }
    var app: ReceiverStatus.Application? { state.withLock { $0.app } }
    var receiverStatus: ReceiverStatus? { state.withLock { $0.receiverStatus } }
    var connection: CastConnection? { state.withLock { $0.connection } }

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
        let (connection, app, monitor) = state.withLock { state in
            state.closing = true
            return (state.connection, state.app, state.monitor)
        }
        monitor?.cancel()
        if stopApp, let connection, let app, connection.isRunning {
            _ = try? await connection.receiver.stop(sessionId: app.sessionId)
        }
        await connection?.close()
        finish(nil)
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

    /// Adds the channels to `connection`, waits for the media channel, fetches the status, and
    /// starts following the connection.
    private func attach(_ app: ReceiverStatus.Application, on connection: CastConnection) async throws(CastError) {
        let userPlugins = state.withLock { $0.plugins }
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
        let (closing, latePlugins) = state.withLock { state -> (Bool, [any CastChannelPlugin]) in
            guard !state.closing, !state.ended else { return (true, []) }
            state.connection = connection
            state.app = app
            state.receiverStatus = connection.receiverStatus
            return (false, state.plugins.filter { plugin in !userPlugins.contains { $0 === plugin } })
        }
        for plugin in latePlugins { try? await connection.add(plugin) }
        // The session was ended while this connection was being made (a reconnect racing endSession).
        if closing {
            await connection.close()
            throw CastError(code: .sessionEnded, message: "The session ended while connecting")
        }
        do {
            _ = try await media.getStatus()
        } catch {
            logger.debug("GET_STATUS after attaching failed: \(error)")
        }
        if media.status != nil {
            do { try await queue.reload() } catch { logger.debug("Reloading the queue after attaching failed: \(error)") }
        }
        follow(connection)
        broadcaster.yield(.state(.connected))
    }

    private func follow(_ connection: CastConnection) {
        let events = connection.events
        let task = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .receiverStatus(let status):
                    self.state.withLock { $0.receiverStatus = status }
                    self.broadcaster.yield(.receiverStatus(status))
                    if let app = self.app, !status.applications.contains(where: { $0.sessionId == app.sessionId }) {
                        self.finish(Self.endReason(app: app, status: status))
                        await connection.close()
                        return
                    }
                case .appClosed(let transportId):
                    if transportId == self.app?.transportId {
                        self.finish(CastError(code: .sessionEnded, message: "The receiver closed the app's connection"))
                        await connection.close()
                        return
                    }
                case .closed(let error):
                    guard let error, !self.state.withLock({ $0.closing || $0.ended }) else { return }
                    self.logger.info("Connection to \(self.device.friendlyName) lost: \(error)")
                    self.broadcaster.yield(.lost(CastError(error, doing: "The connection to \(self.device.friendlyName)")))
                    await self.reconnect()
                    return
                default:
                    // Other events (device authentication...) do not affect the session.
                    break
                }
            }
        }
        state.withLock { state in
            state.monitor?.cancel()
            state.monitor = task
        }
    }

    /// What is left of `timeout` on `clock`, counted from now, each time the result is called.
    static func countdown<C: Clock<Duration>>(on clock: C, from timeout: Duration) -> () -> Duration {
        let start = clock.now
        return { timeout - start.duration(to: clock.now) }
    }

    /// Why the session ended when the receiver no longer runs `app`: another sender's app or
    /// session runs instead (taken over), or nothing does (stopped).
    static func endReason(app: ReceiverStatus.Application, status: ReceiverStatus) -> CastError {
        if let other = status.applications.first(where: { !$0.isIdleScreen && $0.sessionId != app.sessionId }) {
            return CastError(code: .sessionTakenOver,
                             message: "Another sender took the device over: it runs \(other.displayName) (\(other.appId)), session \(other.sessionId)")
        }
        return CastError(code: .sessionEnded, message: "The receiver stopped \(app.appId)")
    }

    /// Reconnects under the policy: rejoins the app if it still runs, launches it again if the
    /// receiver runs no app (it restarted), and gives up if another sender's app or session runs.
    private func reconnect() async {
        let policy = configuration.reconnectPolicy
        guard let lostApp = app else { return finish(CastError(code: .connectionLost, message: "Connection lost")) }
        let sessionId = lostApp.sessionId
        var lastError = CastError(code: .connectionLost, message: "The connection to \(device.friendlyName) was lost")
        // The channels outlive connections: let the old connection's disconnect reach them first,
        // so it cannot arrive after the new connection's connect.
        if let old = connection, !(await old.waitUntilPluginsDisconnected(timeout: configuration.requestTimeout)) {
            logger.warning("The channels were not told of the lost connection within \(configuration.requestTimeout)")
        }
        let timeLeft = policy.timeout.map { Self.countdown(on: clock, from: $0) }
        // While this loop runs, the network coming back (a link up, an address added) is a reason to
        // try at once, as a fresh mDNS announcement is. The watch starts before any wait is announced.
        let watcher = networkMonitor.map { monitor in
            let changes = monitor.changes()
            return Task { [weak self] in
                for await change in changes { self?.networkReturned(change) }
            }
        }
        defer { watcher?.cancel() }
        var attempt = 0
        var announcedRetries = 0
        var retryNow = false
        var lastRefused = false
        // Attempts left that follow the last within a second: the network just came back, and a network
        // comes up in stages (a carrier, an address, a route, the device's address resolved).
        var settleRetries = 0
        var launchedSessionId: String?
        while attempt < policy.maxAttempts {
            attempt += 1
            if state.withLock({ $0.closing }) || Task.isCancelled { return }
            var delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1))
            if let timeLeft {
                let left = timeLeft()
                guard left > .zero else {
                    attempt -= 1
                    break
                }
                delay = min(delay, left)
            }
            if retryNow { delay = .zero }
            // The device refused the last attempt: its host is up and the receiver is restarting.
            if lastRefused { delay = min(delay, Self.restartRetryDelay) }
            if settleRetries > 0 {
                settleRetries -= 1
                delay = min(delay, Self.restartRetryDelay)
            }
            // Counted before anyone hears of the wait, so an announcement right after it is not missed.
            let discoveryChanges = state.withLock { $0.discoveryChanges }
            broadcaster.yield(.state(.reconnecting(attempt: attempt)))
            broadcaster.yield(.reconnecting(attempt: attempt, delay: delay))
            if !retryNow {
                switch await backOff(for: delay, endingEarlyAfter: discoveryChanges) {
                case .cancelled: return
                case .elapsed: break
                case .announced:
                    switch state.withLock({ $0.lastSignal }) {
                    case .announced: logger.info("Discovery announced \(device.friendlyName) again: attempt \(attempt) starts now")
                    case .networkReturned(let change):
                        logger.info("The network came back (\(change)): attempt \(attempt) to \(device.friendlyName) starts now")
                        settleRetries = Self.networkSettleRetries
                    }
                }
            }
            retryNow = false
            if state.withLock({ $0.closing }) { return }
            relocate()
            let connection: CastConnection
            switch await connectUnlessAnnounced(after: state.withLock { $0.discoveryChanges }) {
            case .connected(let made): connection = made
            case .failed(let error):
                lastError = error
                lastRefused = (error.cause as? CastTransportError)?.isConnectionRefused == true
                continue
            case .announced:
                // The attempt went to the record discovery has just replaced (a device back at a new
                // address: a connect there waits out its whole timeout), or was sent while the network
                // was down (its SYN is lost and retried seconds later). Try again now.
                let signal = state.withLock { $0.lastSignal }
                if case .networkReturned = signal { settleRetries = Self.networkSettleRetries }
                logger.info("\(signal.sentence(device.friendlyName)) during attempt \(attempt): trying again at once")
                lastError = CastError(code: .connectionLost, message: "\(signal.sentence(device.friendlyName)) during an attempt")
                announcedRetries += 1
                // The abandoned attempt does not count, a few times over (the timeout still bounds the loop).
                if announcedRetries <= Self.announcedRetriesMax { attempt -= 1 }
                retryNow = true
                continue
            case .cancelled:
                return
            }
            let status = connection.receiverStatus
            if let app = status?.applications.first(where: { $0.sessionId == sessionId }) {
                do {
                    try await attach(app, on: connection)
                    logger.info("Rejoined session \(sessionId) on \(device.friendlyName) (attempt \(attempt))")
                    broadcaster.yield(.rejoined(attempt: attempt))
                    return
                } catch {
                    await connection.close()
                    lastError = error
                    continue
                }
            }
            // An app this loop launched on an earlier attempt (which then failed to attach) is ours.
            if let launchedSessionId, let app = status?.applications.first(where: { $0.sessionId == launchedSessionId }) {
                do {
                    try await attach(app, on: connection)
                    broadcaster.yield(.relaunched(attempt: attempt))
                    return
                } catch {
                    await connection.close()
                    lastError = error
                    continue
                }
            }
            if let status, status.applications.contains(where: { !$0.isIdleScreen }) {
                await connection.close()
                finish(Self.endReason(app: lostApp, status: status))
                return
            }
            // The receiver runs no app: it restarted. Launch the app again; the façade reloads.
            do {
                let app = try await connection.receiver.launch(
                    appId: configuration.receiverAppID, supportedAppTypes: configuration.supportedAppTypes)
                launchedSessionId = app.sessionId
                try await attach(app, on: connection)
                logger.info("Relaunched \(app.appId) on \(device.friendlyName) after it restarted (attempt \(attempt))")
                broadcaster.yield(.relaunched(attempt: attempt))
                return
            } catch let error as CastError {
                await connection.close()
                lastError = error
            } catch let error as CastChannelError {
                await connection.close()
                lastError = CastError(error, doing: "Launching \(configuration.receiverAppID) again")
            } catch {
                await connection.close()
                lastError = CastError(code: .launchFailed, message: "Launching \(configuration.receiverAppID) again: \(error)")
            }
        }
        finish(CastError(code: .connectionLost, message: "Reconnecting to \(device.friendlyName) gave up after \(attempt) attempts"
                         + (policy.timeout.map { " in \($0)" } ?? "") + ": \(lastError.message)", cause: lastError))
    }

    /// Discovery's list changed; `record` is the device's entry in it now (`nil`: not listed). A
    /// device that restarts announces itself again over mDNS (it went away, or its address or port
    /// changed), so a back-off wait in progress ends and the next attempt starts at once instead of
    /// sleeping past the moment the device is back.
    func discoveryListed(_ record: CastDevice?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard record != state.discovered else { return nil }
            state.discovered = record
            // Gone from the list is no reason to try now; back again (or moved) is.
            guard record != nil else { return nil }
            state.discoveryChanges += 1
            state.lastSignal = .announced
            defer { state.announcementWaiter = nil }
            return state.announcementWaiter
        }
        waiter?.resume()
    }

    /// The network came back (`change`: a link up, an address added), reported by the network monitor
    /// while the session reconnects: like a fresh announcement, it ends a back-off wait and replaces an
    /// attempt in flight (sent while the link was down, its SYN was lost and would be retried only after
    /// seconds). An input of the reconnect logic, as discovery's is.
    func networkReturned(_ change: CastNetworkChange) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.discoveryChanges += 1
            state.lastSignal = .networkReturned(change)
            defer { state.announcementWaiter = nil }
            return state.announcementWaiter
        }
        waiter?.resume()
    }

    /// Why a reconnect tries again at once.
    enum RetrySignal: Sendable {
        /// Discovery listed the device anew.
        case announced
        /// The network came back.
        case networkReturned(CastNetworkChange)

        /// A sentence for the log, about `device`.
        func sentence(_ device: String) -> String {
            switch self {
            case .announced: "Discovery announced \(device) anew"
            case .networkReturned(let change): "The network came back (\(change))"
            }
        }
    }

    enum BackOffEnd { case elapsed, announced, cancelled }

    enum AttemptEnd: Sendable {
        case connected(CastConnection)
        case failed(CastError)
        case announced
        case cancelled
    }

    /// The longest wait before the next attempt after the device refused the last one (a refusal
    /// means its host is up and the receiver restarting: it is back within seconds, and a refused
    /// connect costs nothing). Without it, the back-off could sleep seconds past the restart.
    static let restartRetryDelay = Duration.seconds(1)

    /// How many attempts after the network came back follow the one before within
    /// ``restartRetryDelay``, whatever the back-off: the first may fail while the network is still coming up.
    static let networkSettleRetries = 5

    /// Attempts abandoned for a fresh announcement that do not count against the policy's attempts;
    /// past this many, each one counts (a device announcing itself over and over cannot keep the
    /// session reconnecting for ever; the policy's timeout bounds it in any case).
    static let announcedRetriesMax = 3

    /// Connects, unless discovery lists the device anew first (more than `changes` changes): the
    /// attempt to the old record is then abandoned, and a connection it still makes is closed.
    private func connectUnlessAnnounced(after changes: Int) async -> AttemptEnd {
        let outcome = FirstOutcome<AttemptEnd>()
        let attempt = Task { [self] in
            do throws(CastError) {
                let connection = try await connect()
                if !outcome.offer(.connected(connection)) { await connection.close() }
            } catch {
                outcome.offer(.failed(error))
            }
        }
        let watcher = Task { [self] in
            await announcement(after: changes)
            if !Task.isCancelled { outcome.offer(.announced) }
        }
        let end = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.offer(.cancelled)
        }
        watcher.cancel()
        if case .announced = end { attempt.cancel() }
        if case .cancelled = end { attempt.cancel() }
        return end
    }

    /// Waits `delay` on the clock, or less when discovery lists the device anew (more than
    /// `changes` changes in all).
    private func backOff(for delay: Duration, endingEarlyAfter changes: Int) async -> BackOffEnd {
        await withTaskGroup(of: BackOffEnd.self) { group in
            group.addTask { [clock] in
                do {
                    try await clock.sleep(for: delay)
                    return .elapsed
                } catch {
                    return .cancelled
                }
            }
            group.addTask { [self] in
                await announcement(after: changes)
                return Task.isCancelled ? .cancelled : .announced
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            // The outer task's cancellation wins over whichever child ended first.
            return Task.isCancelled ? .cancelled : first
        }
    }

    /// Returns once discovery changed more than `changes` times, or when the task is cancelled.
    private func announcement(after changes: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.discoveryChanges != changes || Task.isCancelled { return true }
                    state.announcementWaiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.announcementWaiter = nil }
                return state.announcementWaiter
            }
            waiter?.resume()
        }
    }

    /// Takes the device's current record from discovery when it lists the device (by id) with an
    /// address; logs when the address changed.
    private func relocate() {
        let id = device.id
        guard let fresh = locate(id), !fresh.endpoints.isEmpty else { return }
        let old = state.withLock { state -> CastDevice in
            defer { state.device = fresh }
            return state.device
        }
        if old.endpoints != fresh.endpoints {
            logger.info("\(fresh.friendlyName) (\(id)) is now at \(fresh.preferredEndpoint.map { "\($0)" } ?? "?"), was \(old.preferredEndpoint.map { "\($0)" } ?? "?")")
        }
    }

    private func finish(_ error: CastError?) {
        let first = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.ended = true
            return true
        }
        guard first else { return }
        if let error { broadcaster.yield(.ended(error)) }
        broadcaster.finish()
    }
}

/// The first of several competing outcomes: ``offer(_:)`` keeps only the first value, ``value``
/// waits for it (one waiter).
final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }
    private let state = Mutex(State())

    /// Records `value` unless one was recorded before; whether it was recorded.
    @discardableResult
    func offer(_ value: Value) -> Bool {
        let (recorded, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value, Never>?) in
            guard state.value == nil else { return (false, nil) }
            state.value = value
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: value)
        return recorded
    }

    /// The first value offered.
    var value: Value {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let now = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        }
    }
}
