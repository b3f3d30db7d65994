import NIOCore
import NIOHTTP1
import NIOPosix

/// What came back for one GET, cut at the body limit.
package struct BoundedHTTPResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The response headers.
    package var headers: HTTPHeaders
    /// The body (at most the limit asked for).
    package var body: [UInt8]
}

/// Why an HTTP exchange failed below the level of status codes.
package struct BoundedHTTPFailure: Error, Sendable {
    /// What went wrong.
    package enum Reason: Sendable { case connect, closedEarly, malformed, tooLarge, timedOut }
    /// What went wrong.
    package var reason: Reason
    /// A sentence for people.
    package var message: String
    /// The underlying error, if any.
    package var cause: (any Error & Sendable)?
    /// What had arrived when the exchange was cut off (the head and the body so far), if anything.
    package var partial: BoundedHTTPResponse?

    package init(reason: Reason, message: String, cause: (any Error & Sendable)?, partial: BoundedHTTPResponse? = nil) {
        self.reason = reason
        self.message = message
        self.cause = cause
        self.partial = partial
    }
}

/// A minimal HTTP/1.1 GET over SwiftNIO, on NIO's shared event loop group, with every resource bounded:
/// the response head by the decoder's limits, the raw bytes read by a budget, the body by `bodyLimit`.
/// The connection is closed when the body is complete, when the limit is reached, or when the calling
/// task is cancelled (which is how the caller's deadline ends a fetch).
package enum BoundedHTTPClient {
    /// What to do with a body longer than the limit.
    package enum Overflow: Sendable {
        /// Keep the first `bodyLimit` bytes and succeed (a media prefix from a server that ignores `Range`).
        case truncate
        /// Fail with `.tooLarge` (a text track over its size limit).
        case fail
    }

    /// GETs `url` with `deadline` bounding the whole exchange (connect, head and body): when it passes
    /// first the connection is closed and the fetch fails with ``BoundedHTTPFailure/Reason/timedOut``.
    package static func get(
        _ url: HTTPURL, headers: HTTPHeaders, bodyLimit: Int, overflow: Overflow, maximumHeaderBytes: Int,
        timeout: Duration, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> BoundedHTTPResponse {
        try await withThrowingTaskGroup(of: BoundedHTTPResponse?.self) { group in
            group.addTask {
                try await get(url, headers: headers, bodyLimit: bodyLimit, overflow: overflow,
                              maximumHeaderBytes: maximumHeaderBytes, connectTimeout: timeout)
            }
            group.addTask {
                try await clock.sleep(for: timeout, tolerance: nil)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw BoundedHTTPFailure(reason: .timedOut, message: "no complete answer from \(url.authority) within \(timeout)",
                                       cause: nil)
            }
            return response
        }
    }

    /// GETs `url`; only the connect is bounded here (`connectTimeout`): the caller's deadline ends the rest
    /// by cancelling the calling task.
    package static func get(
        _ url: HTTPURL, headers: HTTPHeaders, bodyLimit: Int, overflow: Overflow, maximumHeaderBytes: Int,
        connectTimeout: Duration
    ) async throws -> BoundedHTTPResponse {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: BoundedHTTPResponse.self)
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
            let failure = BoundedHTTPFailure(reason: .connect, message: "cannot connect to \(url.authority)", cause: error)
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
            context.fireErrorCaught(BoundedHTTPFailure(
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
    private let overflow: BoundedHTTPClient.Overflow
    private let promise: EventLoopPromise<BoundedHTTPResponse>
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var done = false

    init(request: HTTPRequestHead, bodyLimit: Int, overflow: BoundedHTTPClient.Overflow, promise: EventLoopPromise<BoundedHTTPResponse>) {
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
                    finish(context, .failure(BoundedHTTPFailure(
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
        if let failure = error as? BoundedHTTPFailure {
            finish(context, .failure(failure))
        } else {
            finish(context, .failure(BoundedHTTPFailure(
                reason: .malformed, message: "the response is not valid HTTP/1.1", cause: error)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context, .failure(BoundedHTTPFailure(
            reason: .closedEarly, message: "the server closed the connection before the response ended", cause: nil)))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context, .failure(BoundedHTTPFailure(reason: .closedEarly, message: "the connection was torn down", cause: nil)))
    }

    private var snapshot: BoundedHTTPResponse? {
        head.map { BoundedHTTPResponse(status: Int($0.status.code), headers: $0.headers, body: body) }
    }

    private func succeed(_ context: ChannelHandlerContext) {
        guard let head else {
            finish(context, .failure(BoundedHTTPFailure(reason: .malformed, message: "no response head", cause: nil)))
            return
        }
        finish(context, .success(BoundedHTTPResponse(status: Int(head.status.code), headers: head.headers, body: body)))
    }

    private func finish(_ context: ChannelHandlerContext, _ result: Result<BoundedHTTPResponse, BoundedHTTPFailure>) {
        guard !done else { return }
        done = true
        switch result {
        case .success(let response): promise.succeed(response)
        case .failure(let failure): promise.fail(failure)
        }
        context.close(promise: nil)
    }
}

extension BoundedHTTPClient {
    /// A GET as discovery makes it: `http://` only, `Host` set to the address (Cast devices answer 403 to a
    /// name), headers as a dictionary with lower-cased names, the body over `limit` an error, and `timeout`
    /// bounding the whole exchange. Throws ``BoundedHTTPFailure`` (`.malformed` for a URL it cannot fetch).
    package static func simpleGet(
        _ text: String, limit: Int, timeout: Duration, clock: any Clock<Duration> = ContinuousClock()
    ) async throws(BoundedHTTPFailure) -> (status: Int, headers: [String: String], body: [UInt8]) {
        guard let url = HTTPURL(parsing: text) else {
            throw BoundedHTTPFailure(reason: .malformed, message: "only http:// URLs with a host are fetched, not \(text)", cause: nil)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.authority)
        headers.add(name: "Accept", value: "*/*")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "User-Agent", value: "Castor/1.0")
        let response: BoundedHTTPResponse
        do {
            response = try await get(url, headers: headers, bodyLimit: limit, overflow: .fail, maximumHeaderBytes: 16 * 1024,
                                     timeout: timeout, clock: clock)
        } catch let failure as BoundedHTTPFailure {
            throw failure
        } catch {
            throw BoundedHTTPFailure(reason: .connect, message: "the request to \(url.authority) failed", cause: error)
        }
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name.lowercased()] = value }
        return (response.status, fields, response.body)
    }
}
