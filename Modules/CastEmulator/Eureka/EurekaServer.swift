import CastJSON
import CastTLS
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves ``EurekaInfo`` over HTTP/1.1, in plain text (port 8008) or over TLS (port 8443, the
/// device's self-signed certificate), one request per connection.
///
/// Bounded: request heads are limited by NIO's decoder (and the target by ``EurekaInfo``), request
/// bodies are ignored, a connection idle for ``idleTimeout`` is closed, one open for
/// ``connectionDeadline`` is closed whatever it does (a client dripping a byte every few seconds is
/// never idle), and accepting pauses rather
/// than take the last `descriptorReserve` file descriptors of the process, or when accept fails
/// (the Cast listener's `AcceptPauseHandler`; the spare descriptors are the Cast listener's).
final class EurekaServer: Sendable {
    static let idleTimeout = TimeAmount.seconds(10)
    /// How long a connection may stay open in all: TLS, the request and the answer take milliseconds.
    static let connectionDeadline = TimeAmount.seconds(20)

    private let channel: any Channel
    /// The bound TCP port.
    let port: Int

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// Listens on `host:port`; with `tls`, every connection is TLS first. `limits` gives the
    /// descriptor reserve and the accept back-off; `report` is told of each accept pause.
    static func start(
        host: String, port: Int, info: EurekaInfo, tls: TLSCredentials?, limits: CastTransportServer.Limits,
        report: @escaping @Sendable (CastTransportServer.Event) -> Void
    ) async throws -> EurekaServer {
        let backoff = limits.acceptBackoff
        let reserve = limits.descriptorReserve
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.maxMessagesPerRead, value: 1)  // the descriptor count before every accept
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(
                        AcceptPauseHandler(backoff: backoff, reserve: reserve, spares: .none, report: report))
                }
            }
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let sync = child.pipeline.syncOperations
                    try sync.addHandler(ConnectionDeadlineHandler(deadline: connectionDeadline))
                    try sync.addHandler(IdleStateHandler(allTimeout: idleTimeout))
                    if let tls { try sync.addHandler(GnuTLSHandler(role: .server(tls))) }
                    try sync.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try sync.addHandler(EurekaHandler(info: info))
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        return EurekaServer(channel: channel, port: channel.localAddress?.port ?? port)
    }

    func close() async {
        try? await channel.close()
    }
}

/// Answers the first request of a connection, then closes it.
private final class EurekaHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let info: EurekaInfo
    private var answered = false

    init(info: EurekaInfo) { self.info = info }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data), !answered else { return }
        answered = true
        let (status, body) = request.method == .GET || request.method == .HEAD
            ? info.response(forTarget: request.uri)
            : (405, ["error": "method not allowed"])
        let bytes = Array(body.serialized().utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(bytes.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Closes its connection a fixed time after it became active, whatever the peer sends meanwhile.
final class ConnectionDeadlineHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let deadline: TimeAmount
    private var closing: Scheduled<Void>?

    init(deadline: TimeAmount) { self.deadline = deadline }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
    }

    private func arm(context: ChannelHandlerContext) {
        guard closing == nil else { return }
        let channel = context.channel
        closing = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }
}
