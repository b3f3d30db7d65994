public import NIOCore
import NIOPosix
import Synchronization

/// A TLS listener that accepts Cast senders: what an emulated receiver serves on.
///
/// Each accepted connection becomes a `CastTransport` once its TLS handshake completes;
/// connections whose handshake fails are closed without appearing (``events`` says why).
///
/// What one sender may cost is bounded (see ``Limits``): a deadline from accept to the finished
/// handshake, a cap on bytes queued for a sender that does not read (reading from it stops, and it
/// is dropped if it stays over), a cap on decoded messages not yet taken from `CastTransport.inbound`
/// (reading stops until they are), and admission under descriptor pressure: while few file descriptors
/// are left, a connection that has not finished its TLS handshake is closed for each new one accepted
/// (idle ones first, then those of the busiest peer address, then the oldest; never one that finished
/// its handshake), and accepting pauses only when there is none (or when accept fails), instead of a busy loop.
///
/// ```swift
/// let server = try await CastTransportServer.start(host: "127.0.0.1", port: 0,
///                                                  credentials: .selfSigned())
/// for await sender in server.connections { ... }
/// ```
public final class CastTransportServer: Sendable {
    /// Bounds on what one accepted sender may cost the server.
    public struct Limits: Sendable, Hashable {
        /// From TCP accept to the finished TLS handshake; past it the connection is closed
        /// (`CastTransportError.Code.handshakeTimeout`), or earlier when the server runs short of
        /// descriptors (`CastTransportError.Code.evicted`, see ``descriptorReserve``). Measured on the server's clock.
        public var handshakeTimeout: Duration
        /// Bytes waiting to be written to one sender before reading from it stops.
        public var maximumUnsentBytes: Int
        /// How long a sender may stay over ``maximumUnsentBytes`` before it is dropped
        /// (`CastTransportError.Code.peerNotReading`). Measured on the server's clock.
        public var unsentBytesTimeout: Duration
        /// Bytes of decoded messages one sender may have waiting for the consumer of its
        /// `CastTransport.inbound` before reading from it stops (until the consumer catches up).
        public var maximumQueuedInboundBytes: Int
        /// How long accepting pauses after accept failed (for example when file descriptors ran out)
        /// or left too few descriptors free; it resumes only once more than ``descriptorReserve`` are free.
        public var acceptBackoff: Duration
        /// File descriptors that accepting leaves free for the rest of the process; 0 turns the check off.
        ///
        /// Before each accept the server counts the descriptor numbers still free below the
        /// process's soft `RLIMIT_NOFILE` (Linux: `/proc/self/fd`); when no more than this many are,
        /// it makes room first: it closes one accepted connection that has not finished its TLS handshake
        /// (an idle one before one that spoke, one of the peer address holding the most before another,
        /// the oldest before a newer; none the server has not read yet: `CastTransportError.Code.evicted`), so that idle connections
        /// held open cannot keep a sender out. A connection that finished its handshake is never closed
        /// for room. With none to close, it stops accepting (``Event/acceptPaused(freeDescriptors:reserve:backoff:)``). While it
        /// accepts it also holds this many more descriptors open (on `/dev/null`), and gives them
        /// back when it pauses, so the process gets room even when something else took the
        /// descriptors or the limit was lowered under it (then accept fails: ``Event/acceptFailed(error:backoff:)``).
        /// It counts again every ``acceptBackoff`` and accepts again once more than twice this many
        /// are free (the spare ones are taken back first).
        ///
        /// Descriptors are the process's: in a process with many listeners, one of them keeping the
        /// reserve is enough (give the others 0).
        ///
        /// The process must never run out: the Swift runtime's libdispatch opens `/proc/<tid>/stat`
        /// about once a second while work is queued, and stops the process (a trap: `SIGILL`) when
        /// that open fails.
        public var descriptorReserve: Int

        /// Creates limits; the defaults suit a Cast device.
        public init(
            handshakeTimeout: Duration = .seconds(10), maximumUnsentBytes: Int = 1 << 20,
            unsentBytesTimeout: Duration = .seconds(10), maximumQueuedInboundBytes: Int = 1 << 20,
            acceptBackoff: Duration = .seconds(1), descriptorReserve: Int = 16
        ) {
            self.handshakeTimeout = handshakeTimeout
            self.maximumUnsentBytes = maximumUnsentBytes
            self.unsentBytesTimeout = unsentBytesTimeout
            self.maximumQueuedInboundBytes = maximumQueuedInboundBytes
            self.acceptBackoff = acceptBackoff
            self.descriptorReserve = descriptorReserve
        }
    }

