public import NIOCore
import NIOPosix
import Synchronization

/// A TLS listener that accepts Cast senders: what an emulated receiver serves on.
///
/// Each accepted connection becomes a ``CastTransport`` once its TLS handshake completes;
/// connections whose handshake fails are closed without appearing (``events`` says why).
///
/// What one sender may cost is bounded (see ``Limits``): a deadline from accept to the finished
/// handshake, a cap on bytes queued for a sender that does not read (reading from it stops, and it
/// is dropped if it stays over), a cap on decoded messages not yet taken from ``CastTransport/inbound``
/// (reading stops until they are), and a pause in accepting when accept fails (descriptors exhausted)
/// instead of a busy loop.
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
        /// (``CastTransportError/Code/handshakeTimeout``). Measured on the server's clock.
        public var handshakeTimeout: Duration
        /// Bytes waiting to be written to one sender before reading from it stops.
        public var maximumUnsentBytes: Int
        /// How long a sender may stay over ``maximumUnsentBytes`` before it is dropped
        /// (``CastTransportError/Code/peerNotReading``). Measured on the server's clock.
        public var unsentBytesTimeout: Duration
        /// Bytes of decoded messages one sender may have waiting for the consumer of its
        /// ``CastTransport/inbound`` before reading from it stops (until the consumer catches up).
        public var maximumQueuedInboundBytes: Int
        /// How long accepting pauses after accept failed (for example when file descriptors ran out).
        public var acceptBackoff: Duration

        /// Creates limits; the defaults suit a Cast device.
        public init(
            handshakeTimeout: Duration = .seconds(10), maximumUnsentBytes: Int = 1 << 20,
            unsentBytesTimeout: Duration = .seconds(10), maximumQueuedInboundBytes: Int = 1 << 20,
            acceptBackoff: Duration = .seconds(1)
        ) {
            self.handshakeTimeout = handshakeTimeout
            self.maximumUnsentBytes = maximumUnsentBytes
            self.unsentBytesTimeout = unsentBytesTimeout
            self.maximumQueuedInboundBytes = maximumQueuedInboundBytes
            self.acceptBackoff = acceptBackoff
        }
    }

    /// Something the server did to protect itself, for its owner's log.
    public enum Event: Sendable, CustomStringConvertible {
        /// A connection closed before its TLS handshake finished: `error` says why
        /// (``CastTransportError/Code/handshakeTimeout`` when the deadline passed).
        case handshakeFailed(peer: String, error: CastTransportError)
        /// Accepting failed; the server stops accepting for `backoff`.
        case acceptFailed(error: CastTransportError, backoff: Duration)
        /// Reading from a sender stopped: more than the unsent-bytes limit waits for it.
        case readingPaused(peer: String, unsentBytesLimit: Int)
        /// The sender read what was queued; reading from it resumed.
        case readingResumed(peer: String)

        /// One line for a log.
        public var description: String {
            switch self {
            case .handshakeFailed(let peer, let error): "\(peer): TLS handshake failed: \(error)"
            case .acceptFailed(let error, let backoff): "accept failed (\(error)); pausing accept for \(backoff.castDescription)"
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
    /// - Throws: ``CastTransportError`` `.io` when the address cannot be bound, `.tls` when credentials fail.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, credentials: TLSCredentials? = nil, backlog: Int32 = 256,
        limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(CastTransportError) -> CastTransportServer {
        let credentials = try await Self.credentials(credentials)
        let connections = AsyncStream<any CastTransport>.makeStream()
        let events = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let clock = TransportClock(clock)
        let backoff = limits.acceptBackoff
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: backlog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(AcceptPauseHandler(backoff: backoff) { error in
                        events.continuation.yield(.acceptFailed(
                            error: CastTransportError(code: .io, message: "\(error)", cause: error), backoff: backoff))
                    })
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: max(1, limits.maximumUnsentBytes / 2), high: max(1, limits.maximumUnsentBytes)))
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try accept(child, credentials: credentials, limits: limits, clock: clock,
                               connections: connections.continuation, events: events.continuation)
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

    /// Sets up one accepted connection (on its event loop): the pipeline and the handshake deadline.
    private static func accept(
        _ child: any Channel, credentials: TLSCredentials, limits: Limits, clock: TransportClock,
        connections: AsyncStream<any CastTransport>.Continuation, events: AsyncStream<Event>.Continuation
    ) throws {
        let peer = child.remoteAddress.map(TLSCastTransport.describe) ?? "unknown peer"
        let core = ChannelTransportCore(inboundLimit: limits.maximumQueuedInboundBytes)
        let gate = ReadGateHandler(core: core, unsentLimit: .init(
            bytes: limits.maximumUnsentBytes, timeout: limits.unsentBytesTimeout, clock: clock,
            report: { paused in
                events.yield(paused ? .readingPaused(peer: peer, unsentBytesLimit: limits.maximumUnsentBytes) : .readingResumed(peer: peer))
            }))
        let (_, handshake) = try child.addCastHandlers(role: .server(credentials), core: core, gate: gate)
        // Whichever settles first, on the event loop: the handshake or its deadline.
        let settled = HandshakeOutcome()
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
            guard settled.settle() else { return }
            switch result {
            case .success(let completed):
                connections.yield(TLSCastTransport(channel: child, core: core, handshake: completed))
            case .failure(let error):
                events.yield(.handshakeFailed(peer: peer, error: core.closeReason ?? ChannelTransportCore.transportError(from: error)))
            }
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

/// Pauses accepting after accept failed for lack of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM).
///
/// The connection stays in the kernel's backlog, so the listening socket stays readable and a
/// plain retry spins the event loop at 100 % CPU while nothing can be accepted. NIO's
/// `AcceptBackoffHandler` only delays the next `read()`, which NIO never asks for when the failed
/// accept was the first of its read cycle; this handler turns `autoRead` off instead (NIO then
/// stops watching the socket) and back on after `backoff`.
private final class AcceptPauseHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let backoff: Duration
    private let report: @Sendable (IOError) -> Void
    private var paused = false

    init(backoff: Duration, report: @escaping @Sendable (IOError) -> Void) {
        self.backoff = backoff
        self.report = report
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        guard !paused else { return }
        paused = true
        report(error)
        let options = context.channel.syncOptions
        try? options?.setOption(.autoRead, value: false)
        let delay = TimeAmount.nanoseconds(
            Int64(backoff.components.seconds) * 1_000_000_000 + backoff.components.attoseconds / 1_000_000_000)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            handler.paused = false
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }
}

@available(*, unavailable)
extension AcceptPauseHandler: Sendable {}
