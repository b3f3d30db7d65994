import CastTestSupport
import NIOCore
import Testing

@testable import CastTLS

/// Our GnuTLS client and server against OpenSSL (Python's `ssl` over memory BIOs on a real socket,
/// `Tests/Peers/openssl_peer.py`), TLS 1.2 and 1.3: session tickets, KeyUpdate, records split and
/// coalesced, maximum-size records, close_notify and abrupt close.
///
/// No test waits for time. The peer reports how many ciphertext bytes it has sent; our side
/// publishes what it decrypted after processing each read, so each test checks what had been
/// delivered at the exact moment the last byte the peer sent was processed. Data that GnuTLS
/// left in a buffer behind a ticket or a KeyUpdate fails the check at once, instead of arriving
/// later with the next read (which, in a request/response protocol, never comes).
@Suite(
    "TLS conformance against OpenSSL", .enabled(if: OpenSSLPeer.isAvailable, OpenSSLPeer.skipReason), .timeLimit(.minutes(2)),
    .serialized)  // one OpenSSL process at a time: the suite checks bytes, not speed, and shares two cores
struct TLSConformanceTests {
    static let versions = ["1.2", "1.3"]

    // MARK: - Helpers

    /// An OpenSSL server and our client, handshake done.
    private func clientPair(version: String, tickets: Int = 2, handshakeChunk: Int = 0) async throws
        -> (peer: OpenSSLPeer, ours: OurTLSSide, held: Int)
    {
        let peer = try await OpenSSLPeer.withTestCertificate(.server, version: version, tickets: tickets)
        let ours = try await OurTLSSide.client(port: peer.port)
        try await peer.run("accept")
        let answer = try await peer.run(handshakeChunk > 0 ? "handshake \(handshakeChunk)" : "handshake")
        let snapshot = await ours.handshake()
        #expect(snapshot.handshake?.protocolVersion == "TLS\(version)")
        #expect(answer.prefix(2) == ["HANDSHAKE", "TLSv\(version)"])
        return (peer, ours, answer.count == 4 ? Int(answer[3]) ?? 0 : 0)
    }

