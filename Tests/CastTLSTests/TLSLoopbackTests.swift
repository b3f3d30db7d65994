import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import CastTLS

@Suite("GnuTLS over real loopback sockets", .timeLimit(.minutes(2)))
struct TLSLoopbackTests {
    @Test("handshake, peer certificate and echo round trips over IPv4")
    func roundTripIPv4() async throws {
        try await roundTrip(host: "127.0.0.1")
    }

    @Test(
        "handshake, peer certificate and echo round trips over IPv6",
        .enabled(if: TLSTestFixtures.loopbackIPv6Available, "needs an IPv6 loopback address (::1)"))
    func roundTripIPv6() async throws {
        try await roundTrip(host: "::1")
    }

    private func roundTrip(host: String) async throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: host, .tlsEcho(credentials))
        var client = try await TLSTestClient.connect(host: host, port: server.port)

        let info = try await client.handshake().get()
        #expect(info.protocolVersion.hasPrefix("TLS1."))
        #expect(["TLS1.2", "TLS1.3"].contains(info.protocolVersion))
        #expect(info.peerCertificateDER == credentials.certificateDER)

        // Small message.
        let hello = Array("hello cast".utf8)
        try await client.send(hello)
        #expect(await client.read(count: hello.count) == hello)

        // 1 MiB in one write: spans many TLS records both ways.
        let big = TLSTestFixtures.payload(1 << 20)
        try await client.send(big)
        let echoed = await client.read(count: big.count)
        #expect(echoed.count == big.count)
        #expect(echoed == big)

        // Many small writes flushed together.
        let pieces = (0..<200).map { TLSTestFixtures.payload(100 + $0) }
        for piece in pieces { client.channel.write(ByteBuffer(bytes: piece), promise: nil) }
        client.channel.flush()
        let expected = pieces.flatMap { $0 }
        #expect(await client.read(count: expected.count) == expected)

        try await client.channel.close()
        try await server.close()
    }

    @Test("one event loop group serves many concurrent TLS connections sharing one credentials object")
    func concurrentClients() async throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: "127.0.0.1", .tlsEcho(credentials))
        let port = server.port
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<12 {
                group.addTask {
                    var client = try await TLSTestClient.connect(host: "127.0.0.1", port: port)
                    let info = try await client.handshake().get()
                    let message = TLSTestFixtures.payload(10_000 + index)
                    try await client.send(message)
                    let echoed = await client.read(count: message.count)
                    try await client.channel.close()
                    return echoed == message && info.peerCertificateDER == credentials.certificateDER
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 12))
        try await server.close()
    }

    @Test("closing the client sends close_notify: the server sees a clean shutdown, no error")
    func closeNotifyShutdown() async throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: "127.0.0.1", .tlsEcho(credentials))
        var client = try await TLSTestClient.connect(host: "127.0.0.1", port: server.port)
        _ = try await client.handshake().get()
        try await client.send(Array("bye".utf8))
        #expect(await client.read(count: 3) == Array("bye".utf8))

        try await client.channel.close()
        let serverEvents = await waitForServerEvent(server.events) { if case .inactive = $0 { true } else { false } }
        #expect(serverEvents.contains { if case .closeNotify = $0 { true } else { false } })
        #expect(!serverEvents.contains { if case .error = $0 { true } else { false } })

        // The client saw no error either, just its own channel going inactive.
        var clientEvents: [TLSTestEvent] = []
        while let event = await client.next() { clientEvents.append(event) }
        #expect(!clientEvents.contains { if case .error = $0 { true } else { false } })
        try await server.close()
    }

    @Test("writes after close fail with TLSError .closed")
    func writeAfterClose() async throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: "127.0.0.1", .tlsEcho(credentials))
        var client = try await TLSTestClient.connect(host: "127.0.0.1", port: server.port)
        _ = try await client.handshake().get()
        try await client.channel.close()
        await #expect(throws: (any Error).self) { try await client.send([1, 2, 3]) }
        try await server.close()
    }

    @Test("a client talking to a plain echo server gets a TLSError, not a hang")
    func plainEchoServer() async throws {
        try await expectHandshakeFailure(against: .plainEcho)
    }

    @Test("a client talking to a plain HTTP server gets a TLSError, not a hang")
    func plainHTTPServer() async throws {
        try await expectHandshakeFailure(against: .plainHTTP)
    }

    @Test("a server closing mid-handshake gives the client a TLSError")
    func serverClosesMidHandshake() async throws {
        try await expectHandshakeFailure(against: .closeOnFirstRead)
    }

    private func expectHandshakeFailure(against behaviour: TLSTestServer.Behaviour) async throws {
        let server = try await TLSTestServer.start(host: "127.0.0.1", behaviour)
        var client = try await TLSTestClient.connect(host: "127.0.0.1", port: server.port)
        let result = await client.handshake()
        guard case .failure(.error(let error)) = result else {
            Issue.record("expected a TLS error, got \(result)")
            return
        }
        let tlsError = try #require(error as? TLSError)
        #expect(tlsError.code == .handshakeFailed)
        #expect(tlsError.gnutlsErrorCode != nil)
        #expect(tlsError.gnutlsDescription?.isEmpty == false)
        // The channel closes after the error.
        var rest: [TLSTestEvent] = []
        while let event = await client.next() { rest.append(event) }
        #expect(rest.contains { if case .inactive = $0 { true } else { false } })
        #expect(!client.channel.isActive)
        try await server.close()
    }

    @Test("a client that closes mid-handshake gives the server a TLSError")
    func clientClosesMidHandshake() async throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: "127.0.0.1", .tlsEcho(credentials))
        // A raw TCP client: the start of a TLS handshake record announcing 512 bytes, then nothing.
        let raw = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: server.port).get()
        try await raw.writeAndFlush(ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]))
        try await raw.close()

        let events = await waitForServerEvent(server.events) { if case .inactive = $0 { true } else { false } }
        let errors = events.compactMap { event -> TLSError? in
            if case .error(let error) = event { error as? TLSError } else { nil }
        }
        #expect(errors.count == 1)
        #expect(errors.first?.code == .handshakeFailed)
        #expect(!events.contains { if case .handshake = $0 { true } else { false } })
        try await server.close()
    }

    @Test("a peer vanishing after the handshake without close_notify is an unclean shutdown")
    func uncleanShutdownAfterHandshake() async throws {
        // The server side is a TLS echo server; the client is a GnuTLS client whose TCP socket we
        // close underneath the TLS handler (by removing nothing: closing output at the socket level).
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: "127.0.0.1", .tlsEcho(credentials))
        var client = try await TLSTestClient.connect(host: "127.0.0.1", port: server.port)
        _ = try await client.handshake().get()
        // Half-closing the output is passed through the TLS handler unchanged: a TCP FIN without close_notify.
        try await client.channel.close(mode: .output)
        let events = await waitForServerEvent(server.events) { if case .inactive = $0 { true } else { false } }
        let errors = events.compactMap { event -> TLSError? in
            if case .error(let error) = event { error as? TLSError } else { nil }
        }
        #expect(errors.map(\.code) == [.uncleanShutdown])
        #expect(!events.contains { if case .closeNotify = $0 { true } else { false } })
        // The server closed the connection after the error, so the client channel may already be gone.
        try? await client.channel.close()
        try await server.close()
    }
}