    /// Something the server did to protect itself, for its owner's log.
    public enum Event: Sendable, CustomStringConvertible {
        /// A connection closed before its TLS handshake finished: `error` says why
        /// (`CastTransportError.Code.handshakeTimeout` when the deadline passed).
        case handshakeFailed(peer: String, error: CastTransportError)
        /// Accepting failed; the server stops accepting for `backoff` (and longer while no more than
        /// ``Limits/descriptorReserve`` descriptors are free).
        case acceptFailed(error: CastTransportError, backoff: Duration)
        /// Only `freeDescriptors` file descriptors are left (no more than `reserve`, see
        /// ``Limits/descriptorReserve``); the server stops accepting for `backoff`, and longer until more are free.
        case acceptPaused(freeDescriptors: Int, reserve: Int, backoff: Duration)
        /// More than ``Limits/descriptorReserve`` descriptors are free again (`freeDescriptors`,
        /// counted with the spare ones taken back); the server accepts again.
        case acceptResumed(freeDescriptors: Int)
        /// Reading from a sender stopped: more than the unsent-bytes limit waits for it.
        case readingPaused(peer: String, unsentBytesLimit: Int)
        /// The sender read what was queued; reading from it resumed.
        case readingResumed(peer: String)

        /// One line for a log.
        public var description: String {
            switch self {
            case .handshakeFailed(let peer, let error): "\(peer): TLS handshake failed: \(error)"
            case .acceptFailed(let error, let backoff): "accept failed (\(error)); pausing accept for \(backoff.castDescription)"
            case .acceptPaused(let free, let reserve, let backoff):
                "only \(free) file descriptors free (reserve \(reserve)); pausing accept for \(backoff.castDescription)"
            case .acceptResumed(let free): "\(free) file descriptors free; accepting again"
            case .readingPaused(let peer, let limit): "\(peer): not reading its replies (over \(limit) bytes unsent); stopped reading from it"
            case .readingResumed(let peer): "\(peer): read its replies; reading from it again"
            }
        }
    }

    private let channel: any Channel
    /// The accepted connections, in order; finishes when the server closes.
    public let connections: AsyncStream<any CastTransport>
    private let continuation: AsyncStream<any CastTransport>.Continuation
    /// What the server did to protect itself (the newest 256 are kept until read); finishes when it closes.
    public let events: AsyncStream<Event>
    private let eventContinuation: AsyncStream<Event>.Continuation
    /// The TLS credentials the server presents.
    public let credentials: TLSCredentials
    /// The port the server listens on (useful with port 0).
    public let port: Int
    /// The address the server listens on.
    public let host: String
    /// The limits every accepted connection runs under.
    public let limits: Limits

    private init(channel: any Channel, credentials: TLSCredentials, host: String, limits: Limits,
                 connections: (AsyncStream<any CastTransport>, AsyncStream<any CastTransport>.Continuation),
                 events: (AsyncStream<Event>, AsyncStream<Event>.Continuation)) {
        self.channel = channel
        self.credentials = credentials
        (self.connections, continuation) = connections
        (self.events, eventContinuation) = events
        self.host = host
        self.limits = limits
        port = channel.localAddress?.port ?? 0
    }

    /// Starts listening.
    /// - Parameters:
    ///   - host: the address to bind (`127.0.0.1`, `::1`, `0.0.0.0`...).
    ///   - port: the port; 0 picks a free one (read it from ``port``).
    ///   - credentials: the certificate to present; a fresh self-signed one (valid 2 days) by default.
    ///   - backlog: the listen backlog.
    ///   - limits: what one sender may cost.
    ///   - clock: the clock of the handshake and unsent-bytes deadlines (inject a manual one in tests).
    ///   - group: the event loop group; NIO's singleton by default.
    /// - Throws: `CastTransportError` `.io` when the address cannot be bound, `.tls` when credentials fail.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, credentials: TLSCredentials? = nil, backlog: Int32 = 256,
        limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(CastTransportError) -> CastTransportServer {
        let connections = AsyncStream<any CastTransport>.makeStream()
        let continuation = connections.continuation
        return try await start(
            host: host, port: port, credentials: credentials, backlog: backlog, limits: limits, clock: clock, group: group,
            connections: connections
        ) { continuation.yield($0) }
    }

