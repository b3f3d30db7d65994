internal import CastJSON
public import CastTransport
public import Logging
import Synchronization

/// One sender's connection to one Cast device: everything that rides on the device socket.
///
/// A connection owns the virtual connections (CONNECT and CLOSE), the heartbeat in both
/// directions, request ids and awaited replies with deadlines, the platform channel
/// (``receiver``) and the channel plugins added to it. It works over any `CastTransport`:
/// TLS to a real device, or an in-memory pair in tests.
///
/// ```swift
/// let connection = CastConnection(transport: try await TLSCastTransport.connect(host: "192.168.1.20"))
/// let status = try await connection.start()
/// let app = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
/// ```
///
/// When the device goes away, every request in flight fails at once with
/// ``CastChannelError/Code/connectionLost``; it does not wait for its deadline.
public final class CastConnection: Sendable {
    enum Phase: Sendable {
        case idle, running, closed(CastChannelError?)
    }

    struct PluginSlot: Sendable {
        let plugin: any CastChannelPlugin
        let mailbox: AsyncStream<PluginCall>.Continuation
        /// The context once the connection has connected the plugin.
        var context: CastChannelContext?
        /// The context once the plugin's `channelDidConnect` has returned.
        var deliveredContext: CastChannelContext?
        /// Tasks waiting in ``CastConnection/waitUntilConnected(_:timeout:)``.
        var connectWaiters: [ReplyPromise<CastChannelContext>] = []
    }

    enum PluginCall: Sendable {
        case connect(CastChannelContext)
        case message(CastChannelContext, CastChannelMessage)
        case disconnect(CastChannelContext, CastChannelDisconnectReason)
    }

    struct State: Sendable {
        var phase = Phase.idle
        var tracker: RequestTracker<ReplyPromise<CastChannelMessage>>
        var virtualConnections: Set<String> = []
        var plugins: [ObjectIdentifier: PluginSlot] = [:]
        var receiverStatus: ReceiverStatus?
        var heartbeat: HeartbeatStateMachine
        var tasks: [Task<Void, Never>] = []
        var deviceAuthStatus = CastDeviceAuthStatus.notChecked
        var deviceAuthReply: ReplyPromise<CastMessage>?
        /// The one task that fails requests whose deadline passed, and when it next wakes.
        var deadlineTask: Task<Void, Never>?
        var deadlineWake: Duration?
        var deadlineGeneration = 0
        /// The last message parsed early on the transport's I/O thread, for the read loop to reuse.
        var earlyParsed: (message: CastMessage, parsed: CastChannelMessage)?
    }

    /// The transport underneath.
    public let transport: any CastTransport
    /// The device's TLS certificate (DER), which device authentication binds to; `nil` for transports without TLS.
    public let peerCertificateDER: [UInt8]?
    /// The configuration.
    public let configuration: CastConnectionConfiguration
    /// The logger.
    public let logger: Logger
    let timer: CastTimer
    let state: Mutex<State>
    let eventBroadcaster = CastBroadcaster<CastConnectionEvent>()
    let messageBroadcaster = CastBroadcaster<CastChannelMessage>()

    /// The platform channel (`urn:x-cast:com.google.cast.receiver`).
    public var receiver: CastReceiverController { CastReceiverController(connection: self) }

