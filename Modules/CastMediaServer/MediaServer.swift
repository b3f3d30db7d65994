import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An HTTP/1.1 server that lets a Cast receiver fetch local files.
///
/// It serves only what was registered, each under an unguessable URL `/<token>/<name>` (128 random bits per
/// registration); everything else is 404 and nothing is ever listed. Byte ranges follow RFC 9110 (single,
/// open-ended, suffix and multiple ranges, 416, `If-Range`), responses carry the CORS headers receivers need
/// for media with tracks, and files are sent with `sendfile` (`FileRegion`) without being loaded into memory.
///
/// ```swift
/// let server = try await MediaServer.start(reaching: "192.168.1.30")
/// let movie = try server.register(file: "/home/me/Videos/movie.mp4")
/// // load movie.url on the receiver
/// await server.shutdown()
/// ```
public final class MediaServer: Sendable {
    /// How the server listens and how long it waits for clients.
    public struct Configuration: Sendable {
        /// The address to bind (an IPv4 or IPv6 literal, or a host name).
        public var host: String
        /// The port to bind; 0 picks a free one (read it back from ``MediaServer/port``).
        public var port: Int
        /// The host put in registration URLs; defaults to ``host``. Required when ``host`` is a wildcard (`0.0.0.0`, `::`).
        public var advertisedHost: String?
        /// How long a connection may take to send a request head, or go without accepting response bytes, before
        /// it is closed.
        public var idleTimeout: Duration
        /// The clock the idle timeout runs on (inject a test clock to drive it without waiting).
        public var clock: any Clock<Duration>
        /// The largest request head accepted (one field, and all fields together); larger heads get 431 and a close.
        public var maximumHeaderBytes: Int
        /// The most client connections open at once; further connections are closed as soon as they are accepted.
        public var maximumConnections: Int
        /// Where the server logs.
        public var logger: Logger

        /// Creates a configuration.
        public init(
            host: String, port: Int = 0, advertisedHost: String? = nil, idleTimeout: Duration = .seconds(60),
            clock: any Clock<Duration> = ContinuousClock(), maximumHeaderBytes: Int = 16 * 1024,
            maximumConnections: Int = 256, logger: Logger = Logger(label: "castor.mediaserver")
        ) {
            self.host = host
            self.port = port
            self.advertisedHost = advertisedHost
            self.idleTimeout = idleTimeout
            self.clock = clock
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumConnections = maximumConnections
            self.logger = logger
        }
    }

    /// The host used in URLs.
    public let host: String
    /// The bound port.
    public let port: Int
    /// `http://host:port` (IPv6 literals in brackets), the prefix of every registration URL.
    public let baseURL: String

    private let serverChannel: any Channel
    let registry: Registry
    /// The open client connections (internal: tests await a connection's close on it).
    let connections: ConnectionSet
    private let closed = Mutex(false)
    private let logger: Logger

    private init(host: String, port: Int, serverChannel: any Channel, registry: Registry, connections: ConnectionSet, logger: Logger) {
        self.host = host
        self.port = port
        self.baseURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        self.serverChannel = serverChannel
        self.registry = registry
        self.connections = connections
        self.logger = logger
    }

