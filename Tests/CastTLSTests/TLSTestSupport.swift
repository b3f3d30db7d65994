import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import CastTLS

#if canImport(Glibc)
import Glibc
#endif

/// Shared fixtures: one generated certificate for all TLS tests (RSA generation is slow-ish).
enum TLSTestFixtures {
    static let credentials: Result<TLSCredentials, TLSError> = Result { () throws(TLSError) in try TLSCredentials.selfSigned() }

    /// Whether `::1` can be bound on this machine.
    static let loopbackIPv6Available: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        address.sin6_port = 0
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        return result == 0
    }()

    /// Deterministic test payload of `count` bytes.
    static func payload(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }
}

/// What a test observes at the top of a TLS pipeline.
enum TLSTestEvent: Sendable {
    case handshake(GnuTLSHandshakeCompleted)
    case data([UInt8])
    case error(any Error)
    case closeNotify
    case inactive
}

/// Records everything arriving at the top of the pipeline into an `AsyncStream`, and passes it on.
final class TLSEventCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let continuation: AsyncStream<TLSTestEvent>.Continuation
    private let finishOnInactive: Bool

    init(_ continuation: AsyncStream<TLSTestEvent>.Continuation, finishOnInactive: Bool) {
        self.continuation = continuation
        self.finishOnInactive = finishOnInactive
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        continuation.yield(.data(Array(buffer.readableBytesView)))
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? GnuTLSHandshakeCompleted { continuation.yield(.handshake(event)) }
        if event is GnuTLSCloseNotifyReceived { continuation.yield(.closeNotify) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.yield(.error(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.yield(.inactive)
        if finishOnInactive { continuation.finish() }
        context.fireChannelInactive()
    }
}

/// Writes back whatever it reads.
final class TLSEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

/// A TLS (GnuTLS server) or plain TCP server on loopback, reporting the events of all its connections.
struct TLSTestServer {
    let channel: any Channel
    let events: AsyncStream<TLSTestEvent>
    var port: Int { channel.localAddress?.port ?? 0 }

    enum Behaviour: Sendable {
        /// GnuTLS server that echoes plaintext.
        case tlsEcho(TLSCredentials)
        /// Plain TCP server that echoes bytes (does not speak TLS).
        case plainEcho
        /// Plain TCP server that answers the first bytes with an HTTP error and stays open.
        case plainHTTP
        /// Plain TCP server that closes the connection when the first bytes arrive (mid-handshake).
        case closeOnFirstRead
    }

    static func start(host: String, _ behaviour: Behaviour) async throws -> TLSTestServer {
        let (events, continuation) = AsyncStream.makeStream(of: TLSTestEvent.self)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let pipeline = child.pipeline.syncOperations
                    switch behaviour {
                    case .tlsEcho(let credentials):
                        try pipeline.addHandler(GnuTLSHandler(role: .server(credentials)))
                        try pipeline.addHandler(TLSEventCollector(continuation, finishOnInactive: false))
                        try pipeline.addHandler(TLSEchoHandler())
                    case .plainEcho:
                        try pipeline.addHandler(TLSEchoHandler())
                    case .plainHTTP:
                        try pipeline.addHandler(TLSPlainHTTPHandler())
                    case .closeOnFirstRead:
                        try pipeline.addHandler(TLSCloseOnReadHandler())
                    }
                }
            }
            .bind(host: host, port: 0).get()
        return TLSTestServer(channel: channel, events: events)
    }

    func close() async throws {
        try await channel.close()
    }
}

/// Answers anything with a plain-text HTTP error, keeping the connection open.
final class TLSPlainHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = context.channel.allocator.buffer(string: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
    }
}

/// Closes the connection as soon as anything arrives.
final class TLSCloseOnReadHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.close(promise: nil)
    }
}

/// A GnuTLS client on loopback with its observed events.
struct TLSTestClient {
    let channel: any Channel
    var events: AsyncStream<TLSTestEvent>.AsyncIterator

    static func connect(host: String, port: Int) async throws -> TLSTestClient {
        let (events, continuation) = AsyncStream.makeStream(of: TLSTestEvent.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(GnuTLSHandler(role: .client))
                    try channel.pipeline.syncOperations.addHandler(TLSEventCollector(continuation, finishOnInactive: true))
                }
            }
            .connect(host: host, port: port).get()
        return TLSTestClient(channel: channel, events: events.makeAsyncIterator())
    }

    /// The next event, or `nil` once the channel closed and everything was seen.
    mutating func next() async -> TLSTestEvent? { await events.next() }

    /// Waits for the handshake event; returns it, or the event that came instead.
    mutating func handshake() async -> Result<GnuTLSHandshakeCompleted, TLSTestFailure> {
        while let event = await next() {
            switch event {
            case .handshake(let info): return .success(info)
            case .error(let error): return .failure(.error(error))
            case .inactive: return .failure(.closed)
            case .data, .closeNotify: continue
            }
        }
        return .failure(.closed)
    }

    /// Reads plaintext until `count` bytes arrived (or the connection ended).
    mutating func read(count: Int) async -> [UInt8] {
        var received: [UInt8] = []
        while received.count < count, let event = await next() {
            if case .data(let bytes) = event { received += bytes }
            if case .inactive = event { break }
        }
        return received
    }

    /// Sends bytes as one write.
    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }
}

/// Why a handshake did not complete in a test.
enum TLSTestFailure: Error {
    case error(any Error)
    case closed
}

/// Collects every event of a server until one matches.
func waitForServerEvent(
    _ events: AsyncStream<TLSTestEvent>, where matches: (TLSTestEvent) -> Bool
) async -> [TLSTestEvent] {
    var seen: [TLSTestEvent] = []
    for await event in events {
        seen.append(event)
        if matches(event) { break }
    }
    return seen
}
