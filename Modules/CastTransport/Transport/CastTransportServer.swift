public import NIOCore
import NIOPosix

/// A TLS listener that accepts Cast senders: what an emulated receiver serves on.
///
/// Each accepted connection becomes a ``CastTransport`` once its TLS handshake completes;
/// connections whose handshake fails are closed without appearing.
///
/// ```swift
/// let server = try await CastTransportServer.start(host: "127.0.0.1", port: 0,
///                                                  credentials: .selfSigned())
/// for await sender in server.connections { ... }
/// ```
public final class CastTransportServer: Sendable {
    private let channel: any Channel
    /// The accepted connections, in order; finishes when the server closes.
    public let connections: AsyncStream<any CastTransport>
    private let continuation: AsyncStream<any CastTransport>.Continuation
    /// The TLS credentials the server presents.
    public let credentials: TLSCredentials
    /// The port the server listens on (useful with port 0).
    public let port: Int
    /// The address the server listens on.
    public let host: String

    private init(channel: any Channel, credentials: TLSCredentials, host: String,
                 connections: AsyncStream<any CastTransport>, continuation: AsyncStream<any CastTransport>.Continuation) {
        self.channel = channel
        self.credentials = credentials
        self.connections = connections
        self.continuation = continuation
        self.host = host
        port = channel.localAddress?.port ?? 0
    }

    /// Starts listening.
    /// - Parameters:
    ///   - host: the address to bind (`127.0.0.1`, `::1`, `0.0.0.0`...).
    ///   - port: the port; 0 picks a free one (read it from ``port``).
    ///   - credentials: the certificate to present; a fresh self-signed one (valid 2 days) by default.
    ///   - backlog: the listen backlog.
    ///   - group: the event loop group; NIO's singleton by default.
    /// - Throws: ``CastTransportError`` `.io` when the address cannot be bound, `.tls` when credentials fail.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, credentials: TLSCredentials? = nil, backlog: Int32 = 256,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(CastTransportError) -> CastTransportServer {
        let credentials = try Self.credentials(credentials)
        let (connections, continuation) = AsyncStream<any CastTransport>.makeStream()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: backlog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let core = ChannelTransportCore()
                    let (_, handshake) = try child.addCastHandlers(role: .server(credentials), core: core)
                    handshake.whenSuccess { completed in
                        continuation.yield(TLSCastTransport(channel: child, core: core, handshake: completed))
                    }
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw CastTransportError(code: .io, message: "Cannot listen on \(host):\(port): \(error)", cause: error)
        }
        return CastTransportServer(channel: channel, credentials: credentials, host: host, connections: connections, continuation: continuation)
    }

    private static func credentials(_ given: TLSCredentials?) throws(CastTransportError) -> TLSCredentials {
        if let given { return given }
        do {
            return try TLSCredentials.selfSigned()
        } catch {
            throw CastTransportError(code: .tls, message: "Cannot create TLS credentials: \(error.message)", cause: error)
        }
    }

    /// Stops listening. Accepted connections stay open; close them yourself.
    public func close() async {
        try? await channel.close()
        continuation.finish()
    }
}