    /// Starts listening, and hands each connection to `deliver` on the connection's event loop the
    /// moment its handshake completes, instead of to ``connections`` (which then stays empty). For an
    /// owner on that same loop (the emulated receiver, whose executor is its listener's loop): a
    /// connection is served without a hop through a task on another thread first.
    package static func start(
        host: String = "127.0.0.1", port: Int = 0, credentials: TLSCredentials? = nil, backlog: Int32 = 256,
        limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        deliver: @escaping @Sendable (any CastTransport) -> Void
    ) async throws(CastTransportError) -> CastTransportServer {
        try await start(
            host: host, port: port, credentials: credentials, backlog: backlog, limits: limits, clock: clock, group: group,
            connections: AsyncStream<any CastTransport>.makeStream(), deliver: deliver)
    }

    private static func start(
        host: String, port: Int, credentials: TLSCredentials?, backlog: Int32, limits: Limits, clock: any Clock<Duration>,
        group: any EventLoopGroup,
        connections: (stream: AsyncStream<any CastTransport>, continuation: AsyncStream<any CastTransport>.Continuation),
        deliver: @escaping @Sendable (any CastTransport) -> Void
    ) async throws(CastTransportError) -> CastTransportServer {
        let credentials = try await Self.credentials(credentials)
        let events = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let clock = ElapsedClock(clock)
        let backoff = limits.acceptBackoff
        let reserve = limits.descriptorReserve
        let pending = PendingHandshakes(now: clock.elapsed)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: backlog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // One accept per read, so the descriptor check runs after every accepted connection.
            .serverChannelOption(.maxMessagesPerRead, value: UInt(reserve > 0 ? 1 : 4))
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(AcceptPauseHandler(
                        backoff: backoff, reserve: reserve, freeDescriptors: DescriptorTable.freeDescriptors, pending: pending
                    ) { event in
                        events.continuation.yield(event)
                    })
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: max(1, limits.maximumUnsentBytes / 2), high: max(1, limits.maximumUnsentBytes)))
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try accept(child, credentials: credentials, limits: limits, clock: clock, pending: pending,
                               deliver: deliver, events: events.continuation)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw CastTransportError(code: .io, message: "Cannot listen on \(host):\(port): \(error)", cause: error)
        }
        return CastTransportServer(channel: channel, credentials: credentials, host: host, limits: limits,
                                   connections: connections, events: events)
    }

    /// Sets up one accepted connection (on its event loop): the pipeline, the handshake deadline, and
    /// its entry among the pending handshakes (for eviction under descriptor pressure).
    private static func accept(
        _ child: any Channel, credentials: TLSCredentials, limits: Limits, clock: ElapsedClock, pending: PendingHandshakes,
        deliver: @escaping @Sendable (any CastTransport) -> Void, events: AsyncStream<Event>.Continuation
    ) throws {
        let peer = child.remoteAddress.map(TLSCastTransport.describe) ?? "unknown peer"
        let core = ChannelTransportCore(inboundLimit: limits.maximumQueuedInboundBytes)
        // Whichever settles first, on the event loop: the handshake, its deadline, or an eviction.
        let settled = HandshakeOutcome()
        // Admitted among the pending handshakes at accept, on the listener's loop (AcceptPauseHandler),
        // before this setup ran on the connection's loop; a listener without one admits it here.
        let channelID = ObjectIdentifier(child)
        let token = pending.token(for: channelID)
            ?? pending.admitted(host: child.remoteAddress?.ipAddress ?? peer, channel: channelID) { Self.evict(child, pending: pending) }
        child.closeFuture.whenComplete { _ in pending.closed(channelID) }
        // A candidate for eviction only once its loop has had a turn to read it (the setup runs first, the
        // first read in the loop's next turn): a ClientHello that came with the TCP handshake is seen first.
        child.eventLoop.execute { child.eventLoop.execute { pending.ready(token) } }
        let gate = ReadGateHandler(
            core: core,
            unsentLimit: .init(
                bytes: limits.maximumUnsentBytes, timeout: limits.unsentBytesTimeout, clock: clock,
                report: { paused in
                    events.yield(paused ? .readingPaused(peer: peer, unsentBytesLimit: limits.maximumUnsentBytes) : .readingResumed(peer: peer))
                }),
            firstBytes: { pending.heard(token) })
        let (_, handshake) = try child.addCastHandlers(role: .server(credentials), core: core, gate: gate)
        let deadline = clock.elapsed() + limits.handshakeTimeout
        let watchdog = Task {
            do { try await clock.sleepUntil(deadline) } catch { return }
            child.eventLoop.execute {
                guard settled.settle() else { return }
                let error = CastTransportError(
                    code: .handshakeTimeout,
                    message: "\(peer) did not finish the TLS handshake within \(limits.handshakeTimeout.castDescription) of connecting")
                core.record(error)
                events.yield(.handshakeFailed(peer: peer, error: error))
                child.close(promise: nil)
            }
        }
        handshake.whenComplete { result in
            watchdog.cancel()
            let evicted = pending.wasEvicted(token)
            pending.left(token)
            guard settled.settle() else { return }
            switch result {
            case .success(let completed):
                deliver(TLSCastTransport(channel: child, core: core, handshake: completed))
            case .failure(let error):
                if evicted {
                    core.record(CastTransportError(
                        code: .evicted,
                        message: "\(peer) had not finished the TLS handshake when the server ran short of file descriptors; "
                            + "closed to admit another connection"))
                }
                events.yield(.handshakeFailed(peer: peer, error: core.closeReason ?? ChannelTransportCore.transportError(from: error)))
            }
        }
    }

    /// Closes a connection chosen for eviction (see ``PendingHandshakes``), on its event loop; its
    /// handshake then fails, and its setup reports `CastTransportError.Code.evicted`.
    static func evict(_ child: any Channel, pending: PendingHandshakes) {
        child.eventLoop.execute {
            let closed = child.eventLoop.makePromise(of: Void.self)
            closed.futureResult.whenComplete { _ in pending.evictionClosed() }
            child.close(promise: closed)
        }
    }

    private static func credentials(_ given: TLSCredentials?) async throws(CastTransportError) -> TLSCredentials {
        if let given { return given }
        do {
            return try await TLSCredentials.selfSignedInBackground()
        } catch {
            throw CastTransportError(code: .tls, message: "Cannot create TLS credentials: \(error.message)", cause: error)
        }
    }

    /// Stops listening. Accepted connections stay open; close them yourself.
    public func close() async {
        try? await channel.close()
        continuation.finish()
        eventContinuation.finish()
    }
}

