import CastTestSupport
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import CastTLS

extension OpenSSLPeer {
    /// Why the conformance tests are skipped when no Python is found.
    static let skipReason: Comment = "needs python3 with the ssl module (set CASTOR_PYTHON or install python3)"

    /// A peer presenting the shared test certificate when it is a server.
    static func withTestCertificate(_ role: Role, version: String, tickets: Int = 2, connectTo port: Int = 0) async throws -> OpenSSLPeer {
        let credentials = try TLSTestFixtures.credentials.get()
        return try await start(role, version: version, tickets: tickets, connectTo: port,
                               certificatePEM: credentials.certificatePEM, privateKeyPEM: credentials.privateKeyPEM)
    }
}

// MARK: - Our side

/// What our side of a conformance connection has seen, observable at exact points of the
/// ciphertext stream: every change is published after the TLS handler has processed a read.
final class TLSProbe: Sendable {
    struct Snapshot: Sendable, CustomStringConvertible {
        /// Ciphertext bytes read from the socket and already processed by the TLS handler.
        var rawBytes = 0
        /// How many socket reads delivered them.
        var reads = 0
        var plaintext: [UInt8] = []
        var handshake: GnuTLSHandshakeCompleted?
        var closeNotify = false
        var errors: [TLSError] = []
        var otherErrors: [String] = []
        var inactive = false

        /// A short summary for failure messages (no certificate bytes).
        var description: String {
            let text = String(decoding: plaintext.prefix(80), as: UTF8.self)
            return "\(rawBytes) ciphertext bytes in \(reads) reads; plaintext \(plaintext.count) bytes \"\(text)\"; "
                + "handshake \(handshake?.protocolVersion ?? "none"); closeNotify \(closeNotify); errors \(errors.map(\.description) + otherErrors); inactive \(inactive)"
        }
    }

    private struct State {
        var snapshot = Snapshot()
        var waiters: [(predicate: @Sendable (Snapshot) -> Bool, continuation: CheckedContinuation<Snapshot, Never>)] = []
    }
    private let state = Mutex(State())

    var current: Snapshot { state.withLock { $0.snapshot } }

    func update(_ body: (inout Snapshot) -> Void) {
        let ready = state.withLock { state -> [(CheckedContinuation<Snapshot, Never>, Snapshot)] in
            body(&state.snapshot)
            let snapshot = state.snapshot
            var ready: [(CheckedContinuation<Snapshot, Never>, Snapshot)] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(snapshot) else { return false }
                ready.append((waiter.continuation, snapshot))
                return true
            }
            return ready
        }
        for (continuation, snapshot) in ready { continuation.resume(returning: snapshot) }
    }

    /// The first snapshot satisfying `predicate` (the current one if it already does). Ends
    /// with the final snapshot when the connection closes first.
    func wait(until predicate: @escaping @Sendable (Snapshot) -> Bool) async -> Snapshot {
        await withCheckedContinuation { continuation in
            let now: Snapshot? = state.withLock { state in
                if predicate(state.snapshot) { return state.snapshot }
                state.waiters.append(({ predicate($0) || $0.inactive }, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// The snapshot taken right after the TLS handler processed ciphertext byte number `count`.
    func afterCiphertext(_ count: Int) async -> Snapshot {
        await wait { $0.rawBytes >= count }
    }
}

/// First in the pipeline: counts ciphertext, and publishes the count only after everything above
/// (the TLS handler, the recorder) has handled the read.
final class RawCountingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let probe: TLSProbe
    init(_ probe: TLSProbe) { self.probe = probe }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let count = unwrapInboundIn(data).readableBytes
        context.fireChannelRead(data)
        probe.update {
            $0.rawBytes += count
            $0.reads += 1
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        context.fireChannelInactive()
        probe.update { $0.inactive = true }
    }
}

/// Last in the pipeline: records plaintext and TLS events.
final class ProbeRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let probe: TLSProbe
    init(_ probe: TLSProbe) { self.probe = probe }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        probe.update { $0.plaintext += bytes }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? GnuTLSHandshakeCompleted { probe.update { $0.handshake = event } }
        if event is GnuTLSCloseNotifyReceived { probe.update { $0.closeNotify = true } }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? TLSError {
            probe.update { $0.errors.append(error) }
        } else {
            probe.update { $0.otherErrors.append("\(error)") }
        }
    }
}

/// Our GnuTLS end of one conformance connection.
struct OurTLSSide {
    let channel: any Channel
    let probe: TLSProbe

    static func install(on channel: any Channel, role: GnuTLSHandler.Role, probe: TLSProbe) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(RawCountingHandler(probe))
        try pipeline.addHandler(GnuTLSHandler(role: role))
        try pipeline.addHandler(ProbeRecorder(probe))
    }

    /// Connects our client to a peer listening on `port`.
    static func client(port: Int) async throws -> OurTLSSide {
        let probe = TLSProbe()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(60))  // NIO's 10 s default ran out under make test's load; nothing here is timed
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try install(on: channel, role: .client, probe: probe) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return OurTLSSide(channel: channel, probe: probe)
    }

    /// Writes and flushes plaintext.
    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Waits for the handshake (or the end of the connection).
    func handshake() async -> TLSProbe.Snapshot {
        await probe.wait { $0.handshake != nil || !$0.errors.isEmpty }
    }
}

/// Our GnuTLS server, accepting one conformance connection.
struct OurTLSServer {
    let listener: any Channel
    let accepted: AsyncStream<OurTLSSide>
    var port: Int { listener.localAddress?.port ?? 0 }

    static func start() async throws -> OurTLSServer {
        let credentials = try TLSTestFixtures.credentials.get()
        let (accepted, continuation) = AsyncStream.makeStream(of: OurTLSSide.self)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let probe = TLSProbe()
                    try OurTLSSide.install(on: child, role: .server(credentials), probe: probe)
                    continuation.yield(OurTLSSide(channel: child, probe: probe))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return OurTLSServer(listener: listener, accepted: accepted)
    }

    func next() async throws -> OurTLSSide {
        var iterator = accepted.makeAsyncIterator()
        guard let side = await iterator.next() else { throw OpenSSLPeerError(message: "the server closed") }
        return side
    }

    func close() async {
        try? await listener.close()
    }
}