    /// Our server and an OpenSSL client, handshake done; our tickets (TLS 1.3) already read by the
    /// client, so what the client reads next is only what a test sends.
    private func serverPair(version: String, handshakeChunk: Int = 0) async throws
        -> (peer: OpenSSLPeer, ours: OurTLSSide, server: OurTLSServer)
    {
        let server = try await OurTLSServer.start()
        let peer = try await OpenSSLPeer.withTestCertificate(.client, version: version, connectTo: server.port)
        try await peer.run("connect")
        let ours = try await server.next()
        let answer = try await peer.run(handshakeChunk > 0 ? "handshake \(handshakeChunk)" : "handshake")
        #expect(answer.prefix(2) == ["HANDSHAKE", "TLSv\(version)"])
        let snapshot = await ours.handshake()
        #expect(snapshot.handshake?.protocolVersion == "TLS\(version)")
        try await ours.send(Array("ready".utf8))
        #expect(try await peer.read(5) == Array("ready".utf8))
        return (peer, ours, server)
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - Our client, OpenSSL server

    @Test("session tickets (0-3) in the same read as the first reply: the reply is delivered at once", arguments: 0...3)
    func ticketsCoalescedWithFirstReply(tickets: Int) async throws {
        let (peer, ours, held) = try await clientPair(version: "1.3", tickets: tickets)
        #expect((held > 0) == (tickets > 0), "the tickets were held back to share the reply's segment")
        try await peer.run("write first reply")
        let sent = try await peer.flush()
        let snapshot = await ours.probe.afterCiphertext(sent)
        #expect(text(snapshot.plaintext) == "first reply")
        #expect(snapshot.errors.isEmpty)
    }

    @Test("session tickets alone, then data in the next read", arguments: [1, 3])
    func ticketsApartFromData(tickets: Int) async throws {
        let (peer, ours, _) = try await clientPair(version: "1.3", tickets: tickets)
        let ticketsSent = try await peer.flush()
        let afterTickets = await ours.probe.afterCiphertext(ticketsSent)
        #expect(afterTickets.plaintext.isEmpty && afterTickets.errors.isEmpty && !afterTickets.inactive)
        try await peer.run("write later")
        let sent = try await peer.flush()
        #expect(text(await ours.probe.afterCiphertext(sent).plaintext) == "later")
    }

    @Test("a NewSessionTicket in mid-session, coalesced with data")
    func midSessionTicket() async throws {
        let (peer, ours, _) = try await clientPair(version: "1.3", tickets: 2)
        try await peer.run("write one;")
        _ = await ours.probe.afterCiphertext(try await peer.flush())
        try await peer.run("ticket")
        try await peer.run("ticket")
        try await peer.run("write two")
        let sent = try await peer.flush()
        #expect(text(await ours.probe.afterCiphertext(sent).plaintext) == "one;two")
    }

    @Test("a KeyUpdate from the server coalesced with data; an update request is answered at once", arguments: [0, 1])
    func serverKeyUpdate(requested: Int) async throws {
        let (peer, ours, _) = try await clientPair(version: "1.3", tickets: 1)
        try await peer.run("keyupdate \(requested)")
        try await peer.run("write after the update")
        let sent = try await peer.flush()
        let snapshot = await ours.probe.afterCiphertext(sent)
        #expect(text(snapshot.plaintext) == "after the update")
        if requested == 1 {
            // Our KeyUpdate arrives although we sent no application data.
            let records = try await peer.run("readrecords 1")
            #expect(records == ["RECORDS", "1", "PLAIN", "-"])
        }
        // Both directions still decrypt under the new keys.
        try await ours.send(Array("reply".utf8))
        #expect(try await peer.read(5) == Array("reply".utf8))
        try await peer.run("keyupdate \(requested)")
        try await peer.run("write again")
        #expect(text(await ours.probe.afterCiphertext(try await peer.flush()).plaintext) == "after the updateagain")
        #expect(ours.probe.current.errors.isEmpty)
    }

    @Test("every record split into 1-byte segments, handshake included", arguments: versions)
    func clientOneByteSegments(version: String) async throws {
        let (peer, ours, _) = try await clientPair(version: version, tickets: 2, handshakeChunk: 1)
        try await peer.run("write split into single bytes")
        let sent = try await peer.flush(chunk: 1)
        let snapshot = await ours.probe.afterCiphertext(sent)
        #expect(text(snapshot.plaintext) == "split into single bytes")
        #expect(snapshot.errors.isEmpty)
    }

    @Test("many records in one read", arguments: versions)
    func clientManyRecordsInOneRead(version: String) async throws {
        let (peer, ours, _) = try await clientPair(version: version, tickets: 2)
        var expected = ""
        for index in 0..<100 {
            try await peer.run("write <\(index)>")
            expected += "<\(index)>"
        }
        let sent = try await peer.flush()
        #expect(text(await ours.probe.afterCiphertext(sent).plaintext) == expected)
    }

    @Test("maximum-size records both ways", arguments: versions)
    func clientMaximumSizeRecords(version: String) async throws {
        let (peer, ours, _) = try await clientPair(version: version, tickets: 2)
        try await peer.run("writepattern 70000")  // four full 16 KiB records and a partial one
        let sent = try await peer.flush()
        #expect(await ours.probe.afterCiphertext(sent).plaintext == OpenSSLPeer.pattern(offset: 0, count: 70000))
        let outgoing = TLSTestFixtures.payload(70000)
        try await ours.send(outgoing)
        #expect(try await peer.read(70000) == outgoing)
    }

    @Test("close_notify in the same read as the last data: data first, then a clean close both ways", arguments: versions)
    func clientCloseNotify(version: String) async throws {
        let (peer, ours, _) = try await clientPair(version: version, tickets: 2)
        try await peer.run("write goodbye")
        try await peer.run("closenotify")
        let sent = try await peer.flush()
        let snapshot = await ours.probe.afterCiphertext(sent)
        #expect(text(snapshot.plaintext) == "goodbye")
        #expect(snapshot.closeNotify)
        #expect(try await peer.run("awaitclose") == ["CLOSED", "closenotify=1"])
        let closed = await ours.probe.wait { $0.inactive }
        #expect(closed.errors.isEmpty)
    }

    @Test("an abrupt close after data: data delivered, then uncleanShutdown", arguments: versions)
    func clientAbruptClose(version: String) async throws {
        let (peer, ours, _) = try await clientPair(version: version, tickets: 2)
        try await peer.run("write last words")
        _ = try await peer.flush()
        try await peer.run("abort")
        let closed = await ours.probe.wait { $0.inactive }
        #expect(text(closed.plaintext) == "last words")
        #expect(closed.errors.map(\.code) == [.uncleanShutdown])
        #expect(!closed.closeNotify)
    }

    // MARK: - Our server, OpenSSL client

    @Test("a KeyUpdate from the client coalesced with a request; an update request is answered at once", arguments: [0, 1])
    func clientKeyUpdate(requested: Int) async throws {
        let (peer, ours, server) = try await serverPair(version: "1.3")
        defer { Task { await server.close() } }
        try await peer.run("keyupdate \(requested)")
        try await peer.run("write request")
        let sent = try await peer.flush()
        #expect(text(await ours.probe.afterCiphertext(sent).plaintext) == "request")
        if requested == 1 {
            #expect(try await peer.run("readrecords 1") == ["RECORDS", "1", "PLAIN", "-"])
        }
        try await ours.send(Array("response".utf8))
        #expect(try await peer.read(8) == Array("response".utf8))
        try await peer.run("keyupdate 1")
        try await peer.run("write second")
        #expect(text(await ours.probe.afterCiphertext(try await peer.flush()).plaintext) == "requestsecond")
        #expect(ours.probe.current.errors.isEmpty)
    }

    @Test("server: every record split into 1-byte segments, handshake included", arguments: versions)
    func serverOneByteSegments(version: String) async throws {
        let (peer, ours, server) = try await serverPair(version: version, handshakeChunk: 1)
        defer { Task { await server.close() } }
        try await peer.run("write one byte at a time")
        let sent = try await peer.flush(chunk: 1)
        #expect(text(await ours.probe.afterCiphertext(sent).plaintext) == "one byte at a time")
    }

    @Test("server: many records in one read", arguments: versions)
    func serverManyRecords(version: String) async throws {
        let (peer, ours, server) = try await serverPair(version: version)
        defer { Task { await server.close() } }
        var expected = ""
        for index in 0..<100 {
            try await peer.run("write [\(index)]")
            expected += "[\(index)]"
        }
        #expect(text(await ours.probe.afterCiphertext(try await peer.flush()).plaintext) == expected)
    }

    @Test("server: maximum-size records both ways", arguments: versions)
    func serverMaximumSizeRecords(version: String) async throws {
        let (peer, ours, server) = try await serverPair(version: version)
        defer { Task { await server.close() } }
        try await peer.run("writepattern 70000")
        #expect(await ours.probe.afterCiphertext(try await peer.flush()).plaintext == OpenSSLPeer.pattern(offset: 0, count: 70000))
        let outgoing = TLSTestFixtures.payload(70000)
        try await ours.send(outgoing)
        #expect(try await peer.read(70000) == outgoing)
    }

    @Test("server: close_notify with the last request, then a clean close both ways", arguments: versions)
    func serverCloseNotify(version: String) async throws {
        let (peer, ours, server) = try await serverPair(version: version)
        defer { Task { await server.close() } }
        try await peer.run("write bye")
        try await peer.run("closenotify")
        let snapshot = await ours.probe.afterCiphertext(try await peer.flush())
        #expect(text(snapshot.plaintext) == "bye")
        #expect(snapshot.closeNotify)
        #expect(try await peer.run("awaitclose") == ["CLOSED", "closenotify=1"])
        #expect(await ours.probe.wait { $0.inactive }.errors.isEmpty)
    }

    @Test("server: a client that vanishes (TCP reset) mid-session is reported, its data kept", arguments: versions)
    func serverAbruptClose(version: String) async throws {
        let (peer, ours, server) = try await serverPair(version: version)
        defer { Task { await server.close() } }
        try await peer.run("write partial")
        _ = await ours.probe.afterCiphertext(try await peer.flush())
        try await peer.run("abort rst")
        let closed = await ours.probe.wait { $0.inactive }
        #expect(text(closed.plaintext) == "partial")
        #expect(!closed.closeNotify)
        #expect(!closed.errors.isEmpty || !closed.otherErrors.isEmpty, "the reset is reported")
    }
}
