import NIOCore
import NIOHTTP1
import NIOPosix

/// What came back for one GET, cut at the body limit.
struct HTTPFetchResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
}

/// Why an HTTP exchange failed below the level of status codes.
struct HTTPFetchFailure: Error, Sendable {
    enum Reason: Sendable { case connect, closedEarly, malformed, tooLarge }
    var reason: Reason
    var message: String
    var cause: (any Error & Sendable)?
    /// What had arrived when the exchange was cut off (the head and the body so far), if anything.
    var partial: HTTPFetchResponse?
}

/// A minimal HTTP/1.1 GET over SwiftNIO, on NIO's shared event loop group, with every resource bounded:
/// the response head by the decoder's limits, the raw bytes read by a budget, the body by `bodyLimit`.
/// The connection is closed when the body is complete, when the limit is reached, or when the calling
/// task is cancelled (which is how the caller's deadline ends a fetch).
enum HTTPFetchClient {
    /// What to do with a body longer than the limit.
    enum Overflow: Sendable {
        /// Keep the first `bodyLimit` bytes and succeed (a media prefix from a server that ignores `Range`).
        case truncate
        /// Fail with `.tooLarge` (a text track over its size limit).
        case fail
    }

    static func get(
        _ url: HTTPURL, headers: HTTPHeaders, bodyLimit: Int, overflow: Overflow, maximumHeaderBytes: Int,
        connectTimeout: Duration
    ) async throws -> HTTPFetchResponse {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: HTTPFetchResponse.self)
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.target)
        head.headers = headers
        let request = head
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = maximumHeaderBytes
        limits.maxHeaderListSize = maximumHeaderBytes
        limits.maxHeaderFieldCount = 256
        let decoderLimits = limits
        // Chunk framing may cost a few bytes per body byte; anything beyond this generous budget is hostile.
        let rawBudget = maximumHeaderBytes + 8 * bodyLimit + 4096
        let timeoutMilliseconds = max(1, connectTimeout.components.seconds * 1000 + connectTimeout.components.attoseconds / 1_000_000_000_000_000)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.milliseconds(timeoutMilliseconds))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(ReadBudgetHandler(limit: rawBudget))
                    try sync.addHandler(HTTPRequestEncoder())
                    try sync.addHandler(ByteToMessageHandler(HTTPResponseDecoder(
                        leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop,
                        limitConfiguration: decoderLimits)))
                    try sync.addHandler(ResponseCollector(
                        request: request, bodyLimit: bodyLimit, overflow: overflow, promise: promise))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: url.host, port: url.port).get()
        } catch {
            let failure = HTTPFetchFailure(reason: .connect, message: "cannot connect to \(url.authority)", cause: error)
            promise.fail(failure)
            throw failure
        }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

/// Counts the raw bytes read and closes the connection once they exceed the budget.
private final class ReadBudgetHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limit: Int
    private var seen = 0
    private var exceeded = false

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !exceeded else { return }
        seen += unwrapInboundIn(data).readableBytes
        if seen > limit {
            exceeded = true
            context.fireErrorCaught(HTTPFetchFailure(
                reason: .tooLarge, message: "the response exceeds \(limit) bytes", cause: nil))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}

/// Sends the request once connected and gathers the response into the promise.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: HTTPRequestHead
    private let bodyLimit: Int
    private let overflow: HTTPFetchClient.Overflow
    private let promise: EventLoopPromise<HTTPFetchResponse>
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var done = false

    init(request: HTTPRequestHead, bodyLimit: Int, overflow: HTTPFetchClient.Overflow, promise: EventLoopPromise<HTTPFetchResponse>) {
        self.request = request
        self.bodyLimit = bodyLimit
        self.overflow = overflow
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
        case .body(var buffer):
            let room = bodyLimit - body.count
            if buffer.readableBytes > room {
                guard overflow == .truncate else {
                    body += buffer.readBytes(length: room) ?? []
                    finish(context, .failure(HTTPFetchFailure(
                        reason: .tooLarge, message: "the body exceeds \(bodyLimit) bytes", cause: nil, partial: snapshot)))
                    return
                }
                body += buffer.readBytes(length: room) ?? []
                succeed(context)
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
            if body.count == bodyLimit, overflow == .truncate { succeed(context) }
        case .end:
            succeed(context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let failure = error as? HTTPFetchFailure {
            finish(context, .failure(failure))
        } else {
            finish(context, .failure(HTTPFetchFailure(
                reason: .malformed, message: "the response is not valid HTTP/1.1", cause: error)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context, .failure(HTTPFetchFailure(
            reason: .closedEarly, message: "the server closed the connection before the response ended", cause: nil)))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context, .failure(HTTPFetchFailure(reason: .closedEarly, message: "the connection was torn down", cause: nil)))
    }

    private var snapshot: HTTPFetchResponse? {
        head.map { HTTPFetchResponse(status: Int($0.status.code), headers: $0.headers, body: body) }
    }

    private func succeed(_ context: ChannelHandlerContext) {
        guard let head else {
            finish(context, .failure(HTTPFetchFailure(reason: .malformed, message: "no response head", cause: nil)))
            return
        }
        finish(context, .success(HTTPFetchResponse(status: Int(head.status.code), headers: head.headers, body: body)))
    }

    private func finish(_ context: ChannelHandlerContext, _ result: Result<HTTPFetchResponse, HTTPFetchFailure>) {
        guard !done else { return }
        done = true
        switch result {
        case .success(let response): promise.succeed(response)
        case .failure(let failure): promise.fail(failure)
        }
        context.close(promise: nil)
    }
}