    /// Starts a server.
    /// - Throws: ``MediaServerError`` with code ``MediaServerError/Code/invalidConfiguration`` (bad port, wildcard
    ///   host without an advertised host) or ``MediaServerError/Code/bindFailed``.
    public static func start(_ configuration: Configuration) async throws(MediaServerError) -> MediaServer {
        guard (0...65535).contains(configuration.port) else {
            throw MediaServerError(code: .invalidConfiguration, message: "Port \(configuration.port) is out of range")
        }
        guard configuration.maximumConnections >= 1 else {
            throw MediaServerError(code: .invalidConfiguration, message: "maximumConnections must be at least 1")
        }
        guard configuration.maximumHeaderBytes >= 1024 else {
            throw MediaServerError(code: .invalidConfiguration, message: "maximumHeaderBytes must be at least 1024")
        }
        let wildcard = ["0.0.0.0", "::", "[::]", ""].contains(configuration.host)
        if wildcard && configuration.advertisedHost == nil {
            throw MediaServerError(
                code: .invalidConfiguration,
                message: "Binding to the wildcard address \(configuration.host) needs an advertisedHost for URLs")
        }
        let registry = Registry()
        let connections = ConnectionSet()
        let threadPool = NIOThreadPool.singleton
        let limits = Self.decoderLimits(maximumHeaderBytes: configuration.maximumHeaderBytes)
        let clock = configuration.clock
        let timeout = configuration.idleTimeout
        let logger = configuration.logger
        let maximumConnections = configuration.maximumConnections
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard connections.insert(channel, limit: maximumConnections) else {
                    logger.warning("Too many connections; refusing one", metadata: ["limit": "\(maximumConnections)"])
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    let (activity, task) = startWatchdog(clock: clock, timeout: timeout) { [channel] in
                        channel.close(promise: nil)
                    }
                    channel.closeFuture.whenComplete { _ in
                        task.cancel()
                        connections.remove(channel)
                    }
                    try Self.configureConnection(
                        channel.pipeline.syncOperations, limits: limits,
                        handler: MediaRequestHandler(registry: registry, threadPool: threadPool, activity: activity, logger: logger))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            throw MediaServerError(
                code: .bindFailed, message: "Cannot listen on \(configuration.host):\(configuration.port)", cause: error)
        }
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw MediaServerError(code: .bindFailed, message: "The listening socket has no port")
        }
        let host = configuration.advertisedHost ?? configuration.host
        logger.debug("Media server listening", metadata: ["address": "\(host):\(port)"])
        return MediaServer(
            host: host, port: port, serverChannel: channel, registry: registry, connections: connections, logger: logger)
    }

    /// Starts a server on the local address that routes to a receiver (see ``localAddress(reaching:port:)``).
    /// - Parameters:
    ///   - receiverHost: the receiver's address (for example the host of the Cast connection).
    ///   - receiverPort: the receiver's port; only used to pick the route.
    ///   - port: the port to serve on, 0 for any free port.
    ///   - idleTimeout: see ``Configuration/idleTimeout``.
    public static func start(
        reaching receiverHost: String, receiverPort: Int = 8009, port: Int = 0, idleTimeout: Duration = .seconds(60)
    ) async throws(MediaServerError) -> MediaServer {
        let local = try localAddress(reaching: receiverHost, port: receiverPort)
        return try await start(Configuration(host: local, port: port, idleTimeout: idleTimeout))
    }

    /// Publishes a file. Its content type comes from the extension, else from its first bytes
    /// (see ``MediaContentType``), unless given.
    /// - Parameters:
    ///   - path: the file; symbolic links are resolved now, the file is reopened for each request.
    ///   - name: the URL's last segment (defaults to the file's name); receivers may show it.
    ///   - contentType: overrides the detected type.
    /// - Throws: ``MediaServerError`` (``MediaServerError/Code/fileNotFound``, ``MediaServerError/Code/notARegularFile``,
    ///   ``MediaServerError/Code/fileUnreadable``, ``MediaServerError/Code/serverClosed``).
    public func register(file path: String, name: String? = nil, contentType: String? = nil) throws(MediaServerError)
        -> MediaRegistration {
        try ensureOpen()
        let canonical = try FileSystem.canonicalPath(path)
        let facts = try FileSystem.facts(atPath: canonical)
        guard facts.isRegularFile else {
            throw MediaServerError(code: .notARegularFile, message: "\(path) is not a regular file")
        }
        let published = Self.sanitizedName(name ?? PathText.lastComponent(canonical))
        var type = contentType ?? MediaContentType.forFileName(canonical)
        if type == nil {
            let leading = try FileSystem.leadingBytes(ofFileAt: canonical, count: MediaContentType.sniffLength)
            type = MediaContentType.sniff(leading) ?? MediaContentType.fallback
        }
        let registration = makeRegistration(name: published, contentType: type ?? MediaContentType.fallback)
        registry.add(.init(registration: registration, source: .file(path: canonical)))
        logger.debug("Registered file", metadata: ["path": "\(canonical)", "url": "\(registration.url)"])
        return registration
    }

    /// Publishes bytes held in memory (generated WebVTT subtitles, cover art...).
    /// - Parameters:
    ///   - data: the content.
    ///   - name: the URL's last segment (`/` and control characters are replaced).
    ///   - contentType: the type; when `nil`, from the name's extension, else sniffed, else `application/octet-stream`.
    /// - Throws: ``MediaServerError/Code/serverClosed`` after ``shutdown()``.
    public func register(data: [UInt8], name: String, contentType: String? = nil) throws(MediaServerError) -> MediaRegistration {
        try ensureOpen()
        let published = Self.sanitizedName(name)
        let type = contentType ?? MediaContentType.resolve(fileName: published, leadingBytes: Array(data.prefix(MediaContentType.sniffLength)))
        let registration = makeRegistration(name: published, contentType: type)
        let tag = "\"m-\(String(fnv1a(data), radix: 16))-\(String(data.count, radix: 16))\""
        registry.add(.init(registration: registration, source: .data(bytes: data, entityTag: tag, lastModified: WallClock.secondsSinceEpoch())))
        return registration
    }

    /// Publishes a subtitle file as WebVTT: a `.vtt` file as is, an `.srt` file converted (see ``SubtitleConverter``).
    /// - Throws: ``MediaServerError`` when the file cannot be read, is neither SRT nor WebVTT, or has no valid cue.
    public func register(subtitles path: String) throws(MediaServerError) -> MediaRegistration {
        guard let format = SubtitleFormat(fileName: path) else {
            throw MediaServerError(code: .invalidSubtitles, message: "\(path) is not an .srt or .vtt file")
        }
        if format == .webVTT { return try register(file: path, contentType: "text/vtt") }
        let conversion = try SubtitleConverter.webVTT(fromSRT: FileSystem.contents(ofFileAt: path, limit: 16 << 20))
        let name = String(PathText.lastComponent(path).dropLast(4)) + ".vtt"
        return try register(data: Array(conversion.webVTT.utf8), name: name, contentType: "text/vtt")
    }

    /// Stops serving a registration. Requests already being answered finish; new ones get 404.
    /// - Returns: whether it was registered.
    @discardableResult
    public func unregister(_ registration: MediaRegistration) -> Bool { registry.remove(token: registration.token) }

    /// The number of open client connections (for tests and diagnostics).
    var openConnectionCount: Int { connections.count }

    /// Everything currently registered (in no particular order).
    public var registrations: [MediaRegistration] { registry.all }

    /// Stops listening, closes every connection and forgets every registration. Safe to call more than once.
    public func shutdown() async {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if wasClosed { return }
        registry.removeAll()
        try? await serverChannel.close()
        for channel in connections.drain() { try? await channel.close() }
        logger.debug("Media server stopped", metadata: ["port": "\(port)"])
    }

    func ensureOpen() throws(MediaServerError) {
        if closed.withLock({ $0 }) { throw MediaServerError(code: .serverClosed, message: "The media server has been shut down") }
    }

    func makeRegistration(name: String, contentType: String) -> MediaRegistration {
        let token = RegistrationToken.make()
        return MediaRegistration(
            token: token, name: name, contentType: contentType,
            url: "\(baseURL)/\(token)/\(RequestTarget.percentEncode(name))")
    }

    /// One safe path segment: no `/`, `\` or control characters, not `.` or `..`, not empty.
    /// The HTTP parser's limits: `maximumHeaderBytes` for one field and for the whole head, 256 fields.
    static func decoderLimits(maximumHeaderBytes: Int) -> NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = maximumHeaderBytes
        limits.maxHeaderListSize = maximumHeaderBytes
        limits.maxHeaderFieldCount = 256
        return limits
    }

    /// The handlers of one connection, from the bytes to `handler` (shared with the fuzz target, which feeds them
    /// arbitrary bytes).
    static func configureConnection(
        _ pipeline: ChannelPipeline.SynchronousOperations, limits: NIOHTTPDecoderLimitConfiguration, handler: MediaRequestHandler
    ) throws {
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: false, withOutboundHeaderValidation: true,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
        try pipeline.addHandler(ProtocolErrorHandler())
        try pipeline.addHandler(handler)
    }

    static func sanitizedName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar)
        }
        let cleaned = String(scalars)
        return RequestTarget.isSafeName(cleaned) ? cleaned : "file"
    }

    private func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// The open client connections, so that shutdown can close them.
final class ConnectionSet: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Adds a channel unless `limit` channels are already open.
    func insert(_ channel: any Channel, limit: Int) -> Bool {
        channels.withLock { channels in
            guard channels.count < limit else { return false }
            channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }
    func remove(_ channel: any Channel) { _ = channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }
    var count: Int { channels.withLock { $0.count } }
    /// The open channels, for a test to await one's `closeFuture`.
    var open: [any Channel] { channels.withLock { Array($0.values) } }
    func drain() -> [any Channel] { channels.withLock { all in defer { all.removeAll() }; return Array(all.values) } }
}