/// Whether a server-side handshake has settled (finished, failed or timed out); only the first
/// settlement counts. Touched on the connection's event loop only, but shared with the watchdog task.
private final class HandshakeOutcome: Sendable {
    private let done = Mutex(false)

    /// Marks the handshake settled; `false` when it already was.
    func settle() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

/// Pauses accepting while the process is short of file descriptors, instead of spinning or
/// letting the process run out.
///
/// - Before each accept (NIO's `read()` on the listening channel, one accept per read) it counts
///   the free descriptors (`freeDescriptors`); when no more than `reserve` are left it holds the
///   read back and turns `autoRead` off (NIO then stops watching the listening socket). So
///   accepting never takes the last `reserve` descriptors, which the rest of the process needs:
///   libdispatch (under Swift concurrency) traps when it cannot open `/proc/<tid>/stat`.
/// - While accepting it holds `reserve` spare descriptors (``DescriptorSpares``) and closes them
///   when it pauses, so the process has room even when the count came too late: something else
///   took the descriptors, or the limit was lowered under the process.
/// - When accept fails for lack of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM) it pauses the same
///   way. The connection stays in the kernel's backlog, so the listening socket stays readable and
///   a plain retry would spin the event loop at 100 % CPU; NIO's `AcceptBackoffHandler` only
///   delays the next `read()`, which NIO never asks for when the failed accept was the first of
///   its read cycle.
/// - Every `backoff` it counts again; once more than twice `reserve` are free it takes the spares
///   back and turns `autoRead` on.
///
/// Other listeners of the package (the receiver's eureka_info server) use it too, holding no spares.
///
/// Loop-bound: used on the server channel's event loop only.
package final class AcceptPauseHandler: ChannelDuplexHandler {
    package typealias InboundIn = any Channel
    package typealias InboundOut = any Channel
    package typealias OutboundIn = Any
    package typealias OutboundOut = Any

    private let backoff: TimeAmount
    private let backoffDuration: Duration
    private let reserve: Int
    private let freeDescriptors: () -> Int?
    /// The server's connections that have not finished their handshake: closed one by one to make room
    /// at the reserve (`nil`: pause instead, as other listeners do).
    private let pending: PendingHandshakes?
    private let report: @Sendable (CastTransportServer.Event) -> Void
    private var paused = false
    private var resumeCheck: Scheduled<Void>?
    /// An accept held back until a pending connection is past its grace (see ``PendingHandshakes``).
    private var heldRead: Scheduled<Void>?
    /// Held while accepting, given back while paused.
    package let spares: DescriptorSpares

    /// - Parameters:
    ///   - backoff: how long a pause lasts before the descriptors are counted again.
    ///   - reserve: descriptors left free for the rest of the process; 0 turns the count off.
    ///   - freeDescriptors: counts the free descriptors (`nil` when it cannot tell).
    ///   - pending: connections not past their handshake, to close at the reserve instead of pausing.
    ///   - report: told of each pause and resumption.
    ///   - spares: the spare descriptors to hold while accepting (`reserve` of them).
    package init(backoff: Duration, reserve: Int, freeDescriptors: @escaping () -> Int? = DescriptorTable.freeDescriptors,
         pending: PendingHandshakes? = nil, spares: DescriptorSpares = DescriptorSpares(),
         report: @escaping @Sendable (CastTransportServer.Event) -> Void) {
        self.spares = spares
        self.pending = pending
        backoffDuration = backoff
        self.backoff = .nanoseconds(
            Int64(backoff.components.seconds) * 1_000_000_000 + backoff.components.attoseconds / 1_000_000_000)
        self.reserve = reserve
        self.freeDescriptors = freeDescriptors
        self.report = report
    }

    /// NIO asks for the next accept: let it through while more than the reserve is free; at the
    /// reserve, make room by closing a connection that has not finished its handshake (descriptors
    /// of connections already being closed count as free), and pause only when there is none.
    package func read(context: ChannelHandlerContext) {
        guard !paused else { return }
        guard heldRead == nil else { return }
        if reserve > 0, let free = freeDescriptors(), free <= reserve {
            if let pending {
                if free + pending.closing > reserve {
                    context.read()
                    return
                }
                switch pending.evictOne() {
                case .evicted:
                    context.read()
                    return
                case .wait(let delay):
                    holdRead(context: context, for: delay)
                    return
                case .none:
                    break
                }
            }
            report(.acceptPaused(freeDescriptors: free, reserve: reserve, backoff: backoffDuration))
            pause(context: context)
            return
        }
        context.read()
    }

    /// Asks for the accept again after `delay`, when a pending connection is past its grace.
    private func holdRead(context: ChannelHandlerContext, for delay: Duration) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let components = delay.components
        let amount = TimeAmount.nanoseconds(max(1_000_000, components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000))
        heldRead = context.eventLoop.scheduleTask(in: amount) {
            let (handler, context) = bound.value
            handler.heldRead = nil
            guard context.channel.isActive else { return }
            handler.read(context: context)
        }
    }

