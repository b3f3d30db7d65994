import NIOCore
import NIOEmbedded
import Testing

@testable import CastTLS

/// Records user events and errors on an `EmbeddedChannel`, passing reads on to `readInbound`.
final class TLSEventRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    var handshakes: [GnuTLSHandshakeCompleted] = []
    var closeNotifies = 0
    var errors: [any Error] = []

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? GnuTLSHandshakeCompleted { handshakes.append(event) }
        if event is GnuTLSCloseNotifyReceived { closeNotifies += 1 }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }
}

/// A client and a server `EmbeddedChannel`, each with a `GnuTLSHandler`, joined by ferrying bytes.
struct TLSEmbeddedPair {
    let client = EmbeddedChannel()
    let server = EmbeddedChannel()
    let clientRecorder = TLSEventRecorder()
    let serverRecorder = TLSEventRecorder()
    let clientHandler: GnuTLSHandler
    let serverHandler: GnuTLSHandler

    init(credentials: TLSCredentials) throws {
        clientHandler = try GnuTLSHandler(role: .client)
        serverHandler = try GnuTLSHandler(role: .server(credentials))
        try client.pipeline.syncOperations.addHandlers([clientHandler, clientRecorder])
        try server.pipeline.syncOperations.addHandlers([serverHandler, serverRecorder])
    }

    func activate() throws {
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 8009)
        try server.connect(to: address).wait()
        try client.connect(to: address).wait()
    }

    /// Moves ciphertext both ways until neither side has anything left to send.
    /// - Returns: the number of ciphertext buffers moved.
    @discardableResult
    func ferry() throws -> Int {
        var moved = 0
        var progress = true
        while progress {
            progress = false
            while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                if server.isActive { try server.writeInbound(bytes) }
                moved += 1
                progress = true
            }
            while let bytes = try server.readOutbound(as: ByteBuffer.self) {
                if client.isActive { try client.writeInbound(bytes) }
                moved += 1
                progress = true
            }
        }
        return moved
    }

    /// All plaintext that reached the top of `channel`'s pipeline.
    static func readAll(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return bytes
    }
}

@Suite("GnuTLS between two EmbeddedChannels (no sockets)")
struct TLSInMemoryTests {
    @Test("handshake, writes made before it are delivered after it, data both ways")
    func handshakeAndData() throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let pair = try TLSEmbeddedPair(credentials: credentials)
        // Written (and flushed) before the channel is even active: held back until the handshake ends.
        // (`writeOutbound` would wait for the write's completion, which only happens after the handshake.)
        let early = pair.client.writeAndFlush(ByteBuffer(string: "early bird"))
        #expect(try pair.client.readOutbound(as: ByteBuffer.self) == nil)
        var earlyDone = false
        early.assumeIsolated().whenSuccess { earlyDone = true }

        try pair.activate()
        #expect(try pair.ferry() > 0)
        #expect(pair.clientRecorder.handshakes.count == 1)
        #expect(pair.serverRecorder.handshakes.count == 1)
        let clientHandshake = try #require(pair.clientHandler.handshakeFuture)
        #expect(try clientHandshake.wait() == pair.clientRecorder.handshakes.first)
        #expect(pair.clientHandler.peerCertificateDER == credentials.certificateDER)
        #expect(pair.serverHandler.peerCertificateDER == nil)  // the client presents no certificate
        #expect(pair.clientHandler.negotiated?.protocolVersion == pair.serverHandler.negotiated?.protocolVersion)
        #expect(try TLSEmbeddedPair.readAll(pair.server) == Array("early bird".utf8))
        #expect(earlyDone)

