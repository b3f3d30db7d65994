import CastTLS
import NIOCore
import NIOPosix

/// The floor: a bare GnuTLS connection (CastTransport's `GnuTLSHandler`, nothing else) to an echo server.
///
/// No framing, no protobuf, no JSON, no request tracking: what is left is TCP on loopback, TLS
/// record encryption and, with the caller on the shared pool, the hops between the event loop and the
/// awaiting task (none with the caller on the loop: `floor-rtt --caller loop`).
enum RawTLS {
    /// Answers each request with as many bytes as its first four bytes ask for (big-endian), so a
    /// round trip can have a request and a reply of realistic, different sizes.
    final class EchoHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var request = unwrapInboundIn(data)
            guard let size = request.readInteger(as: UInt32.self) else { return }
            var reply = context.channel.allocator.buffer(capacity: Int(size))
            reply.writeRepeatingByte(0x2A, count: Int(size))
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        }
    }

    /// A request of `requestSize` bytes asking for a reply of `replySize` bytes.
    static func request(size requestSize: Int, replySize: Int) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(replySize))
        buffer.writeRepeatingByte(0x2B, count: max(0, requestSize - 4))
        return buffer
    }

    /// Starts an echo server on 127.0.0.1 and returns its channel.
    static func startEchoServer(credentials: TLSCredentials, group: any EventLoopGroup) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(GnuTLSHandler(role: .server(credentials)))
                    try child.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Client side: completes a promise once `expected` bytes came back.
    final class ReplyHandler: ChannelInboundHandler, @unchecked Sendable {
        // Loop-bound state: touched only on the channel's event loop.
        typealias InboundIn = ByteBuffer
        private var pending: (remaining: Int, promise: EventLoopPromise<Void>)?
        private var handshake: EventLoopPromise<Void>?

        init(handshake: EventLoopPromise<Void>) {
            self.handshake = handshake
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is GnuTLSHandshakeCompleted {
                handshake?.succeed()
                handshake = nil
            }
            context.fireUserInboundEventTriggered(event)
        }

        func expect(_ count: Int, _ promise: EventLoopPromise<Void>) {
            pending = (count, promise)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            guard var current = pending else { return }
            current.remaining -= buffer.readableBytes
            if current.remaining <= 0 {
                pending = nil
                current.promise.succeed()
            } else {
                pending = current
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            handshake?.fail(error)
            handshake = nil
            pending?.promise.fail(error)
            pending = nil
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            handshake?.fail(BenchError("echo connection closed during the handshake"))
            handshake = nil
            pending?.promise.fail(BenchError("echo connection closed"))
            pending = nil
        }
    }

    /// One client connection to the echo server.
    struct Client {
        let channel: any Channel
        let replies: ReplyHandler

        /// Connects and completes the TLS handshake.
        static func connect(port: Int, group: any EventLoopGroup) async throws -> Client {
            let loop = group.next()
            let handshake = loop.makePromise(of: Void.self)
            let replies = ReplyHandler(handshake: handshake)
            let channel = try await ClientBootstrap(group: loop)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(GnuTLSHandler(role: .client))
                        try channel.pipeline.syncOperations.addHandler(replies)
                    }
                }
                .connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: port)).get()
            try await handshake.futureResult.get()
            return Client(channel: channel, replies: replies)
        }

        /// Sends `payload` (made by ``RawTLS/request(size:replySize:)``) and waits for the whole reply.
        func roundTrip(_ payload: ByteBuffer, replySize count: Int) async throws {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            if channel.eventLoop.inEventLoop {
                replies.expect(count, promise)
                channel.writeAndFlush(payload, promise: nil)
            } else {
                channel.eventLoop.execute {
                    replies.expect(count, promise)
                    channel.writeAndFlush(payload, promise: nil)
                }
            }
            try await promise.futureResult.get()
        }

        func close() async {
            try? await channel.close()
        }
    }
}
