public import NIOCore
import NIOPosix
import Synchronization

/// A Cast transport over TLS on a TCP socket: how a sender talks to a real device.
///
/// ```swift
/// let transport = try await TLSCastTransport.connect(host: "192.168.1.20", port: 8009)
/// ```
///
/// Every connection shares one SwiftNIO event loop group (by default NIO's singleton), so a
/// program holding a thousand devices uses a handful of threads. TLS is GnuTLS; the device's
/// self-signed certificate is not checked as a PKI certificate (no Cast device has one) — its
/// DER is kept in ``peerCertificateDER`` for device authentication.
public final class TLSCastTransport: CastTransport {
    /// How to connect.
    public struct Configuration: Sendable {
        /// The deadline for TCP connect plus the TLS handshake.
        public var connectTimeout: Duration
        /// Creates a configuration.
        public init(connectTimeout: Duration = .seconds(10)) {
            self.connectTimeout = connectTimeout
        }
    }

    private let channel: any Channel
    private let core: ChannelTransportCore
    private let writer: OrderedFrameWriter
    /// The device's TLS certificate (DER), for device authentication.
    public let peerCertificateDER: [UInt8]?
    /// The peer's address as `host:port`.
    public let peerDescription: String
    /// The local address of the socket (the address the device can reach this host on).
    public let localAddress: SocketAddress?
    /// The negotiated TLS version, such as `TLS1.3`.
    public let tlsVersion: String
    /// Runs jobs on the connection's event loop, the thread that decodes inbound messages. A job
    /// enqueued after that loop's group has shut down never runs: with a group of your own, close
    /// the connections and let their plugins hear of it (a `CastConnection`'s
    /// `waitUntilPluginsDisconnected(timeout:)`) before shutting the group down.
    public let taskExecutor: (any TaskExecutor)?
    /// Google's device-authentication checks (``CastGenuineDeviceVerifier``): a `CastConnection` over
    /// this transport runs them unless its configuration turns them off.
    public var deviceVerifier: (any CastDeviceVerifier)? { CastGenuineDeviceVerifier() }

    init(channel: any Channel, core: ChannelTransportCore, handshake: GnuTLSHandshakeCompleted) {
        self.channel = channel
        self.core = core
        writer = OrderedFrameWriter(channel: channel)
        peerCertificateDER = handshake.peerCertificateDER
        tlsVersion = handshake.protocolVersion
        localAddress = channel.localAddress
        peerDescription = channel.remoteAddress.map(Self.describe) ?? "unknown peer"
        taskExecutor = EventLoopTaskExecutor(channel.eventLoop)
    }