    /// An accepted connection: it joins the pending handshakes here, on the listener's loop, so that the
    /// next accept can already choose it for eviction (its own setup runs later, on its loop).
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let pending {
            let child = unwrapInboundIn(data)
            let channelID = ObjectIdentifier(child)
            pending.admitted(host: child.remoteAddress?.ipAddress ?? "unknown", channel: channelID) {
                CastTransportServer.evict(child, pending: pending)
            }
            // Also when the connection never gets set up (its registration failed): it leaves the registry.
            child.closeFuture.whenComplete { _ in pending.closed(channelID) }
        }
        context.fireChannelRead(data)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        guard !paused else { return }
        report(.acceptFailed(error: CastTransportError(code: .io, message: "\(error)", cause: error), backoff: backoffDuration))
        pause(context: context)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        spares.hold(reserve)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        resumeCheck?.cancel()
        resumeCheck = nil
        heldRead?.cancel()
        heldRead = nil
        spares.release()
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        resumeCheck?.cancel()
        resumeCheck = nil
        heldRead?.cancel()
        heldRead = nil
        spares.release()
    }

    private func pause(context: ChannelHandlerContext) {
        paused = true
        spares.release()
        try? context.channel.syncOptions?.setOption(.autoRead, value: false)
        scheduleResumeCheck(context: context)
    }

    private func scheduleResumeCheck(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        resumeCheck = context.eventLoop.scheduleTask(in: backoff) {
            let (handler, context) = bound.value
            handler.backoffElapsed(context: context)
        }
    }

    /// Resumes accepting once more than twice the reserve is free (the spares are taken back
    /// first, and more than the reserve must stay); otherwise waits another `backoff`.
    private func backoffElapsed(context: ChannelHandlerContext) {
        resumeCheck = nil
        guard paused, context.channel.isActive else { return }
        let free = reserve > 0 ? freeDescriptors() : nil
        if let free, free <= 2 * reserve {
            scheduleResumeCheck(context: context)
            return
        }
        spares.hold(reserve)
        paused = false
        if let free { report(.acceptResumed(freeDescriptors: free - reserve)) }
        try? context.channel.syncOptions?.setOption(.autoRead, value: true)
    }
}

@available(*, unavailable)
extension AcceptPauseHandler: Sendable {}
