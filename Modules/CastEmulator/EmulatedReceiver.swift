import CastCore
import CastJSON
import CastStreaming
import CastTLS
import Foundation
import Logging
import NIOCore
import NIOPosix

/// An emulated Google Cast device: strict like real hardware, for tests and demos without hardware.
///
/// It runs the Default Media Receiver (with queues and a simulated playback clock), the Backdrop idle
/// app on video devices, custom apps with their own namespaces, and the multizone status of a group.
/// It answers what a real device answers, drops what a real device drops, and records every sender
/// mistake in ``violations``.
///
/// ```swift
/// let receiver = EmulatedReceiver(configuration: .init(name: "Living Room TV"))
/// try await receiver.start()              // TLS on 127.0.0.1, a free port
/// let port = await receiver.port!
/// // … drive it with any Cast sender …
/// #expect(await receiver.violations.isEmpty)
/// await receiver.stop()
/// ```
///
/// Tests that need no sockets can hand it any `CastTransport` with ``accept(_:)``, for example one
/// end of an `InMemoryCastTransport.pair()`.
///
/// Like a device, it runs on one thread: the actor's executor is one SwiftNIO event loop, the loop
/// its listener's sockets are served on, so a request is read, answered and its reply written there
/// with no hand-off between threads.
public actor EmulatedReceiver {
    /// The device description this receiver was created with.
    public nonisolated let configuration: EmulatedReceiverConfiguration
    /// The event loop the receiver runs on, and its sockets with it.
    nonisolated let loop: any EventLoop

    /// Runs the receiver on its event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    enum Phase { case idle, running, stopped }

    private struct Connection {
        var transport: any CastTransport
        var outbox: AsyncStream<Outgoing>.Continuation
        var tasks: [Task<Void, Never>]
        /// Events of this socket waiting in the loop's queue (see ``accept(_:)``): while there are any, the
        /// socket's next events queue behind them.
        var queued = 0
    }

    private enum Outgoing: Sendable {
        case message(CastMessage, due: Duration)
        case close
    }

    var engine: ReceiverEngine
    /// How deep the receiver is in ``perform(_:)``: a socket's event that arrives meanwhile is queued.
    private var performing = 0
    let clock: ElapsedClock
    /// Whether the clock is the system's, so timers can be tasks on the event loop (see ``rearm()``);
    /// decided once, not with a dynamic cast per request.
    private let timersOnLoop: Bool
    private let advertiser: (any EmulatedReceiverAdvertiser)?
    let logger: Logger
    var phase = Phase.idle
    private var connections: [Int: Connection] = [:]
    private var nextSocket = 1
    private var timer: ArmedTimer?
    private var armedDeadline: Duration?
    /// When the timer last fired (its deadlines must be later than that).
    private var lastTimerFire: Duration?
    private var listener: (any EmulatedReceiverListener)?
    private var listenerEventsTask: Task<Void, Never>?
    /// Connections the listener evicted before TLS since the last log line about it, and when that was.
    private var evictedSinceLog = 0
    private var lastEvictionLog: Duration?
    private var advertisedStatus: String?
    private var boundPort: Int?
    private var eurekaServers: [EurekaServer] = []
    private var eurekaState: EmulatedReceiverEurekaPorts?
    private var tlsIdentity: TLSCredentials?
    /// Fetches content for held media requests (media fetching on), with what it fetched so far,
    /// who follows new fetches and the fetches in flight.
    let fetcher: MediaFetcher?
    var fetchLog: [EmulatedReceiverFetch] = []
    var fetchSubscribers: [Int: AsyncStream<EmulatedReceiverFetch>.Continuation] = [:]
    var fetchTasks: [Int: Task<Void, Never>] = [:]
    var nextFetchId = 1
    /// The mirroring session's UDP socket and recorder, while a mirroring app runs.
    var streaming: StreamingSocket?
    /// Mirroring sessions that ended, oldest first.
    var endedMirroringSessions: [EmulatedReceiverMirroringSession] = []
    var mirroringSubscribers: [Int: AsyncStream<EmulatedReceiverMirroringSession>.Continuation] = [:]

    /// Creates a receiver. Nothing listens until ``start()``; ``accept(_:)`` works at once.
    /// - Parameters:
    ///   - configuration: the device and its behaviour.
    ///   - advertiser: publishes the device over mDNS when given (see ``EmulatedReceiverAdvertiser``).
    ///   - logger: where the receiver logs connections and violations.
    public init(
        configuration: EmulatedReceiverConfiguration = EmulatedReceiverConfiguration(),
        advertiser: (any EmulatedReceiverAdvertiser)? = nil,
        logger: Logger = Logger(label: "castor.receiver")
    ) {
        self.configuration = configuration
        self.loop = MultiThreadedEventLoopGroup.singleton.next()
        var settings = ReceiverEngine.Settings(configuration)
        let clock = ElapsedClock(configuration.clock)
        settings.ntpTimeline = NTPTimeline.sampling(local: { clock.elapsed() })
        self.engine = ReceiverEngine(settings: settings)
        self.clock = clock
        self.timersOnLoop = configuration.clock is ContinuousClock || configuration.clock is SuspendingClock
        self.fetcher = configuration.mediaFetching.map {
            MediaFetcher(
                settings: $0, clock: ElapsedClock(configuration.clock), profile: configuration.profile,
                hdmiPassthrough: configuration.hdmiPassthrough)
        }
        self.advertiser = advertiser
        self.logger = logger
    }

    // MARK: State for tests and tools

    /// Every sender mistake seen so far, in order (the newest 10 000: a hostile sender cannot make the
    /// record grow without bound).
    public var violations: [EmulatedReceiverViolation] { engine.violations }

    /// The TCP port the receiver listens on, once started.
    public var port: Int? { boundPort }

    /// Where `/setup/eureka_info` is served, once started with ``EmulatedReceiverConfiguration/eureka`` set.
    public var eurekaPorts: EmulatedReceiverEurekaPorts? { eurekaState }

    /// How many sender sockets are open.
    public var connectionCount: Int { connections.count }

    /// The current RECEIVER_STATUS `status` object, as a GET_STATUS would report it.
    public var receiverStatus: JSONValue {
        catchUp()
        return engine.receiverStatusBody
    }

    /// The current MEDIA_STATUS `status` array of the running media app (`nil` when no media app runs).
    public var mediaStatus: JSONValue? {
        catchUp()
        guard let media = engine.app?.media else { return nil }
        return media.status(requestId: 0, at: clock.elapsed())["status"]
    }

    /// The advertisement the device publishes (TXT record with the current `rs`), once it listens.
    public var advertisement: EmulatedReceiverAdvertisement? {
        guard let boundPort else { return nil }
        return EmulatedReceiverAdvertisement(
            configuration: configuration, port: boundPort, runningAppStatus: engine.runningAppStatusText)
    }

    /// Changes a group member's volume, as if set on the speaker itself, and broadcasts DEVICE_UPDATED.
    /// - Returns: `false` when the group has no member with that id.
    @discardableResult
    public func setMemberVolume(id: UUID, level: Double? = nil, muted: Bool? = nil) -> Bool {
        catchUp()
        let (found, actions) = engine.updateMember(id: id, level: level, muted: muted)
        perform(actions)
        return found
    }

    // MARK: Lifecycle

    /// Listens for senders over TLS on the configured host and port, and starts the advertiser.
    /// - Throws: ``EmulatedReceiverError`` (`.alreadyStarted`, `.listenFailed`, `.advertiseFailed`).
    public func start() async throws(EmulatedReceiverError) {
        guard phase == .idle else {
            throw EmulatedReceiverError(code: .alreadyStarted, message: "The receiver was already started")
        }
        phase = .running
        let listener: any EmulatedReceiverListener
        do {
            // The TLS certificate is fixed before listening: device authentication signs over its DER.
            let credentials: TLSCredentials
            if let given = configuration.tlsCredentials {
                credentials = given
            } else {
                credentials = try await TLSCredentials.selfSignedInBackground()
            }
            engine.settings.tlsCertificateDER = credentials.certificateDER
            tlsIdentity = credentials
            // A connection is served from the moment its handshake completes, on this receiver's loop
            // (the listener's): no task on another thread in between, so the sender's first request,
            // sent right after its handshake, does not wait for one.
            listener = try await TLSReceiverListener.listen(
                host: configuration.host, port: configuration.port, credentials: credentials,
                limits: configuration.connectionLimits, clock: configuration.clock, loop: loop
            ) { [weak self] transport in
                guard let self else {
                    Task { await transport.close() }
                    return
                }
                self.acceptOnLoop(transport)
            }
        } catch {
            phase = .stopped
            throw EmulatedReceiverError(
                code: .listenFailed, message: "Cannot listen on \(configuration.host):\(configuration.port)", cause: error)
        }
        self.listener = listener
        boundPort = listener.port
        let events = listener.events
        listenerEventsTask = Task { [weak self] in
            for await event in events { await self?.listenerReported(event) }
        }
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(listener.port)"])
        if let eureka = configuration.eureka, let advertisement {
            await startEureka(eureka, info: EurekaInfo(advertisement: advertisement, kind: configuration.kind))
        }
        if let advertiser, let advertisement {
            do {
                try await advertiser.start(advertisement)
                advertisedStatus = advertisement.txt["rs"]
            } catch {
                await stop()
                throw EmulatedReceiverError(code: .advertiseFailed, message: "Cannot advertise the device", cause: error)
            }
        }
    }

    /// Stops listening, closes every sender socket and withdraws the advertisement. Idempotent.
    public func stop() async {
        guard phase != .stopped else { return }
        let wasAdvertised = phase == .running && advertisedStatus != nil
        phase = .stopped
        listenerEventsTask?.cancel()
        listenerEventsTask = nil
        timer?.cancel()
        timer = nil
        armedDeadline = nil
        if let listener { await listener.close() }
        listener = nil
        for server in eurekaServers { await server.close() }
        eurekaServers = []
        let open = connections
        connections = [:]
        for (socket, connection) in open {
            engine.closed(socket: socket)
            connection.outbox.finish()
            for task in connection.tasks { task.cancel() }
            await connection.transport.close()
        }
        stopFetching()
        endStreaming(final: engine.mirroringSnapshot)
        for subscriber in mirroringSubscribers.values { subscriber.finish() }
        mirroringSubscribers = [:]
        if wasAdvertised, let advertiser { await advertiser.stop() }
    }

    /// A connection the listener accepted, handed over on the listener's event loop, which is this
    /// receiver's executor: served there at once (through a task on the loop only if it ever came from
    /// another thread).
    private nonisolated func acceptOnLoop(_ transport: any CastTransport) {
        if loop.inEventLoop {
            assumeIsolated { $0.accept(transport) }
        } else {
            loop.execute { self.assumeIsolated { $0.accept(transport) } }
        }
    }

    /// Serves one sender over `transport` (a TLS socket accepted elsewhere, or an in-memory transport).
    /// The receiver owns the transport from now on and closes it when it drops the sender.
    public func accept(_ transport: any CastTransport) {
        guard phase != .stopped else {
            Task { await transport.close() }
            return
        }
        catchUp()
        let socket = nextSocket
        nextSocket += 1
        engine.open(socket: socket, now: clock.elapsed())
        let (outbox, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        let latency = configuration.replyLatency
        let clock = self.clock
        let writer = Task { [weak self] in
            for await item in outbox {
                switch item {
                case .message(let message, let due):
                    if latency > .zero { try? await clock.sleepUntil(due) }
                    do {
                        try transport.send(message)
                    } catch let error as CastTransportError where error.code == .messageTooLarge {
                        // Nothing was written: the socket is fine, only this message is lost.
                        await self?.notSent(message, socket: socket, error: error)
                    } catch {
                        await self?.transportEnded(socket: socket, error: error)
                        return
                    }
                case .close:
                    await transport.close()
                    return
                }
            }
        }
        connections[socket] = Connection(transport: transport, outbox: continuation, tasks: [writer])
        // Each event is handled on the receiver's loop, never handed to another thread. A TLS socket of the
        // receiver's listener delivers on that loop, from the loop's reads: its message is handled at once, in
        // the read that decoded it, with no task per message (``serveOrQueue(_:from:)``). Every other transport
        // (in memory: the sender's thread, which may be this loop in the middle of the receiver's own actions)
        // has its events queued behind what the loop is doing, in the order they came. The connection is
        // registered first, so that events that came before this method find it, whether the transport hands
        // them over during this call (in memory) or in a later task on its loop (TLS).
        let loop = self.loop
        let servesInRead = (transport.taskExecutor as? EventLoopTaskExecutor)?.runs(on: loop) ?? false
        transport.deliverInbound { [weak self] event in
            guard let receiver = self else { return }
            if servesInRead, loop.inEventLoop {
                receiver.assumeIsolated { $0.serveOrQueue(event, from: socket) }
            } else {
                loop.execute { receiver.assumeIsolated { $0.serve(event, from: socket) } }
            }
        }
        logger.debug("sender connected", metadata: ["socket": "\(socket)", "peer": "\(transport.peerDescription)"])
        rearm()
    }

    /// Serves eureka_info on the configured ports; a port that cannot be bound is logged and skipped.
    private func startEureka(_ eureka: EmulatedReceiverEureka, info: EurekaInfo) async {
        var state = EmulatedReceiverEurekaPorts(http: nil, https: nil, problems: [])
        let tls = tlsIdentity
        for (port, secure) in [(eureka.httpPort, false), (eureka.httpsPort, true)] where port > 0 {
            do {
                let logger = self.logger
                let listener = "eureka_info over \(secure ? "HTTPS" : "HTTP")"
                let server = try await EurekaServer.start(
                    host: configuration.host, port: port, info: info, tls: secure ? tls : nil,
                    limits: configuration.connectionLimits
                ) { event in Self.logAcceptPause(event, listener: listener, logger: logger) }
                eurekaServers.append(server)
                if secure { state.https = server.port } else { state.http = server.port }
            } catch {
                let problem = "cannot serve eureka_info over \(secure ? "HTTPS" : "HTTP") on \(configuration.host):\(port): \(error)"
                state.problems.append(problem)
                logger.warning("eureka", metadata: ["problem": "\(problem)"])
            }
        }
        eurekaState = state
    }

    // MARK: Driving the state machine

    /// An event of a socket that delivers on the receiver's loop: handled now, unless the receiver is
    /// carrying out actions (a read nested in one of its own writes, as a TLS end of input can fire) or
    /// events of the same socket already wait in the loop's queue; then it is queued behind them.
    private func serveOrQueue(_ event: CastInboundEvent, from socket: Int) {
        if performing == 0, connections[socket]?.queued == 0 {
            serve(event, from: socket)
            return
        }
        connections[socket]?.queued += 1
        loop.execute {
            self.assumeIsolated { receiver in
                receiver.connections[socket]?.queued -= 1
                receiver.serve(event, from: socket)
            }
        }
    }

    private func serve(_ event: CastInboundEvent, from socket: Int) {
        switch event {
        case .message(let message): handle(message, from: socket)
        case .ended(let error): transportEnded(socket: socket, error: error)
        }
    }

    func handle(_ message: CastMessage, from socket: Int) {
        guard connections[socket] != nil else { return }
        if logger.logLevel <= .debug, message.namespace != Wire.heartbeat {
            let payload: String
            switch message.payload {
            case .string(let text): payload = text.count > 512 ? String(text.prefix(512)) + "…" : text
            case .binary(let data): payload = "<\(data.count) bytes>"
            }
            logger.debug("received", metadata: [
                "socket": "\(socket)", "from": "\(message.sourceId)", "to": "\(message.destinationId)",
                "namespace": "\(message.namespace)", "payload": "\(payload)",
            ])
        }
        let before = engine.violationCount
        perform(engine.receive(message, from: socket, now: clock.elapsed()))
        logNewViolations(since: before)
        rearm()
        refreshAdvertisement()
    }

    /// Logs what the listener did to protect itself, with its typed reason; a sender that never
    /// finished its handshake is also a violation (connection 0: it never got a number).
    private func listenerReported(_ event: CastTransportServer.Event) {
        switch event {
        case .handshakeFailed(let peer, let error) where error.code == .handshakeTimeout:
            logger.notice("sender dropped before TLS", metadata: ["reason": "\(error.code)", "peer": "\(peer)", "detail": "\(error.message)"])
            let before = engine.violationCount
            engine.record(.handshakeTimeout, error.message, socket: 0)
            logNewViolations(since: before)
        case .handshakeFailed(let peer, let error) where error.code == .evicted:
            // Under a flood of idle connections there can be thousands a second: one line a second at most.
            evictedSinceLog += 1
            let now = clock.elapsed()
            guard lastEvictionLog.map({ now - $0 >= .seconds(1) }) ?? true else { return }
            logger.notice("sender dropped before TLS", metadata: [
                "reason": "\(error.code)", "peer": "\(peer)", "evicted": "\(evictedSinceLog)",
                "detail": "short of file descriptors: connections that had not finished their TLS handshake were closed to admit others"])
            evictedSinceLog = 0
            lastEvictionLog = now
        case .handshakeFailed(let peer, let error):
            logger.info("TLS handshake failed", metadata: ["reason": "\(error.code)", "peer": "\(peer)", "detail": "\(error.message)"])
        case .acceptFailed, .acceptPaused, .acceptResumed:
            Self.logAcceptPause(event, listener: "cast", logger: logger)
        case .readingPaused(let peer, let limit):
            logger.notice("sender not reading its replies; stopped reading from it", metadata: [
                "reason": "unsentBytesLimit", "peer": "\(peer)", "limit": "\(limit)"])
        case .readingResumed(let peer):
            logger.info("sender caught up; reading from it again", metadata: ["peer": "\(peer)"])
        }
    }

    /// Logs an accept pause or resumption of one of the device's listeners (Cast, eureka_info),
    /// with its typed reason.
    private nonisolated static func logAcceptPause(_ event: CastTransportServer.Event, listener: String, logger: Logger) {
        switch event {
        case .acceptFailed(let error, let backoff):
            logger.warning("accept failed; pausing accept", metadata: [
                "reason": "acceptFailed", "listener": "\(listener)", "detail": "\(error.message)",
                "backoff": "\(backoff.castDescription)"])
        case .acceptPaused(let free, let reserve, let backoff):
            logger.warning("few file descriptors left; pausing accept", metadata: [
                "reason": "descriptorReserve", "listener": "\(listener)", "free": "\(free)", "reserve": "\(reserve)",
                "backoff": "\(backoff.castDescription)"])
        case .acceptResumed(let free):
            logger.info("file descriptors free again; accepting", metadata: ["listener": "\(listener)", "free": "\(free)"])
        case .handshakeFailed, .readingPaused, .readingResumed:
            break
        }
    }

    /// A message the engine produced that no Cast frame can carry (nothing was written): logged, the
    /// socket stays open. The engine makes every status fit; this is the net under it.
    private func notSent(_ message: CastMessage, socket: Int, error: CastTransportError) {
        logger.error("message not sent: too large for a Cast frame", metadata: [
            "socket": "\(socket)", "namespace": "\(message.namespace)", "to": "\(message.destinationId)",
            "bytes": "\(message.encodedSize)", "detail": "\(error.message)"])
    }

    /// The socket's transport ended. Whoever ended it, the log says why: at `notice` when the receiver's
    /// side closed it (a frame error, a TLS error such as a KeyUpdate flood, a peer that stopped reading,
    /// a reset), at `info` when the sender closed it cleanly.
    private func transportEnded(socket: Int, error: (any Error)?) {
        guard let connection = connections[socket] else { return }
        let peer = connection.transport.peerDescription
        let transportError = error.map(Self.transportError)
        if let error = transportError, error.code == .peerNotReading {
            logger.notice("sender dropped", metadata: [
                "socket": "\(socket)", "peer": "\(peer)", "reason": "\(error.code)", "detail": "\(error.message)"])
            let before = engine.violationCount
            engine.record(.notReading, error.message, socket: socket)
            logNewViolations(since: before)
        }
        if let error = transportError, [.frameTooLarge, .emptyFrame, .malformedMessage].contains(error.code) {
            let before = engine.violationCount
            perform(engine.invalidFrame(socket: socket, reason: error.message))
            logNewViolations(since: before)
        } else {
            engine.closed(socket: socket)
            connections[socket] = nil
            connection.outbox.finish()
            Task { await connection.transport.close() }
            if let error = transportError, ![.peerClosed, .closed, .peerNotReading].contains(error.code) {
                logger.notice("sender dropped", metadata: [
                    "socket": "\(socket)", "peer": "\(peer)", "reason": "\(error.code)", "detail": "\(error.message)"])
            } else if transportError?.code != .peerNotReading {  // that one was logged above
                logger.info("sender disconnected", metadata: [
                    "socket": "\(socket)", "peer": "\(peer)", "reason": "\(transportError?.code ?? .peerClosed)"])
            }
        }
        rearm()
    }

    /// Any error a transport ended with, as a transport error.
    private static func transportError(_ error: any Error) -> CastTransportError {
        if let error = error as? CastTransportError { return error }
        return CastTransportError(code: .io, message: "\(error)")
    }

    /// Runs timers that are due (the timer task may not have run yet) so reads see current state.
    func catchUp() {
        guard phase != .stopped else { return }
        perform(engine.tick(now: clock.elapsed()))
    }

    func perform(_ actions: [ReceiverAction]) {
        performing += 1
        defer { performing -= 1 }
        let now = clock.elapsed()
        for action in actions {
            switch action {
            case .send(let socket, let message):
                guard let connection = connections[socket] else { continue }
                // Without a simulated latency, the transport takes the reply directly (no writer-task hop).
                if configuration.replyLatency == .zero {
                    do {
                        try connection.transport.send(message)
                    } catch where error.code == .messageTooLarge {
                        notSent(message, socket: socket, error: error)
                    } catch {
                        connection.outbox.yield(.message(message, due: now))  // the writer reports the failure
                    }
                } else {
                    connection.outbox.yield(.message(message, due: now + configuration.replyLatency))
                }
            case .close(let socket, let reason):
                guard let connection = connections.removeValue(forKey: socket) else { continue }
                connection.outbox.yield(.close)
                connection.outbox.finish()
                logger.notice("sender dropped", metadata: [
                    "socket": "\(socket)", "peer": "\(connection.transport.peerDescription)", "reason": "\(reason)"])
            case .fetch(let plan):
                startFetching(plan)
            case .warn(let text):
                logger.error("\(text)")
            case .openStreamingPort, .closeStreamingPort, .sendDatagram, .mirroring:
                performStreaming(action)
            }
        }
    }

    /// Logs the violations recorded since the engine's ``ReceiverEngine/violationCount`` was `count`.
    func logNewViolations(since count: Int) {
        for violation in engine.violations.suffix(min(engine.violationCount - count, engine.violations.count)) {
            logger.notice("violation", metadata: ["detail": "\(violation)"])
        }
    }

    /// Makes sure a timer wakes at the engine's next deadline (a timer that fires early just re-arms).
    ///
    /// On the system clock the timer is a task scheduled on the receiver's own event loop: arming and
    /// cancelling it touch no other thread. Nearly every command moves the deadline (a SEEK forward
    /// brings the end of the item closer), and a sleeping `Task` per deadline cost each command a
    /// cancellation and a new task, two wake-ups of other threads on a device that should run on one.
    /// An injected clock (a test's manual clock) is slept on by a task, as only it knows its time.
    func rearm() {
        guard phase != .stopped, var deadline = engine.nextDeadline else { return }
        // A deadline that is already past when it is armed again means a machine reported one it had acted
        // on; firing it at once, again and again, would keep the loop running timers and never reading its
        // sockets. Such a deadline waits a millisecond (and is a bug of the machine, caught by its tests).
        if let fired = lastTimerFire, deadline <= fired { deadline = fired + .milliseconds(1) }
        if let armed = armedDeadline, armed <= deadline, timer != nil { return }
        timer?.cancel()
        armedDeadline = deadline
        if timersOnLoop {
            // At most a day ahead: a sender may load media that lasts centuries, and a timer that fires
            // early only re-arms (near NIO's nanosecond limit its deadline arithmetic would overflow).
            let delay = min(max(.zero, deadline - clock.elapsed()), .seconds(86_400))
            timer = .scheduled(loop.scheduleTask(in: TimeAmount(delay)) { [weak self] in
                self?.assumeIsolated { $0.timerFired() }
            })
            return
        }
        let clock = self.clock
        timer = .task(Task { [weak self] in
            do {
                try await clock.sleepUntil(deadline)
            } catch {
                return
            }
            await self?.timerFired()
        })
    }

    private func timerFired() {
        timer = nil
        armedDeadline = nil
        lastTimerFire = clock.elapsed()
        guard phase != .stopped else { return }
        let before = engine.violationCount
        perform(engine.tick(now: clock.elapsed()))
        logNewViolations(since: before)
        rearm()
        refreshAdvertisement()
    }

    /// Republishes the TXT record when the running app's status text changed.
    func refreshAdvertisement() {
        // Every request ends here: a receiver that advertises nothing looks at nothing else.
        guard let advertiser else { return }
        guard let advertisedStatus, let advertisement,
            advertisement.txt["rs"] != advertisedStatus
        else { return }
        self.advertisedStatus = advertisement.txt["rs"]
        Task { await advertiser.update(advertisement) }
    }
}

/// The receiver's one armed timer: a task scheduled on its event loop, or a task sleeping on an injected clock.
private enum ArmedTimer {
    case scheduled(Scheduled<Void>)
    case task(Task<Void, Never>)

    func cancel() {
        switch self {
        case .scheduled(let scheduled): scheduled.cancel()
        case .task(let task): task.cancel()
        }
    }
}
