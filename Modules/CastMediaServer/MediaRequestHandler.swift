#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves registered resources on one connection: routes, plans the response, and streams the body
/// (files as `FileRegion`s, i.e. `sendfile`, in chunks so progress is visible to the idle watchdog).
final class MediaRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Bytes per `FileRegion` write; at most ``maximumWritesInFlight`` are queued at once.
    static let fileChunkSize: Int64 = 1 << 20
    static let maximumWritesInFlight = 2

    private let registry: Registry
    private let threadPool: NIOThreadPool
    private let activity: any ConnectionActivity
    private let logger: Logger
    private var pendingHead: HTTPRequestHead?
    /// The provider call answering the current request, if any (one at a time: requests are pipelined in order).
    private var provision: Task<Void, Never>?

    init(registry: Registry, threadPool: NIOThreadPool, activity: any ConnectionActivity, logger: Logger) {
        self.registry = registry
        self.threadPool = threadPool
        self.activity = activity
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pendingHead = head
            activity.requestReceived()
        case .body:
            break  // request bodies are not used; they are read and dropped
        case .end:
            guard let head = pendingHead else { return }
            pendingHead = nil
            respond(context: context, head: head)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        provision?.cancel()  // a provider still making a resource for this connection stops waiting
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("HTTP connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let request = RequestSummary(method: head.method, headers: head.headers)
        let keepAlive = head.isKeepAlive
        let now = WallClock.secondsSinceEpoch()
        logger.trace("HTTP request", metadata: ["method": "\(head.method)", "uri": "\(head.uri)"])
        switch RequestTarget.route(head.uri) {
        case .asterisk where request.method == .options:
            send(context: context, plan: ResponsePlanner.options(request, now: now), source: nil, keepAlive: keepAlive)
        case .asterisk, .notFound:
            send(context: context, plan: ResponsePlanner.notFound(request, now: now), source: nil, keepAlive: keepAlive)
        case .resource(let token, let name):
            guard let entry = registry.entry(token: token, name: name) else {
                send(context: context, plan: ResponsePlanner.notFound(request, now: now), source: nil, keepAlive: keepAlive)
                return
            }
            switch request.method {
            case .options:
                send(context: context, plan: ResponsePlanner.options(request, now: now), source: nil, keepAlive: keepAlive)
            case .other:
                send(context: context, plan: ResponsePlanner.methodNotAllowed(request, now: now), source: nil, keepAlive: keepAlive)
            case .get, .head:
                serve(context: context, request: request, entry: entry, name: name, now: now, keepAlive: keepAlive)
            }
        }
    }

    private func serve(
        context: ChannelHandlerContext, request: RequestSummary, entry: Registry.Entry, name: String, now: Int64, keepAlive: Bool
    ) {
        let contentType = entry.registration.contentType
        switch entry.source {
        case .provider(let provider):
            provide(context: context, request: request, provider: provider, name: name, now: now, keepAlive: keepAlive)
        case .data(let bytes, let entityTag, let lastModified):
            let representation = Representation(
                size: Int64(bytes.count), contentType: contentType, entityTag: entityTag, lastModified: lastModified)
            let plan = ResponsePlanner.plan(request, representation: representation, now: now, boundary: Self.makeBoundary)
            send(context: context, plan: plan, source: .memory(bytes), keepAlive: keepAlive)
        case .file(let path):
            serveFile(context: context, request: request, path: path, contentType: contentType, now: now, keepAlive: keepAlive)
        }
    }

    /// Asks a provider for the resource (off the event loop, cancelled if the connection closes first),
    /// then serves what it gave like a registered file or data; no resource is 404, an unavailable one 503.
    private func provide(
        context: ChannelHandlerContext, request: RequestSummary, provider: any MediaResourceProvider, name: String, now: Int64,
        keepAlive: Bool
    ) {
        let channel = context.channel
        let promise = context.eventLoop.makePromise(of: ProvidedResource?.self)
        provision = Task {
            do { promise.succeed(try await provider.resource(named: name)) } catch { promise.fail(error) }
        }
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.provision = nil
            guard channel.isActive else { return }
            switch result {
            case .success(nil):
                self.send(context: context, plan: ResponsePlanner.notFound(request, now: now), source: nil, keepAlive: keepAlive)
            case .success(.some(let resource)):
                switch resource.content {
                case .file(let path):
                    self.serveFile(
                        context: context, request: request, path: path, contentType: resource.contentType, now: now, keepAlive: keepAlive)
                case .bytes(let bytes, let entityTag):
                    let representation = Representation(
                        size: Int64(bytes.count), contentType: resource.contentType, entityTag: entityTag,
                        lastModified: resource.lastModified)
                    let plan = ResponsePlanner.plan(request, representation: representation, now: now, boundary: Self.makeBoundary)
                    self.send(context: context, plan: plan, source: .memory(bytes), keepAlive: keepAlive)
                }
            case .failure(let error):
                self.logger.notice("Provided resource not served", metadata: ["name": "\(name)", "error": "\(error)"])
                let code = (error as? MediaServerError)?.code
                let plan = code == .fileNotFound
                    ? ResponsePlanner.notFound(request, now: now) : ResponsePlanner.serviceUnavailable(request, now: now)
                self.send(context: context, plan: plan, source: nil, keepAlive: keepAlive)
            }
        }
    }

    private func serveFile(
        context: ChannelHandlerContext, request: RequestSummary, path: String, contentType: String, now: Int64, keepAlive: Bool
    ) {
        let opened = threadPool.runIfActive(eventLoop: context.eventLoop) { () throws -> OpenedFile in
            try OpenedFile.openForReading(path)
        }
        opened.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let file):
                guard context.channel.isActive else {
                    try? file.handle.close()
                    return
                }
                let representation = Representation(
                    size: file.facts.size, contentType: contentType, entityTag: file.facts.entityTag,
                    lastModified: file.facts.modifiedSeconds)
                let plan = ResponsePlanner.plan(request, representation: representation, now: now, boundary: Self.makeBoundary)
                self.send(context: context, plan: plan, source: .file(file.handle), keepAlive: keepAlive)
            case .failure(let error):
                // The file vanished, became unreadable or is no longer a regular file: it is not served.
                self.logger.warning("Registered file not served", metadata: ["error": "\(error)"])
                self.send(context: context, plan: ResponsePlanner.notFound(request, now: now), source: nil, keepAlive: keepAlive)
            }
        }
    }

    private static func makeBoundary() -> String { "CastorByteranges" + RegistrationToken.make() }

    enum BodySource {
        case memory([UInt8])
        case file(NIOFileHandle)
    }

    private func send(context: ChannelHandlerContext, plan: ResponsePlan, source: BodySource?, keepAlive: Bool) {
        var headers = plan.headers
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: plan.status, headers: headers))), promise: nil)
        let writer = BodyWriter(handler: self, context: context, parts: plan.body, source: source, keepAlive: keepAlive)
        writer.pump()
    }

    /// Writes body parts in order with a bounded number of writes in flight, then the end of the response.
    final class BodyWriter {
        private let handler: MediaRequestHandler
        private let context: ChannelHandlerContext
        private let parts: [BodyPart]
        private let source: BodySource?
        private let keepAlive: Bool
        private var partIndex = 0
        private var offsetInPart: Int64 = 0
        private var inFlight = 0
        private var failed = false
        private var finished = false

        init(handler: MediaRequestHandler, context: ChannelHandlerContext, parts: [BodyPart], source: BodySource?, keepAlive: Bool) {
            self.handler = handler
            self.context = context
            self.parts = parts
            self.source = source
            self.keepAlive = keepAlive
        }

        func pump() {
            while !failed, inFlight < MediaRequestHandler.maximumWritesInFlight, let data = nextChunk() {
                inFlight += 1
                context.writeAndFlush(handler.wrapOutboundOut(.body(data))).assumeIsolated().whenComplete { result in
                    self.inFlight -= 1
                    switch result {
                    case .success where !self.failed:
                        self.handler.activity.progressed()
                        self.pump()
                    case .success, .failure:
                        self.fail()
                    }
                }
            }
            if !failed, !finished, inFlight == 0, partIndex == parts.count {
                finished = true
                handler.activity.responseFinished()
                context.writeAndFlush(handler.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
                    self.releaseSource()
                    if case .failure = result {
                        self.context.close(promise: nil)
                    } else if !self.keepAlive {
                        self.context.close(promise: nil)
                    }
                }
            }
        }

        /// Stops writing; once no write is in flight, releases the file and closes the connection (the client
        /// cannot be given the rest of a response whose length it was promised).
        private func fail() {
            failed = true
            if inFlight == 0 {
                releaseSource()
                context.close(promise: nil)
            }
        }

        private var released = false

        private func releaseSource() {
            guard !released else { return }
            released = true
            if case .file(let handle) = source { try? handle.close() }
        }

        private func nextChunk() -> IOData? {
            while partIndex < parts.count {
                let part = parts[partIndex]
                switch part {
                case .bytes(let bytes):
                    partIndex += 1
                    if bytes.isEmpty { continue }
                    return .byteBuffer(context.channel.allocator.buffer(bytes: bytes))
                case .resource(let range):
                    let start = range.lowerBound + offsetInPart
                    let length = min(MediaRequestHandler.fileChunkSize, range.upperBound - start)
                    if length <= 0 {
                        partIndex += 1
                        offsetInPart = 0
                        continue
                    }
                    offsetInPart += length
                    if start + length == range.upperBound {
                        partIndex += 1
                        offsetInPart = 0
                    }
                    switch source {
                    case .file(let handle):
                        return .fileRegion(FileRegion(fileHandle: handle, readerIndex: Int(start), endIndex: Int(start + length)))
                    case .memory(let bytes):
                        return .byteBuffer(context.channel.allocator.buffer(bytes: bytes[Int(start)..<Int(start + length)]))
                    case nil:
                        preconditionFailure("a resource range without a body source")
                    }
                }
            }
            return nil
        }
    }
}

/// A registered file opened for one response, with the `fstat` of the open descriptor.
struct OpenedFile: Sendable {
    let handle: NIOFileHandle
    let facts: FileFacts

    /// Opens read-only and checks it is a regular file. The path is canonical (resolved at registration), so
    /// `O_NOFOLLOW` refuses a symbolic link swapped in later; `O_NONBLOCK` keeps a FIFO swapped in from hanging a thread.
    static func openForReading(_ path: String) throws -> OpenedFile {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw MediaServerError(code: .fileUnreadable, message: "Cannot open \(path)", cause: FileSystem.errnoError("open"))
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        do {
            let facts = try FileSystem.facts(descriptor: descriptor)
            guard facts.isRegularFile else {
                throw MediaServerError(code: .notARegularFile, message: "\(path) is no longer a regular file")
            }
            return OpenedFile(handle: handle, facts: facts)
        } catch {
            try? handle.close()
            throw error
        }
    }
}