    static func describe(_ address: SocketAddress) -> String {
        switch address {
        case .v6: return "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        default: return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        }
    }

    /// Connects and completes the TLS handshake.
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 address, connected to directly, or a host name, resolved first (NIO's
    ///     getaddrinfo resolver, then Happy Eyeballs over its answers).
    ///   - port: the Cast port (8009 for devices; groups use others).
    ///   - configuration: the connect timeout.
    ///   - group: the event loop group to use; NIO's shared singleton by default.
    /// - Throws: `CastTransportError` `.connectTimeout`, `.connectFailed`, `.tls` or `.resolution`.
    public static func connect(
        host: String, port: Int = 8009, configuration: Configuration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(CastTransportError) -> TLSCastTransport {
        let timeout = TimeAmount.nanoseconds(Int64(configuration.connectTimeout.components.seconds) * 1_000_000_000
            + configuration.connectTimeout.components.attoseconds / 1_000_000_000)
        let deadline = NIODeadline.now() + timeout
        // A name with several addresses can start several attempts (Happy Eyeballs): each channel gets its
        // own core, so the attempts that lose (closed by NIO) touch nothing of the one that connected.
        let attempts = ConnectAttempts()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let core = ChannelTransportCore()
                    let (_, handshake) = try channel.addCastHandlers(
                        role: .client, core: core, gate: ReadGateHandler(core: core, unsentLimit: nil))
                    attempts.add(channel, core: core, handshake: handshake)
                    // The handshake's deadline is decided on the event loop, where the handshake
                    // completes: whichever of the two comes first wins, however late this task
                    // resumes (a busy cooperative pool must not turn a finished handshake into a
                    // timeout, nor leave a timer to close a connection already handed out).
                    let settled = HandshakeSettled()
                    let timer = channel.eventLoop.scheduleTask(deadline: deadline) {
                        guard settled.flag.withLock({ !$0 }) else { return }
                        let limit = configuration.connectTimeout.castDescription
                        core.record(CastTransportError(
                            code: .connectTimeout,
                            message: channel.isActive
                                ? "The TLS handshake with \(host):\(port) did not finish within the connect timeout (\(limit)): "
                                    + "the device accepted the TCP connection but its handshake messages did not come"
                                : "Connecting to \(host):\(port) timed out after \(limit) (the connect timeout): "
                                    + "no answer to the TCP connection request; the device is off or the path to it drops packets"))
                        channel.close(promise: nil)
                    }
                    handshake.whenComplete { _ in
                        settled.flag.withLock { $0 = true }
                        timer.cancel()
                    }
                }
            }
        let channel: any Channel
        do {
            // An address (what discovery finds) is connected to as it is. A name goes through NIO's
            // resolver: getaddrinfo on a dispatch queue, then Happy Eyeballs over the answers.
            if let address = literalAddress(host, port: port) {
                channel = try await bootstrap.connect(to: address).get()
            } else {
                channel = try await bootstrap.connect(host: host, port: port).get()
            }
        } catch {
            // When the deadline closed the channel before TCP connected, NIO reports only "I/O on
            // closed channel"; the recorded reason says which deadline passed.
            throw attempts.closeReason ?? connectError(error, host: host, port: port, timeout: configuration.connectTimeout)
        }
        guard let (core, handshake) = attempts.take(channel) else {
            channel.close(promise: nil)
            throw CastTransportError(code: .connectFailed, message: "Connecting to \(host):\(port) gave a channel that was never set up")
        }
        do {
            let completed = try await handshake.get()
            return TLSCastTransport(channel: channel, core: core, handshake: completed)
        } catch {
            channel.close(promise: nil)
            throw core.closeReason ?? ChannelTransportCore.transportError(from: error)
        }
    }

    /// `host` as a socket address when it is an IPv4 or IPv6 address; `nil` for a name. An address with a
    /// zone (`fe80::1%eth0`, link-local from discovery) goes to the resolver, whose getaddrinfo reads the zone.
    static func literalAddress(_ host: String, port: Int) -> SocketAddress? {
        // Only digits, hex letters, dots and colons can be an address: a name is not even tried.
        guard host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { return nil }
        return try? SocketAddress(ipAddress: host, port: port)
    }

    static func connectError(_ error: any Error, host: String, port: Int, timeout: Duration) -> CastTransportError {
        let timedOut: Bool
        switch error {
        case ChannelError.connectTimeout: timedOut = true
        case let error as NIOConnectionError:
            timedOut = error.connectionErrors.contains { if case ChannelError.connectTimeout = $0.error { true } else { false } }
        default: timedOut = false
        }
        if timedOut {
            return CastTransportError(
                code: .connectTimeout,
                message: "Connecting to \(host):\(port) timed out after \(timeout.castDescription) (the connect timeout): "
                    + "no answer to the TCP connection request; the device is off or the path to it drops packets",
                cause: error)
        }
        if error is NIOConnectionError || error is IOError {
            let text = "\(error)"
            if text.contains("resolve") || text.contains("DNS") || text.contains("Name or service") {
                return CastTransportError(code: .resolution, message: "Cannot resolve \(host)", cause: error)
            }
            return CastTransportError(code: .connectFailed, message: "Cannot connect to \(host):\(port): \(text)", cause: error)
        }
        return CastTransportError(code: .connectFailed, message: "Cannot connect to \(host):\(port): \(error)")
    }

    /// Messages from the device, in order.
    public var inbound: AsyncThrowingStream<CastMessage, any Error> { core.inbound }

    /// Hands each message to `handler` on the connection's event loop as the frame decoder produces
    /// it, then the end; ``inbound`` yields nothing afterwards.
    public func deliverInbound(to handler: @escaping @Sendable (CastInboundEvent) -> Void) {
        let core = self.core
        channel.eventLoop.execute { core.deliver(to: handler) }
    }

    /// Frames one message and queues it on the connection's event loop, in order: the device gets
    /// messages in the order `send` was called, from whichever threads (on the event loop with
    /// nothing queued, the message is written at once).
    ///
    /// Returns without waiting for the socket write to complete: a request's caller waits for the
    /// reply anyway, and waiting for the write too cost a second thread hand-off per message. A
    /// write that fails later closes the connection, so the inbound messages end with the error and a
    /// `CastConnection` fails every request in flight at once.
    /// - Throws: `CastTransportError` `.messageTooLarge` (nothing written), `.closed` when the
    ///   connection is already closed.
    public func send(_ message: CastMessage) throws(CastTransportError) {
        var buffer = channel.allocator.buffer(capacity: CastFrame.headerSize + message.encodedSize)
        try CastFrameEncoder().encodeFrame(message, into: &buffer)
        guard channel.isActive else {
            throw core.closeReason ?? CastTransportError(code: .closed, message: "The connection is closed")
        }
        writer.write(buffer)
    }

    /// Sends TLS close_notify and closes the socket; ``inbound`` finishes.
    public func close() async {
        core.markClosedLocally()
        try? await channel.close()
        // On the event loop, like every other call that delivers inbound events: never beside a
        // handler the loop is running, never before the handler is installed.
        let core = self.core
        try? await channel.eventLoop.submit { core.finish() }.get()
    }

    /// Why the transport closed; `nil` while open or after ``close()``.
    public var closeReason: CastTransportError? { core.closeReason }
}

/// Carries the handshake future out of the channel initializer.
/// The channels a connect set up (one, or one per address Happy Eyeballs tried), each with its core and
/// handshake.
private final class ConnectAttempts: Sendable {
    private let attempts = Mutex<[ObjectIdentifier: (core: ChannelTransportCore, handshake: EventLoopFuture<GnuTLSHandshakeCompleted>)]>([:])

    func add(_ channel: any Channel, core: ChannelTransportCore, handshake: EventLoopFuture<GnuTLSHandshakeCompleted>) {
        attempts.withLock { $0[ObjectIdentifier(channel)] = (core, handshake) }
    }

    /// The connected channel's core and handshake; the other attempts are forgotten.
    func take(_ channel: any Channel) -> (core: ChannelTransportCore, handshake: EventLoopFuture<GnuTLSHandshakeCompleted>)? {
        attempts.withLock { attempts in
            defer { attempts.removeAll() }
            return attempts[ObjectIdentifier(channel)]
        }
    }

    /// Why an attempt ended, when one recorded it (its deadline passed): the reason a failed connect reports.
    var closeReason: CastTransportError? {
        attempts.withLock { attempts in attempts.values.lazy.compactMap { $0.core.closeReason }.first }
    }
}

/// Whether the handshake finished (either way) before the connect deadline.
private final class HandshakeSettled: Sendable {
    let flag = Mutex(false)
}