    /// Creates a connection over `transport`. Nothing is sent until ``start()``.
    /// - Parameters:
    ///   - transport: a connected transport.
    ///   - configuration: ids, timers and deadlines.
    ///   - clock: the clock every timer uses (inject a manual clock in tests).
    ///   - logger: where protocol events are logged.
    ///   - peerCertificateDER: the device's TLS certificate for device authentication; taken from a
    ///     `TLSCastTransport` by default. Without one, device authentication is skipped.
    public init(
        transport: any CastTransport,
        configuration: CastConnectionConfiguration = .default,
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "castor.connection"),
        peerCertificateDER: [UInt8]? = nil
    ) {
        self.transport = transport
        self.peerCertificateDER = peerCertificateDER ?? (transport as? TLSCastTransport)?.peerCertificateDER
        self.configuration = configuration
        self.logger = logger
        let timer = CastTimer(clock)
        self.timer = timer
        state = Mutex(
            State(
                tracker: RequestTracker(firstId: Int.random(in: 1...1_000_000)),
                heartbeat: HeartbeatStateMachine(
                    interval: configuration.heartbeatInterval, liveness: configuration.livenessTimeout,
                    now: timer.elapsed())))
    }

    deinit {
        for task in state.withLock({ $0.tasks + [$0.deadlineTask].compactMap { $0 } }) { task.cancel() }
    }

    // MARK: - Lifecycle

    /// Opens the platform virtual connection, starts the heartbeat and reading, and fetches the
    /// receiver status (which also connects plugins whose app is already running).
    ///
    /// Device authentication and the first GET_STATUS share one budget, the configured
    /// ``CastConnectionConfiguration/requestTimeout``: the device-authentication wait is the smaller
    /// of its own limit and that budget, and GET_STATUS gets what is left.
    /// - Returns: the receiver's status.
    /// - Throws: ``CastChannelError``; the connection is closed then.
    @discardableResult
    public func start() async throws(CastChannelError) -> ReceiverStatus {
        let started: Bool = state.withLock { state in
            guard case .idle = state.phase else { return false }
            state.phase = .running
            return true
        }
        guard started else { throw CastChannelError(code: .closed, message: "The connection was already started") }
        if let observing = transport as? any CastInboundObservingTransport {
            observing.observeInbound { [weak self] message in self?.completeRequestEarly(with: message) }
        }
        let reader = Task { [self] in await runReadLoop() }
        let heartbeat = Task { [self] in await runHeartbeat() }
        state.withLock { $0.tasks += [reader, heartbeat] }
        do {
            let deadline = timer.elapsed() + configuration.requestTimeout
            try await authenticateDevice(until: deadline)
            try await ensureVirtualConnection(to: CastEndpoint.platform)
            let status = try await receiver.getStatus(timeout: max(deadline - timer.elapsed(), .zero))
            await connectPlatformPlugins()
            return status
        } catch {
            await close()
            throw error
        }
    }

    /// Closes every virtual connection (CLOSE), then the transport. Requests in flight fail with
    /// ``CastChannelError/Code/closed``; plugins are told ``CastChannelDisconnectReason/connectionClosed``.
    public func close() async {
        let (wasRunning, connections) = state.withLock { state -> (Bool, Set<String>) in
            guard case .running = state.phase else { return (false, []) }
            return (true, state.virtualConnections)
        }
        if wasRunning {
            for destination in connections.sorted(by: { a, _ in a != CastEndpoint.platform }) {
                try? await transport.send(closeMessage(to: destination))
            }
        }
        finish(with: nil, pluginReason: .connectionClosed)
        await transport.close()
    }

    /// Whether the connection is running (started and not closed or lost).
    public var isRunning: Bool {
        state.withLock { if case .running = $0.phase { return true } else { return false } }
    }

    /// Why the connection ended: `nil` while running or after ``close()``.
    public var closeReason: CastChannelError? {
        state.withLock { if case .closed(let reason) = $0.phase { return reason } else { return nil } }
    }

    /// The outcome of device authentication: `.notChecked` until ``start()`` has run it, when the
    /// policy is off, or when the transport has no TLS certificate.
    public var deviceAuthStatus: CastDeviceAuthStatus { state.withLock { $0.deviceAuthStatus } }

    /// The latest receiver status, if one has arrived.
    public var receiverStatus: ReceiverStatus? { state.withLock { $0.receiverStatus } }

    /// Connection events from now on; each call gives an independent sequence, which finishes
    /// when the connection ends.
    public var events: AsyncStream<CastConnectionEvent> { eventBroadcaster.subscribe() }

    /// Every message received from now on, on any namespace; for tools and diagnostics.
    public var messages: AsyncStream<CastChannelMessage> { messageBroadcaster.subscribe() }

    /// Ends the connection: fails requests, disconnects plugins, stops timers, publishes `.closed`.
    func finish(with error: CastChannelError?, pluginReason: CastChannelDisconnectReason) {
        let (entries, slots, tasks) = state.withLock { state -> ([RequestTracker<ReplyPromise<CastChannelMessage>>.Entry], [PluginSlot], [Task<Void, Never>]) in
            guard case .running = state.phase else {
                if case .idle = state.phase { state.phase = .closed(error) }
                return ([], [], [])
            }
            state.phase = .closed(error)
            let slots = Array(state.plugins.values)
            state.plugins.removeAll()
            state.virtualConnections.removeAll()
            state.deadlineTask?.cancel()
            state.deadlineTask = nil
            state.deadlineWake = nil
            defer { state.tasks.removeAll() }
            return (state.tracker.removeAll(), slots, state.tasks)
        }
        let failure = error ?? CastChannelError(code: .closed, message: "The connection was closed")
        for entry in entries { entry.waiter.fulfil(.failure(failure)) }
        for slot in slots {
            if let context = slot.context { slot.mailbox.yield(.disconnect(context, pluginReason)) }
            slot.mailbox.finish()
            for waiter in slot.connectWaiters { waiter.fulfil(.failure(failure)) }
        }
        for task in tasks { task.cancel() }
        if !tasks.isEmpty || !slots.isEmpty || !entries.isEmpty || error != nil {
            if let error { logger.warning("Cast connection ended: \(error)") }
        }
        eventBroadcaster.yield(.closed(error))
        eventBroadcaster.finish()
        messageBroadcaster.finish()
    }

    // MARK: - Sending

    /// Sends a message as is.
    func send(_ message: CastMessage) async throws(CastChannelError) {
        guard isRunning else {
            throw closeReason ?? CastChannelError(code: .closed, message: "The connection is not running")
        }
        do {
            try await transport.send(message)
        } catch let error as CastTransportError where error.code == .messageTooLarge {
            throw CastChannelError(code: .messageTooLarge, message: error.message, transportError: error)
        } catch {
            let transportError = error as? CastTransportError
            throw CastChannelError(code: .connectionLost, message: "Sending failed: \(error)", transportError: transportError)
        }
    }

    func closeMessage(to destination: String) -> CastMessage {
        CastMessage(
            sourceId: configuration.senderId, destinationId: destination, namespace: CastNamespace.connection.rawValue,
            json: ["type": "CLOSE", "reasonCode": 5])
    }

    func connectMessage(to destination: String) -> CastMessage {
        let version = JSONValue.string(configuration.senderVersion)
        return CastMessage(
            sourceId: configuration.senderId, destinationId: destination, namespace: CastNamespace.connection.rawValue,
            json: [
                "type": "CONNECT", "origin": [:], "userAgent": .string(configuration.userAgent), "connType": 0,
                "senderInfo": [
                    "sdkType": 2, "version": version, "browserVersion": version, "platform": 6,
                    "connectionType": 1, "systemVersion": "Linux",
                ],
            ])
    }

    /// Sends CONNECT to `destination` unless a virtual connection to it is already open.
    func ensureVirtualConnection(to destination: String) async throws(CastChannelError) {
        let needed = state.withLock { $0.virtualConnections.insert(destination).inserted }
        guard needed else { return }
        do {
            try await send(connectMessage(to: destination))
        } catch {
            _ = state.withLock { $0.virtualConnections.remove(destination) }
            throw error
        }
    }
}

/// Endpoint ids with a fixed meaning.
package enum CastEndpoint {
    /// The device platform.
    package static let platform = "receiver-0"
    /// The receiver's own heartbeat endpoint.
    package static let transport = "Tr@n$p0rt-0"
    /// Broadcast destination.
    package static let broadcast = "*"
}
