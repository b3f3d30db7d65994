import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A loopback HTTP server that answers each request with a scripted reply, including hostile ones
/// (an endless body, an endless header, garbage, silence), and records the request heads it read.
final class ScriptedHTTPServer: Sendable {
    /// What the server sends for a request.
    enum Reply: Sendable {
        /// These bytes, then close.
        case bytes([UInt8])
        /// `prefix`, then `chunk` over and over until the client goes away.
        case endless(prefix: [UInt8], chunk: [UInt8])
        /// Nothing; the connection stays open.
        case silent
    }

    /// A well-formed response with `Content-Length`.
    static func response(_ status: String, _ headers: [(String, String)], _ body: [UInt8]) -> Reply {
        var head = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return .bytes(Array(head.utf8) + body)
    }

    let port: Int
    private let channel: any Channel
    private let state: Mutex<State>

    private struct State {
        var heads: [String] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var bytesWritten = 0
    }

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
        self.state = Mutex(State())
    }

    /// Starts on 127.0.0.1 and a free port; `route` picks the reply from the request target.
    static func start(_ route: @escaping @Sendable (String) -> Reply) async throws -> ScriptedHTTPServer {
        try await start(heads: { target, _ in route(target) })
    }

    /// Starts on 127.0.0.1 and a free port; `route` picks the reply from the request target and the
    /// whole request head (for its `Range` header).
    static func start(heads route: @escaping @Sendable (String, String) -> Reply) async throws -> ScriptedHTTPServer {
        let box = StateBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptHandler(route: route, box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel)
        box.server.withLock { $0 = server }
        return server
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The request heads read so far.
    var requestHeads: [String] { state.withLock { $0.heads } }

    /// How many body bytes the server wrote for endless replies.
    var endlessBytesWritten: Int { state.withLock { $0.bytesWritten } }

    /// Waits until `count` request heads were read (real I/O, not a timer).
    func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.heads.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func close() async {
        try? await channel.close()
    }

    fileprivate func received(_ head: String) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.heads.append(head)
            let count = state.heads.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    fileprivate func wrote(_ count: Int) {
        state.withLock { $0.bytesWritten += count }
    }
}

private final class StateBox: Sendable {
    let server = Mutex<ScriptedHTTPServer?>(nil)
}

private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let route: @Sendable (String, String) -> ScriptedHTTPServer.Reply
    private let box: StateBox
    private var buffered: [UInt8] = []
    private var answered = false

    init(route: @escaping @Sendable (String, String) -> ScriptedHTTPServer.Reply, box: StateBox) {
        self.route = route
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        var buffer = unwrapInboundIn(data)
        buffered += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let end = buffered.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if buffered.count > 65_536 { context.close(promise: nil) }
            return
        }
        answered = true
        let head = String(decoding: buffered[..<end.lowerBound], as: UTF8.self)
        let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let server = box.server.withLock { $0 }
        server?.received(head)
        switch route(target, head) {
        case .bytes(let bytes):
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
                .whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        case .endless(let prefix, let chunk):
            context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: prefix)), promise: nil)
            Self.pump(context.channel, chunk: chunk, server: server)
        case .silent:
            break
        }
    }

    /// Writes `chunk` again each time the previous write went out, until the channel closes.
    private static func pump(_ channel: any Channel, chunk: [UInt8], server: ScriptedHTTPServer?) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: chunk)).whenComplete { result in
            guard case .success = result else { return }
            server?.wrote(chunk.count)
            // Through the loop, so a write that completes at once does not recurse.
            channel.eventLoop.execute { pump(channel, chunk: chunk, server: server) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
