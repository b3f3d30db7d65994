import CastJSON
package import CastCore

/// The types a ``ConnectionStateMachine`` carries for its shell without looking inside them.
///
/// The connection's shell uses promises and mailboxes; tests use plain values.
package protocol ConnectionStateMachineTypes {
    /// Waits for one request's reply.
    associatedtype Reply: Sendable
    /// The shell's handle on one plugin (the plugin and its mailbox).
    associatedtype Plugin: Sendable
    /// Waits until a plugin is connected.
    associatedtype ConnectWaiter: Sendable
    /// Waits for the end of the device-authentication exchange (see ``ConnectionStateMachine/DeviceAuthEnd``).
    associatedtype AuthWaiter: Sendable
}

/// A sender connection's protocol logic, without tasks, sockets or clocks: the phase, the virtual
/// connections, the plugins and their links, the requests in flight with their deadlines, the
/// heartbeat and the device-authentication exchange (the challenge out, then its answer, its
/// deadline or the connection's end, whichever comes first).
///
/// Every input (a message received, a request started, a deadline reached, a plugin added, the
/// transport ended, close asked) returns the actions to carry out, in order. Time comes in as
/// elapsed time on the connection's clock.
package struct ConnectionStateMachine<Types: ConnectionStateMachineTypes>: Sendable {
    package typealias Reply = Types.Reply
    package typealias Plugin = Types.Plugin

    /// Where the connection is in its life.
    package enum Phase: Sendable {
        case idle, running, closed(CastChannelError?)
    }

    /// Where a connected plugin talks to.
    package struct Link: Sendable, Hashable {
        /// The peer endpoint: an app's transport id, or `receiver-0`.
        package var transportId: String
        /// The app's session id (`nil` for platform channels).
        package var sessionId: String?
    }

    /// One plugin added to the connection.
    package struct PluginSlot: Sendable {
        package var handle: Plugin
        package var namespace: String
        package var endpoint: CastChannelEndpoint
        /// Set when the connection connects the plugin.
        package var link: Link?
        /// Set when the plugin's `channelDidConnect` has returned.
        package var delivered: Link?
        package var connectWaiters: [Types.ConnectWaiter] = []
        /// Which `add` of the plugin this is: a plugin removed and added again gets a new slot, and
        /// what its old mailbox still delivers must not touch the new one.
        package var generation = 0
    }

    /// What the shell carries out.
    package enum Action: Sendable {
        /// Write a message (CONNECT, CLOSE, PING, PONG).
        case send(CastMessage)
        /// A request's reply arrived.
        case completeRequest(Reply, CastChannelMessage)
        /// A request failed (deadline, app closed, connection ended, cancelled).
        case failRequest(Reply, CastChannelError)
        /// Tell a plugin it is connected.
        case connectPlugin(Plugin, Link)
        /// Hand a plugin a message.
        case deliver(Plugin, Link, CastChannelMessage)
        /// Tell a plugin it is disconnected.
        case disconnectPlugin(Plugin, Link, CastChannelDisconnectReason)
        /// The plugin gets nothing more from this connection (its mailbox ends).
        case finishPlugin(Plugin)
        /// Resume tasks waiting for a plugin to connect.
        case resumeConnectWaiters(Plugin, [Types.ConnectWaiter], Result<Link, CastChannelError>)
        /// The device-authentication exchange ended: hand `end` to the waiter.
        case deviceAuthEnded(Types.AuthWaiter, DeviceAuthEnd)
        /// Publish a connection event.
        case publish(CastConnectionEvent)
        /// Publish a received message to the connection's listeners.
        case publishMessage(CastChannelMessage)
        /// Wake ``ConnectionStateMachine/deadlineReached(now:)`` at this elapsed time (replacing an earlier wake-up).
        case armDeadline(Duration)
        /// No deadline is pending any more.
        case cancelDeadline
        /// Log a warning.
        case warn(String)
        /// The connection ended (with the error, or `nil` after ``ConnectionStateMachine/close()``): stop the
        /// timers, end the event streams; close the transport when `closeTransport`.
        case ended(CastChannelError?, closeTransport: Bool)
    }

    package let configuration: CastConnectionConfiguration
    package private(set) var phase = Phase.idle
    package private(set) var virtualConnections: Set<String> = []
    package private(set) var plugins: [ObjectIdentifier: PluginSlot] = [:]
    /// The generation the last added plugin got.
    private var nextGeneration = 0
    package private(set) var receiverStatus: ReceiverStatus?
    package var deviceAuthStatus = CastDeviceAuthStatus.notChecked
    private var tracker: RequestTracker<Reply>
    private var heartbeat: HeartbeatStateMachine
    private var deviceAuth: DeviceAuthWait?
    /// The wake-up the shell has armed, if any.
    private var armedDeadline: Duration?

    /// Creates an idle machine at `now`; request ids start at `firstRequestId`.
    package init(configuration: CastConnectionConfiguration, firstRequestId: Int, now: Duration) {
        self.configuration = configuration
        tracker = RequestTracker(firstId: firstRequestId)
        heartbeat = HeartbeatStateMachine(
            interval: configuration.heartbeatInterval, liveness: configuration.livenessTimeout, now: now)
    }

    /// Whether the connection is running.
    package var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// Why the connection ended: `nil` while running or after a local close.
    package var closeReason: CastChannelError? {
        if case .closed(let reason) = phase { return reason }
        return nil
    }

    /// The error a send or request gets now, or `nil` while running.
    package var notRunningError: CastChannelError? {
        switch phase {
        case .running: return nil
        case .closed(let reason?): return reason
        case .idle, .closed(nil): return CastChannelError(code: .closed, message: "The connection is not running")
        }
    }

    /// Throws the connection's end (why it ended, or `.closed` after a local close); nothing while idle or running.
    private func throwIfEnded() throws(CastChannelError) {
        guard case .closed(let reason) = phase else { return }
        throw reason ?? CastChannelError(code: .closed, message: "The connection is closed")
    }

    /// The number of requests in flight.
    package var requestsInFlight: Int { tracker.count }

    /// The types of the requests in flight.
    package var requestLabels: [String] { tracker.labels }

    // MARK: - Lifecycle

    /// `start()` was called: the connection runs from now on.
    /// - Throws: `.closed` when it was started before.
    package mutating func start() throws(CastChannelError) {
        guard case .idle = phase else { throw CastChannelError(code: .closed, message: "The connection was already started") }
        phase = .running
    }

    /// Opens the virtual connection to `destination` unless it is open: the CONNECT to send, if any.
    package mutating func openVirtualConnection(to destination: String) -> [Action] {
        guard isRunning, virtualConnections.insert(destination).inserted else { return [] }
        return [.send(connectMessage(to: destination))]
    }

    /// The CONNECT to `destination` could not be written.
    package mutating func virtualConnectionFailed(to destination: String) {
        virtualConnections.remove(destination)
    }

    /// Close asked: CLOSE every virtual connection (apps first), then end.
    package mutating func close() -> [Action] {
        guard isRunning else { return finish(with: nil, reason: .connectionClosed, closeTransport: true) }
        var actions: [Action] = virtualConnections.sorted { ($0 == CastEndpoint.platform ? 1 : 0, $0) < ($1 == CastEndpoint.platform ? 1 : 0, $1) }.map { .send(closeMessage(to: $0)) }
        actions += finish(with: nil, reason: .connectionClosed, closeTransport: true)
        return actions
    }

    /// The transport ended (the peer closed, or an error).
    package mutating func transportEnded(_ error: CastChannelError) -> [Action] {
        guard isRunning else { return [] }
        return finish(with: error, reason: .connectionLost, closeTransport: false)
    }

    /// Ends the connection: fails requests and connect waiters, disconnects and finishes plugins.
    private mutating func finish(with error: CastChannelError?, reason: CastChannelDisconnectReason, closeTransport: Bool) -> [Action] {
        switch phase {
        case .closed: return []
        case .idle:
            phase = .closed(error)
            var actions: [Action] = plugins.values.map { .finishPlugin($0.handle) }
            plugins.removeAll()
            actions.append(.ended(error, closeTransport: closeTransport))
            return actions
        case .running: break
        }
        phase = .closed(error)
        let failure = error ?? CastChannelError(code: .closed, message: "The connection was closed")
        var actions: [Action] = tracker.removeAll().map { .failRequest($0.waiter, failure) }
        for slot in plugins.values.sorted(by: { $0.namespace < $1.namespace }) {
            if let link = slot.link { actions.append(.disconnectPlugin(slot.handle, link, reason)) }
            actions.append(.finishPlugin(slot.handle))
            if !slot.connectWaiters.isEmpty { actions.append(.resumeConnectWaiters(slot.handle, slot.connectWaiters, .failure(failure))) }
        }
        plugins.removeAll()
        virtualConnections.removeAll()
        // The exchange ends with the connection, at once and with its cause: a device that answers the
        // challenge with an oversized frame, garbage, a close or a reset is not waited for.
        if let wait = deviceAuth {
            deviceAuth = nil
            actions.append(.deviceAuthEnded(wait.waiter, .failed(failure)))
        }
        if armedDeadline != nil {
            armedDeadline = nil
            actions.append(.cancelDeadline)
        }
        if let error { actions.append(.warn("Cast connection ended: \(error)")) }
        actions.append(.ended(error, closeTransport: closeTransport))
        return actions
    }

    // MARK: - Heartbeat

    /// How long the heartbeat waits from `now` before its next tick.
    package func heartbeatDelay(now: Duration) -> Duration {
        heartbeat.delayUntilNextTick(at: now)
    }

    /// The heartbeat timer fired: PING, or end the connection when the peer has been silent too long.
    package mutating func heartbeatTick(now: Duration, peer: String) -> [Action] {
        guard isRunning else { return [] }
        switch heartbeat.tick(at: now) {
        case .sendPing:
            return [.send(CastMessage(
                sourceId: configuration.senderId, destinationId: CastEndpoint.platform,
                namespace: CastNamespace.heartbeat.rawValue, payload: .string(#"{"type":"PING"}"#)))]
        case .declareDead(let silence):
            let error = CastChannelError(
                code: .heartbeatTimeout,
                message: "No message from \(peer) for \(silence.castDescription): the liveness "
                    + "deadline (\(configuration.livenessTimeout.castDescription)) passed while waiting for any message, "
                    + "our PINGs included; the device or the network path to it is gone")
            return finish(with: error, reason: .connectionLost, closeTransport: true)
        }
    }

    // MARK: - Device authentication

    /// How the device-authentication exchange ended.
    package enum DeviceAuthEnd: Sendable {
        /// The device answered (the answer is checked by the shell).
        case answered(CastMessage)
        /// The authentication timeout passed without an answer: the check fails, and the connection
        /// goes on (the policy decides whether that is acceptable).
        case unanswered
        /// The exchange cannot go on: the connection ended (with its cause), or the budget of
        /// `start()` ran out before an answer came (`.timeout`).
        case failed(CastChannelError)
    }

    /// The device-authentication exchange in progress.
    private struct DeviceAuthWait: Sendable {
        var waiter: Types.AuthWaiter
        /// When the wait ends without an answer.
        var deadline: Duration
        /// Whether `deadline` is the budget of `start()` (the wait's end fails `start()`), not the
        /// authentication timeout (the wait's end fails only the check).
        var isStartBudget: Bool
        /// The start budget in full, for the message.
        var budget: Duration
    }

    /// Whether a device-authentication exchange is in progress.
    package var isAuthenticatingDevice: Bool { deviceAuth != nil }

    /// Sends `challenge` (the first message on the connection) and waits for its answer with
    /// `waiter`, at most until `deadline`: the earlier of the authentication timeout and the end of
    /// the `start()` budget (`isStartBudget`, which is `budget` long), whichever the caller found first.
    /// The exchange ends with ``Action/deviceAuthEnded(_:_:)`` when the answer comes, the deadline
    /// passes (``deadlineReached(now:peer:)``) or the connection ends.
    package mutating func startDeviceAuth(
        challenge: CastMessage, waiter: Types.AuthWaiter, deadline: Duration, isStartBudget: Bool, budget: Duration
    ) -> [Action] {
        if let error = notRunningError { return [.deviceAuthEnded(waiter, .failed(error))] }
        var actions: [Action] = []
        if let earlier = deviceAuth {
            actions.append(.deviceAuthEnded(earlier.waiter, .failed(CastChannelError(
                code: .cancelled, message: "Another device-authentication exchange started"))))
        }
        deviceAuth = DeviceAuthWait(waiter: waiter, deadline: deadline, isStartBudget: isStartBudget, budget: budget)
        actions.append(.send(challenge))
        return actions + rearmDeadline()
    }

    /// The shell checked the answer: `status` is the outcome of device authentication.
    package mutating func deviceAuthChecked(_ status: CastDeviceAuthStatus) -> [Action] {
        deviceAuthStatus = status
        return [.publish(.deviceAuthenticated(status))]
    }

    // MARK: - Requests

    /// Starts request `label` on `namespace` to `destinationId`, due at `deadline`.
    /// - Returns: the request id (to set on the message) and the actions (arming its deadline).
    /// - Throws: the reason the connection is not running.
    package mutating func startRequest(
        namespace: String, destinationId: String, reply: Reply, deadline: Duration, timeout: Duration, label: String,
        accept: @escaping @Sendable (CastChannelMessage) -> Bool
    ) throws(CastChannelError) -> (id: Int, actions: [Action]) {
        if let error = notRunningError { throw error }
        let id = tracker.allocate()
        tracker.register(
            id,
            entry: .init(namespace: namespace, destinationId: destinationId, accept: accept, waiter: reply,
                         deadline: deadline, timeout: timeout, label: label))
        return (id, rearmDeadline())
    }

    /// Request `id` ended without a reply (its send failed, or its task was cancelled).
    package mutating func abandonRequest(_ id: Int, error: CastChannelError?) -> [Action] {
        guard let entry = tracker.remove(id) else { return [] }
        var actions: [Action] = error.map { [.failRequest(entry.waiter, $0)] } ?? []
        actions += rearmDeadline()
        return actions
    }

    /// The armed deadline was reached at `now`: fails the requests that are due, and ends a
    /// device-authentication wait that is due.
    package mutating func deadlineReached(now: Duration, peer: String) -> [Action] {
        armedDeadline = nil
        var actions: [Action] = []
        if let wait = deviceAuth, wait.deadline <= now {
            deviceAuth = nil
            if wait.isStartBudget {
                // Nothing is left for GET_STATUS either: the device is not answering in time.
                actions.append(.deviceAuthEnded(wait.waiter, .failed(CastChannelError(
                    code: .timeout,
                    message: "\(peer) did not answer the device-authentication challenge before the connection's request "
                        + "timeout (\(wait.budget.castDescription), which covers device authentication and the first "
                        + "GET_STATUS) ran out"))))
            } else {
                actions.append(.deviceAuthEnded(wait.waiter, .unanswered))
            }
        }
        actions += tracker.removeExpired(at: now).map { id, entry in
            let message = "No reply to \(entry.label) (requestId \(id)) from \(peer) within "
                + "\((entry.timeout ?? .zero).castDescription): the request's deadline passed while waiting for the device's answer"
            return .failRequest(entry.waiter, CastChannelError(code: .timeout, message: message))
        }
        actions += rearmDeadline()
        return actions
    }

    /// Arms the wake-up for the earliest deadline when it is earlier than the armed one; a later
    /// armed wake-up finds nothing due and re-arms then (so the usual case, a new request due after
    /// the ones in flight, costs nothing).
    private mutating func rearmDeadline() -> [Action] {
        let requests = tracker.earliestDeadline
        let authentication = deviceAuth?.deadline
        guard isRunning, let earliest = [requests, authentication].compactMap({ $0 }).min() else { return [] }
        if let armed = armedDeadline, armed <= earliest { return [] }
        armedDeadline = earliest
        return [.armDeadline(earliest)]
    }

    // MARK: - Inbound

    /// A message arrived at `now`.
    package mutating func received(_ message: CastMessage, now: Duration) -> [Action] {
        guard isRunning else { return [] }
        heartbeat.received(at: now)
        // Only messages meant for this sender: unicast to our id, or a broadcast.
        guard message.destinationId == configuration.senderId || message.destinationId == CastEndpoint.broadcast
            || message.namespace == CastNamespace.heartbeat.rawValue
        else { return [] }
        switch message.namespace {
        case CastNamespace.deviceAuth.rawValue:
            guard let wait = deviceAuth else { return [] }
            deviceAuth = nil
            return [.deviceAuthEnded(wait.waiter, .answered(message))]
        case CastNamespace.heartbeat.rawValue:
            guard Self.envelope(of: message).type == "PING" else { return [] }
            // Answer with the ids swapped, whether the PING came from receiver-0 or Tr@n$p0rt-0.
            return [.send(message.reply(.string(#"{"type":"PONG"}"#)))]
        case CastNamespace.connection.rawValue:
            guard Self.envelope(of: message).type == "CLOSE" else { return [] }
            return virtualConnectionClosed(by: message.sourceId)
        default:
            break
        }
        let channelMessage = CastChannelMessage(message)
        var actions: [Action] = []
        if channelMessage.namespace == CastNamespace.receiver.rawValue, channelMessage.type == "RECEIVER_STATUS" {
            do {
                if let status = try ReceiverStatus.read(from: channelMessage) {
                    receiverStatus = status
                    actions += reconcilePlugins(with: status)
                    actions.append(.publish(.receiverStatus(status)))
                }
            } catch {
                actions.append(.warn("Malformed RECEIVER_STATUS: \(error)"))
            }
        }
        for slot in plugins.values where slot.namespace == channelMessage.namespace {
            if let link = slot.link, link.transportId == channelMessage.sourceId {
                actions.append(.deliver(slot.handle, link, channelMessage))
            }
        }
        actions.append(.publishMessage(channelMessage))
        // The request last: resuming it wakes the thread its caller waits on, and whatever this thread
        // still does after that wake-up delays it (on a two-core virtual machine the woken thread then
        // starts on the other, idle core, which costs more than the work done first: a plugin that takes
        // the reply at once, such as the media channel decoding a MEDIA_STATUS, leaves it decoded).
        if let (_, entry) = tracker.match(channelMessage) {
            actions.append(.completeRequest(entry.waiter, channelMessage))
        }
        return actions
    }

    private static func envelope(of message: CastMessage) -> JSONEnvelope {
        guard case .string(var text) = message.payload else { return JSONEnvelope([UInt8]()) }
        return text.withUTF8 { JSONEnvelope($0) }
    }

    /// The receiver sent CLOSE for the virtual connection from `endpoint` to us.
    private mutating func virtualConnectionClosed(by endpoint: String) -> [Action] {
        virtualConnections.remove(endpoint)
        let error = CastChannelError(code: .appClosed, message: "\(endpoint) closed the virtual connection")
        var actions: [Action] = tracker.removeAll(destinationId: endpoint).map { .failRequest($0.waiter, error) }
        for (key, slot) in plugins {
            guard let link = slot.link, link.transportId == endpoint else { continue }
            plugins[key]?.link = nil
            actions.append(.disconnectPlugin(slot.handle, link, .closedByReceiver))
        }
        if endpoint != CastEndpoint.platform { actions.append(.publish(.appClosed(transportId: endpoint))) }
        return actions
    }

    // MARK: - Plugins

    /// Adds a plugin under `key`.
    /// - Returns: the actions that connect it when it can connect now.
    /// - Throws: the connection's end when it has ended (a plugin added then would never be told
    ///   anything, nor its mailbox ended); `.invalidNamespace` when it, or another plugin for the same
    ///   namespace and endpoint, was added.
    package mutating func add(
        _ handle: Plugin, key: ObjectIdentifier, namespace: String, endpoint: CastChannelEndpoint
    ) throws(CastChannelError) -> [Action] {
        try throwIfEnded()
        let clash = plugins.values.contains { $0.namespace == namespace && $0.endpoint == endpoint }
        guard plugins[key] == nil, !clash else {
            throw CastChannelError(code: .invalidNamespace, message: "A channel for \(namespace) is already added")
        }
        nextGeneration += 1
        plugins[key] = PluginSlot(handle: handle, namespace: namespace, endpoint: endpoint, generation: nextGeneration)
        guard isRunning else { return [] }
        if endpoint == .platform { return connectPlatformPlugins() }
        if let receiverStatus { return reconcilePlugins(with: receiverStatus) }
        return []
    }

    /// Removes the plugin under `key`; it is told `.removed` if it was connected, and tasks waiting
    /// for it to connect fail with `.notConnected`.
    package mutating func remove(key: ObjectIdentifier) -> [Action] {
        drop(key: key, reason: .removed, because: "was removed from the connection")
    }

    /// The plugin under `key` has `limit` received messages it has not taken: it stopped reading,
    /// and is dropped from the connection as a peer that stops reading is. It is told `.overloaded`
    /// after the messages it was already handed; the message that found its mailbox full is not
    /// delivered to it.
    package mutating func pluginFellBehind(key: ObjectIdentifier, limit: Int) -> [Action] {
        guard let namespace = plugins[key]?.namespace else { return [] }
        return [.warn("The plugin for \(namespace) left \(limit) received messages untaken; it is removed from the connection")]
            + drop(key: key, reason: .overloaded, because: "was removed from the connection: it fell \(limit) messages behind")
    }

    private mutating func drop(key: ObjectIdentifier, reason: CastChannelDisconnectReason, because: String) -> [Action] {
        guard let slot = plugins.removeValue(forKey: key) else { return [] }
        var actions: [Action] = []
        if let link = slot.link { actions.append(.disconnectPlugin(slot.handle, link, reason)) }
        actions.append(.finishPlugin(slot.handle))
        if !slot.connectWaiters.isEmpty {
            let error = CastChannelError(code: .notConnected, message: "\(slot.namespace) \(because)")
            actions.append(.resumeConnectWaiters(slot.handle, slot.connectWaiters, .failure(error)))
        }
        return actions
    }

    /// The link of the plugin under `key` once the connection has connected it.
    package func link(for key: ObjectIdentifier) -> Link? { plugins[key]?.link }

    /// A task waits until the plugin under `key` is connected and its `channelDidConnect` returned.
    /// - Returns: the link when that is already so; `nil` when `waiter` was queued.
    /// - Throws: the connection's end, or `.notConnected` when the plugin was never added.
    package mutating func waitUntilConnected(key: ObjectIdentifier, namespace: String, waiter: Types.ConnectWaiter) throws(CastChannelError) -> Link? {
        try throwIfEnded()
        guard let slot = plugins[key] else {
            throw CastChannelError(code: .notConnected, message: "\(namespace) was never added to this connection")
        }
        if let delivered = slot.delivered { return delivered }
        plugins[key]?.connectWaiters.append(waiter)
        return nil
    }

    /// The plugin's `channelDidConnect` for `link` returned; ignored when `generation` is not the
    /// plugin's current one (a call its earlier, removed registration still delivered).
    package mutating func connectDelivered(key: ObjectIdentifier, generation: Int? = nil, link: Link) -> [Action] {
        guard let slot = plugins[key], generation.map({ $0 == slot.generation }) ?? true,
            slot.link?.transportId == link.transportId
        else { return [] }
        plugins[key]?.delivered = link
        plugins[key]?.connectWaiters = []
        return slot.connectWaiters.isEmpty ? [] : [.resumeConnectWaiters(slot.handle, slot.connectWaiters, .success(link))]
    }

    /// The plugin is about to be told of the disconnect of `link`; ignored for another generation.
    package mutating func disconnectDelivered(key: ObjectIdentifier, generation: Int? = nil, link: Link) {
        guard let slot = plugins[key], generation.map({ $0 == slot.generation }) ?? true else { return }
        if slot.delivered?.transportId == link.transportId { plugins[key]?.delivered = nil }
    }

    /// The generation of the plugin under `key` (see `PluginSlot.generation`); `nil` when it is not added.
    package func generation(of key: ObjectIdentifier) -> Int? { plugins[key]?.generation }

    /// Connects every platform plugin not yet connected.
    package mutating func connectPlatformPlugins() -> [Action] {
        guard isRunning else { return [] }
        var actions: [Action] = []
        for (key, slot) in plugins where slot.endpoint == .platform && slot.link == nil {
            let link = Link(transportId: CastEndpoint.platform, sessionId: nil)
            plugins[key]?.link = link
            actions.append(.connectPlugin(slot.handle, link))
        }
        return actions
    }

    /// Connects plugins whose app now runs, disconnects those whose app left, fails the requests
    /// to apps that left.
    package mutating func reconcilePlugins(with status: ReceiverStatus) -> [Action] {
        guard isRunning else { return [] }
        let live = Set(status.applications.map { $0.transportId })
        var actions: [Action] = []
        var gone: Set<String> = []
        for (key, slot) in plugins {
            guard slot.endpoint == .application, let link = slot.link, !live.contains(link.transportId) else { continue }
            plugins[key]?.link = nil
            gone.insert(link.transportId)
            actions.append(.disconnectPlugin(slot.handle, link, .appStopped))
        }
        for endpoint in virtualConnections where endpoint != CastEndpoint.platform && !live.contains(endpoint) {
            gone.insert(endpoint)
        }
        virtualConnections.subtract(gone)
        for endpoint in gone.sorted() {
            let error = CastChannelError(code: .appClosed, message: "The app at \(endpoint) stopped")
            actions += tracker.removeAll(destinationId: endpoint).map { .failRequest($0.waiter, error) }
            actions.append(.publish(.appClosed(transportId: endpoint)))
        }
        for (key, slot) in plugins.sorted(by: { $0.value.namespace < $1.value.namespace })
        where slot.endpoint == .application && slot.link == nil {
            guard let app = status.applications.first(where: { $0.namespaces.contains(slot.namespace) }) else { continue }
            actions += openVirtualConnection(to: app.transportId)
            let link = Link(transportId: app.transportId, sessionId: app.sessionId)
            plugins[key]?.link = link
            actions.append(.connectPlugin(slot.handle, link))
        }
        return actions
    }

    // MARK: - Messages

    /// CLOSE for the virtual connection to `destination`.
    package func closeMessage(to destination: String) -> CastMessage {
        CastMessage(
            sourceId: configuration.senderId, destinationId: destination, namespace: CastNamespace.connection.rawValue,
            json: ["type": "CLOSE", "reasonCode": 5])
    }

    /// CONNECT for the virtual connection to `destination`, with this sender's description.
    package func connectMessage(to destination: String) -> CastMessage {
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
}
