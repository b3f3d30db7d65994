internal import CastJSON
public import CastCore
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
    /// The shell's handle on one plugin: the plugin, the mailbox its task reads, how many
    /// messages in that mailbox it has not taken yet (at most the configured backlog limit), and
    /// whether it can be handed a message at once (it runs on the thread that decodes them).
    struct PluginHandle: Sendable {
        let key: ObjectIdentifier
        let plugin: any CastChannelPlugin
        /// The plugin's namespace, read once when it was added (contexts are made under the
        /// connection's lock, where no plugin code runs).
        let namespace: CastNamespace
        let mailbox: AsyncStream<PluginCall>.Continuation
        let backlog: PluginBacklog
        /// The plugin's fast-path hooks, when it has them.
        let fastPath: (any CastConnectionThreadPlugin)?
        /// ``CastConnectionThreadPlugin/runsOnConnectionThread`` on a transport with a task executor.
        let takesMessagesNow: Bool

        /// Queues a call in the mailbox, counted until the plugin's task has carried it out.
        func post(_ call: PluginCall) {
            backlog.queued()
            if case .terminated = mailbox.yield(call) { backlog.finished() }
        }

        /// Ends the mailbox: the plugin's task stops after the calls already queued.
        func finish() {
            backlog.close()
            mailbox.finish()
        }
    }

    enum PluginCall: Sendable {
        case connect(CastChannelContext)
        case message(CastChannelContext, CastChannelMessage)
        case disconnect(CastChannelContext, CastChannelDisconnectReason)
    }

    enum MachineTypes: ConnectionStateMachineTypes {
        typealias Reply = ReplyPromise<CastChannelMessage>
        typealias Plugin = PluginHandle
        typealias ConnectWaiter = ReplyPromise<CastChannelContext>
        typealias AuthWaiter = ReplyPromise<ConnectionStateMachine<MachineTypes>.DeviceAuthEnd>
    }
    typealias Machine = ConnectionStateMachine<MachineTypes>

    /// The protocol logic, and the tasks that run it: the shell around the machine.
    struct State: Sendable {
        var machine: Machine
        /// The heartbeat, cancelled when the connection ends.
        var tasks: [Task<Void, Never>] = []
        /// The plugins' mailbox tasks: not cancelled when the connection ends, so each plugin is
        /// told of the end; they finish with their mailboxes.
        var consumers: [Task<Void, Never>] = []
        /// The one task sleeping until the machine's earliest request deadline.
        var deadlineTask: Task<Void, Never>?
        /// Messages in the order they were decided (under this lock), not yet handed to the transport.
        var outbox: [CastMessage] = []
        /// A thread is handing the outbox to the transport; others only add to it.
        var flushing = false
        /// The first error the transport gave a send: it is closed, and every later send fails too.
        var sendFailure: CastTransportError?
        /// Tasks waiting for the outbox to be empty (``close()``, for its CLOSE messages).
        var outboxWaiters: [ReplyPromise<Void>] = []
    }

    /// The transport underneath.
    public let transport: any CastTransport
    /// The device's TLS certificate (DER), which device authentication binds to; `nil` for transports without TLS.
    public let peerCertificateDER: [UInt8]?
    /// The device-authentication check (see ``CastConnectionConfiguration/deviceAuthPolicy``); `nil`
    /// when the transport offers none and none was given, and the device is then not checked.
    public let deviceVerifier: (any CastDeviceVerifier)?
    /// The configuration.
    public let configuration: CastConnectionConfiguration
    /// The logger.
    public let logger: Logger
    let timer: ElapsedClock
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
    ///   - peerCertificateDER: the device's TLS certificate for device authentication; the
    ///     transport's `peerCertificateDER` by default. Without one, device
    ///     authentication is skipped.
    ///   - deviceVerifier: the device-authentication check; the transport's `deviceVerifier` by
    ///     default (a `TLSCastTransport` offers Google's checks). Without one, device
    ///     authentication is skipped.
    public init(
        transport: any CastTransport,
        configuration: CastConnectionConfiguration = .default,
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "castor.connection"),
        peerCertificateDER: [UInt8]? = nil,
        deviceVerifier: (any CastDeviceVerifier)? = nil
    ) {
        self.transport = transport
        self.peerCertificateDER = peerCertificateDER ?? transport.peerCertificateDER
        self.deviceVerifier = deviceVerifier ?? transport.deviceVerifier
        self.configuration = configuration
        self.logger = logger
        let timer = ElapsedClock(clock)
        self.timer = timer
        state = Mutex(State(machine: Machine(
            configuration: configuration, firstRequestId: Int.random(in: 1...1_000_000), now: timer.elapsed())))
    }

    deinit {
        for task in state.withLock({ $0.tasks + $0.consumers + [$0.deadlineTask].compactMap { $0 } }) { task.cancel() }
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
        try state.withLock { state throws(CastChannelError) in try state.machine.start() }
        // The heartbeat is registered first: a transport that has already ended delivers its end
        // inside deliverInbound, and the end must find the task to cancel.
        let heartbeat = Task { [self] in await runHeartbeat() }
        state.withLock { $0.tasks.append(heartbeat) }
        // The machine runs where the transport decodes: a reply reaches plugins (through their
        // mailboxes, or at once) and then completes its request there, without a reader task in between. The transport
        // holds this handler, and so the connection, until it has delivered the end.
        transport.deliverInbound { [self] event in inbound(event) }
        do {
            let deadline = timer.elapsed() + configuration.requestTimeout
            try await authenticateDevice(until: deadline)
            try ensureVirtualConnection(to: CastEndpoint.platform)
            let status = try await receiver.getStatus(timeout: max(deadline - timer.elapsed(), .zero))
            perform(machine { $0.connectPlatformPlugins() })
            return status
        } catch {
            await close()
            throw error
        }
    }

    /// Closes every virtual connection (CLOSE), then the transport. Requests in flight fail with
    /// ``CastChannelError/Code/closed``; plugins are told ``CastChannelDisconnectReason/connectionClosed``.
    public func close() async {
        perform(machine { $0.close() })
        // The CLOSE messages go before the transport closes, even when another thread is handing
        // them over.
        await outboxSent()
        await transport.close()
    }

    /// Whether the connection is running (started and not closed or lost).
    public var isRunning: Bool { state.withLock { $0.machine.isRunning } }

    /// Why the connection ended: `nil` while running or after ``close()``.
    public var closeReason: CastChannelError? { state.withLock { $0.machine.closeReason } }

    /// The outcome of device authentication: `.notChecked` until ``start()`` has run it, when the
    /// policy is off, or when the transport has no TLS certificate.
    public var deviceAuthStatus: CastDeviceAuthStatus { state.withLock { $0.machine.deviceAuthStatus } }

    /// The latest receiver status, if one has arrived.
    public var receiverStatus: ReceiverStatus? { state.withLock { $0.machine.receiverStatus } }

    /// Connection events from now on; each call gives an independent sequence, which finishes
    /// when the connection ends.
    public var events: AsyncStream<CastConnectionEvent> { eventBroadcaster.subscribe() }

    /// Every message received from now on, on any namespace; for tools and diagnostics.
    public var messages: AsyncStream<CastChannelMessage> { messageBroadcaster.subscribe() }

    // MARK: - Running the machine

    /// Runs one input of the machine under the lock. Timer actions are carried out there too, so
    /// that two inputs cannot arm the deadline out of order; messages to send join the outbox
    /// there, so that they reach the transport in the order the machine decided them; and a
    /// plugin's connect, disconnect and end are queued in its mailbox there, so that a message
    /// decided after them (and handed over by another thread) finds them ahead of it: it is never
    /// handed to the plugin before `channelDidConnect` or after `channelDidDisconnect`. The rest is
    /// returned to perform.
    func machine(_ body: (inout Machine) -> [Machine.Action]) -> [Machine.Action] {
        state.withLock { state in
            var actions = body(&state.machine)
            actions.removeAll { action in
                switch action {
                case .send(let message):
                    state.outbox.append(message)
                    return false
                case .connectPlugin(let handle, let link):
                    handle.post(.connect(context(handle, link)))
                    return true
                case .disconnectPlugin(let handle, let link, let reason):
                    handle.post(.disconnect(context(handle, link), reason))
                    return true
                case .finishPlugin(let handle):
                    handle.finish()
                    return true
                case .armDeadline(let wake):
                    state.deadlineTask?.cancel()
                    state.deadlineTask = Task { [weak self] in await self?.deadlineTimer(wake) }
                    return true
                case .cancelDeadline:
                    state.deadlineTask?.cancel()
                    state.deadlineTask = nil
                    return true
                default:
                    return false
                }
            }
            return actions
        }
    }

    private func deadlineTimer(_ wake: Duration) async {
        do { try await timer.sleepUntil(wake) } catch { return }
        let now = timer.elapsed()
        let peer = transport.peerDescription
        perform(machine { $0.deadlineReached(now: now, peer: peer) })
    }

    /// Carries out actions in order, without waiting: at a write the outbox is handed to the
    /// transport (a CONNECT joined it in ``machine(_:)`` before its plugin's connect was queued, so
    /// anything the plugin sends once connected goes out behind it), a message is handed to its
    /// plugin (at once, or queued in its mailbox; when the plugin has stopped taking them, it is
    /// dropped), a reply completes its request.
    func perform(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .send:
                // Queued in the outbox by ``machine(_:)``.
                flushOutbox()
            case .completeRequest(let reply, let message):
                reply.fulfil(.success(message))
            case .failRequest(let reply, let error):
                reply.fulfil(.failure(error))
            case .connectPlugin, .disconnectPlugin, .finishPlugin:
                // Queued in the plugin's mailbox by ``machine(_:)``.
                break
            case .deliver(let handle, let link, let message):
                // Deliveries come from ``inbound(_:)``, called where the transport delivers its messages:
                // on its task executor when it has one (`CastTransport.taskExecutor`), where a plugin
                // that runs on the connection's thread has its task too. Nothing of that plugin runs
                // meanwhile, and when nothing is queued for it the message can be handed over at once, in order.
                let context = context(handle, link)
                if handle.takesMessagesNow, handle.backlog.isIdle, let fastPath = handle.fastPath,
                    fastPath.channel(context, didReceiveNow: message)
                {
                    continue
                }
                let limit = max(1, configuration.pluginBacklogLimit)
                if handle.backlog.admit(limit: limit) {
                    handle.fastPath?.channelWillReceive(message)
                    handle.post(.message(context, message))
                } else {
                    perform(machine { $0.pluginFellBehind(key: handle.key, limit: limit) })
                }
            case .resumeConnectWaiters(let handle, let waiters, let result):
                let outcome = result.map { context(handle, $0) }
                for waiter in waiters { waiter.fulfil(outcome) }
            case .deviceAuthEnded(let waiter, let end):
                waiter.fulfil(.success(end))
            case .publish(let event):
                eventBroadcaster.yield(event)
            case .publishMessage(let message):
                messageBroadcaster.yield(message)
            case .armDeadline, .cancelDeadline:
                // Carried out under the lock by ``machine(_:)``.
                break
            case .warn(let text):
                logger.warning("\(text)")
            case .ended(let error, let closeTransport):
                let tasks = state.withLock { state in
                    defer {
                        state.tasks.removeAll()
                        state.deadlineTask = nil
                    }
                    return state.tasks + [state.deadlineTask].compactMap { $0 }
                }
                for task in tasks { task.cancel() }
                eventBroadcaster.yield(.closed(error))
                eventBroadcaster.finish()
                messageBroadcaster.finish()
                if closeTransport {
                    Task { [self] in
                        await outboxSent()
                        await transport.close()
                    }
                }
            }
        }
    }

    /// The context a plugin sends through on `link`.
    func context(_ handle: PluginHandle, _ link: Machine.Link) -> CastChannelContext {
        CastChannelContext(
            namespace: handle.namespace, transportId: link.transportId, sessionId: link.sessionId,
            senderId: configuration.senderId, connection: self)
    }

    // MARK: - Sending

    /// Queues a message as is, behind every message decided before it.
    /// - Throws: `.messageTooLarge` (nothing queued), the connection's end, or `.connectionLost`
    ///   when the transport is closed, or refused a message this call handed over. (When another
    ///   thread is already handing messages over, it sends this one too, in order; a refusal then
    ///   is logged, and only a closed transport is reported here.)
    func send(_ message: CastMessage) throws(CastChannelError) {
        let size = message.encodedSize
        guard size <= CastFrame.maxBodySize else {
            let error = CastTransportError(
                code: .messageTooLarge, message: "Message of \(size) bytes exceeds the \(CastFrame.maxBodySize)-byte frame limit")
            throw CastChannelError(code: .messageTooLarge, message: error.message, transportError: error)
        }
        try state.withLock { state throws(CastChannelError) in
            if let error = state.machine.notRunningError { throw error }
            state.outbox.append(message)
        }
        if let failure = flushOutbox() {
            throw CastChannelError(code: .connectionLost, message: "Sending failed: \(failure)", transportError: failure)
        }
    }

    /// Hands the outbox to the transport in order, unless another thread is doing so already (it
    /// sends what was added here too, in order).
    /// - Returns: the failure that closed the transport, if one happened by now, else the first
    ///   refusal of a message this call handed over.
    @discardableResult
    func flushOutbox() -> CastTransportError? {
        var batch: [CastMessage] = []
        let claim = state.withLock { state -> CastTransportError?? in
            guard !state.flushing, !state.outbox.isEmpty else { return .some(state.sendFailure) }
            state.flushing = true
            swap(&batch, &state.outbox)
            return .none
        }
        if case .some(let failure) = claim { return failure }
        var refusal: CastTransportError?
        while true {
            for message in batch {
                do {
                    try transport.send(message)
                } catch {
                    logger.warning("Cannot send \(message.namespace) to \(message.destinationId): \(error)")
                    refusal = refusal ?? error
                    // Only a closed transport fails every later send; another transport's one-off
                    // refusal fails only this message.
                    if error.code == .closed || transport.closeReason != nil {
                        state.withLock { state in
                            if state.sendFailure == nil { state.sendFailure = error }
                        }
                    }
                }
            }
            batch.removeAll(keepingCapacity: true)
            let done = state.withLock { state -> (failure: CastTransportError?, waiters: [ReplyPromise<Void>])? in
                guard state.outbox.isEmpty else {
                    swap(&batch, &state.outbox)
                    return nil
                }
                state.flushing = false
                defer { state.outboxWaiters = [] }
                return (state.sendFailure, state.outboxWaiters)
            }
            if let done {
                for waiter in done.waiters { waiter.fulfil(.success(())) }
                return done.failure ?? refusal
            }
        }
    }

    /// Returns once every message queued so far has been handed to the transport.
    func outboxSent() async {
        let waiter = ReplyPromise<Void>()
        let pending = state.withLock { state -> Bool in
            guard state.flushing || !state.outbox.isEmpty else { return false }
            state.outboxWaiters.append(waiter)
            return true
        }
        guard pending else { return }
        flushOutbox()
        try? await waiter.value()
    }

    /// Sends CONNECT to `destination` unless a virtual connection to it is already open.
    func ensureVirtualConnection(to destination: String) throws(CastChannelError) {
        let actions = machine { $0.openVirtualConnection(to: destination) }
        guard !actions.isEmpty else { return }
        if let failure = flushOutbox() {
            state.withLock { $0.machine.virtualConnectionFailed(to: destination) }
            throw CastChannelError(code: .connectionLost, message: "Sending failed: \(failure)", transportError: failure)
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
