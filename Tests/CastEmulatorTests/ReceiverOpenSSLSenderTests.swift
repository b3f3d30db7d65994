import CastJSON
import CastTestSupport
import CastCore
import Testing

@testable import CastEmulator

/// The emulated receiver against an OpenSSL sender (Python's `ssl`, `Tests/Peers/openssl_peer.py`),
/// on a manual clock that never moves: every answer must come on its own, not when a timer fires.
@Suite(
    "EmulatedReceiver and an OpenSSL sender", .enabled(if: OpenSSLPeer.isAvailable, "needs python3 with the ssl module"),
    .timeLimit(.minutes(1)), .serialized)
struct ReceiverOpenSSLSenderTests {
    @Test("a request in the same segment as the sender's KeyUpdate is answered at once", arguments: ["none", "0", "1"])
    func keyUpdateBeforeARequest(keyUpdate: String) async throws {
        let clock = ManualClock()
        let receiver = EmulatedReceiver(configuration: .init(clock: clock, replyLatency: .zero))
        try await receiver.start()
        let port = try #require(await receiver.port)
        let sender = try await OpenSSLPeer.start(.client, version: "1.3", connectTo: port)
        try await sender.run("connect")
        try await sender.run("handshake")
        if keyUpdate != "none" { try await sender.run("keyupdate \(keyUpdate)") }
        try await sender.run(#"writecast sender-0 receiver-0 urn:x-cast:com.google.cast.tp.connection {"type":"CONNECT"}"#)
        try await sender.run(#"writecast sender-0 receiver-0 urn:x-cast:com.google.cast.receiver {"type":"GET_STATUS","requestId":7}"#)
        _ = try await sender.flush()  // the KeyUpdate and both requests in one segment
        let answer = try await sender.run("readcast")  // CAST namespace json
        try #require(answer.first == "CAST" && answer.count >= 3, "\(answer)")
        let reply = try JSONValue(parsing: answer.dropFirst(2).joined(separator: " "))
        #expect(reply["type"] == "RECEIVER_STATUS")
        #expect(reply["requestId"] == 7)
        #expect(clock.now == ManualClock.Instant(offset: .zero))
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }
}