        let big = TLSTestFixtures.payload(300_000)
        try pair.server.writeOutbound(ByteBuffer(bytes: big))
        // What goes over the "wire" is not the plaintext.
        let wire = try #require(try pair.server.readOutbound(as: ByteBuffer.self))
        #expect(wire.readableBytes > big.count)
        #expect(Array(wire.readableBytesView.prefix(64)) != Array(big.prefix(64)))
        try pair.client.writeInbound(wire)
        try pair.ferry()
        #expect(try TLSEmbeddedPair.readAll(pair.client) == big)
        #expect(pair.clientRecorder.errors.isEmpty)
        #expect(pair.serverRecorder.errors.isEmpty)
    }

    /// A read that brings only a record without application data (here a KeyUpdate; a TLS 1.3 session
    /// ticket is handled the same way) is acknowledged at once: our delayed ACK otherwise held the next
    /// write of a peer with Nagle's algorithm on for 40 ms (issue 45; the time is a `make bench` row).
    @Test("a record without application data is acknowledged at once (TCP_QUICKACK); data is not")
    func recordsWithoutDataAreAcknowledgedAtOnce() throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let pair = try TLSEmbeddedPair(credentials: credentials)
        try pair.activate()
        try pair.ferry()
        try #require(pair.clientHandler.negotiated?.protocolVersion == "TLS1.3")
        func quickAcks() -> Int {
            pair.client.options.filter { ($0.option as? ChannelOptions.Types.SocketOption) == GnuTLSHandler.quickAck }.count
        }
        let afterHandshake = quickAcks()
        try pair.server.writeOutbound(ByteBuffer(string: "data"))
        try pair.ferry()
        #expect(try TLSEmbeddedPair.readAll(pair.client) == Array("data".utf8))
        #expect(quickAcks() == afterHandshake, "a read with data gets its ACK with the answer")
        let context = try pair.server.pipeline.syncOperations.context(handler: pair.serverHandler)
        pair.serverHandler.updateKeys(requestingPeers: false, context: context)
        try pair.ferry()
        #expect(quickAcks() == afterHandshake + 1, "the KeyUpdate alone: acknowledged at once")
        #expect(pair.clientRecorder.errors.isEmpty)
    }

    @Test("ciphertext delivered one byte at a time still decrypts")
    func byteByByte() throws {
        let pair = try TLSEmbeddedPair(credentials: try TLSTestFixtures.credentials.get())
        try pair.activate()
        try pair.ferry()
        try pair.client.writeOutbound(ByteBuffer(string: "split across reads"))
        var wire = try #require(try pair.client.readOutbound(as: ByteBuffer.self))
        while let byte = wire.readSlice(length: 1) { try pair.server.writeInbound(byte) }
        #expect(try TLSEmbeddedPair.readAll(pair.server) == Array("split across reads".utf8))
    }

    @Test("close sends close_notify; the peer reports it, answers and closes without error")
    func closeNotify() throws {
        let pair = try TLSEmbeddedPair(credentials: try TLSTestFixtures.credentials.get())
        try pair.activate()
        try pair.ferry()
        let closed = pair.client.close()
        try pair.ferry()
        try closed.wait()
        #expect(pair.serverRecorder.closeNotifies == 1)
        #expect(!pair.server.isActive)
        #expect(pair.serverRecorder.errors.isEmpty)
        #expect(pair.clientRecorder.errors.isEmpty)
    }

    @Test("corrupted ciphertext is a TLSError and closes the channel")
    func corruption() throws {
        let pair = try TLSEmbeddedPair(credentials: try TLSTestFixtures.credentials.get())
        try pair.activate()
        try pair.ferry()
        try pair.client.writeOutbound(ByteBuffer(string: "tamper with me"))
        var wire = try #require(try pair.client.readOutbound(as: ByteBuffer.self))
        let last = wire.writerIndex - 1
        wire.setInteger(wire.getInteger(at: last, as: UInt8.self)! ^ 0xFF, at: last)
        try pair.server.writeInbound(wire)
        #expect(try TLSEmbeddedPair.readAll(pair.server).isEmpty)
        let error = try #require(pair.serverRecorder.errors.first as? TLSError)
        #expect(error.code == .recordFailed)
        #expect(!pair.server.isActive)
        // Writes after the failure are refused.
        #expect(throws: TLSError.self) { try pair.server.writeOutbound(ByteBuffer(string: "late")) }
    }

    @Test("garbage instead of a ServerHello fails the client's handshake")
    func garbageHandshake() throws {
        let pair = try TLSEmbeddedPair(credentials: try TLSTestFixtures.credentials.get())
        try pair.client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8009)).wait()
        #expect(try pair.client.readOutbound(as: ByteBuffer.self) != nil)  // the ClientHello
        try pair.client.writeInbound(ByteBuffer(string: "SSH-2.0-OpenSSH_9.6\r\n"))
        let error = try #require(pair.clientRecorder.errors.first as? TLSError)
        #expect(error.code == .handshakeFailed)
        #expect(!pair.client.isActive)
        #expect(pair.clientRecorder.handshakes.isEmpty)
        let handshake = try #require(pair.clientHandler.handshakeFuture)
        #expect(throws: TLSError.self) { try handshake.wait() }
    }
}
