import CastJSON
import CastTestSupport
import CastCore
import Foundation
import Logging
import Testing

@testable import CastEmulator

/// The emulated receiver against hostile OpenSSL senders (Python's `ssl`, `Tests/Peers/openssl_peer.py`)
/// over real TLS (issue 45): a LOAD whose status would not fit a frame, with a second sender in the
/// session; a KeyUpdate flood; a 64-bit request id; a flood of virtual connections. A manual clock that
/// never moves: every answer comes on its own.
@Suite(
    "EmulatedReceiver against hostile OpenSSL senders", .enabled(if: OpenSSLPeer.isAvailable, "needs python3 with the ssl module"),
    .timeLimit(.minutes(1)), .serialized)
struct HostileSenderTests {
    /// A receiver on a manual clock with its log captured.
    static func receiver() async throws -> (EmulatedReceiver, LogLines) {
        let lines = LogLines()
        let receiver = EmulatedReceiver(configuration: .init(clock: ManualClock(), replyLatency: .zero), logger: lines.logger)
        try await receiver.start()
        return (receiver, lines)
    }

    /// An OpenSSL sender connected and past its handshake.
    static func sender(_ port: Int) async throws -> OpenSSLPeer {
        let sender = try await OpenSSLPeer.start(.client, version: "1.3", connectTo: port)
        try await sender.run("connect")
        try await sender.run("handshake")
        return sender
    }

    /// Writes one Cast message and flushes it.
    static func write(_ sender: OpenSSLPeer, from source: String = "sender-0", to destination: String = "receiver-0",
                      _ namespace: String, _ json: String) async throws {
        try await sender.run("writecast \(source) \(destination) \(namespace) \(json)")
        _ = try await sender.flush()
    }

    /// The next message's JSON; `nil` when the receiver closed the socket instead.
    static func read(_ sender: OpenSSLPeer) async throws -> JSONValue? {
        let answer = try await sender.run("readcast")
        guard answer.first == "CAST", answer.count >= 3 else { return nil }
        return try JSONValue(parsing: answer.dropFirst(2).joined(separator: " "))
    }

    /// Reads until a message of `type` (others skipped); `nil` when the socket closes first.
    static func read(_ sender: OpenSSLPeer, type: String) async throws -> JSONValue? {
        while let message = try await read(sender) {
            if message["type"]?.stringValue == type { return message }
        }
        return nil
    }

    static func load(_ title: String, requestId: Int) -> String {
        #"{"type":"LOAD","requestId":\#(requestId),"media":{"contentId":"http://127.0.0.1:1/a.mp4","contentType":"video/mp4","metadata":{"metadataType":0,"title":"\#(title)"}}}"#
    }

    /// Before: the MEDIA_STATUS answering this LOAD (a 32 600-character title, as `media` and in the
    /// queue item) was over 64 KiB; the loader's socket was closed at its send, and the second sender's
    /// at the broadcast. Now the LOAD is refused with a clear error, both senders stay, and a LOAD
    /// that fits reaches both.
    @Test func anOversizedStatusDropsNobody() async throws {
        let (receiver, lines) = try await Self.receiver()
        let port = try #require(await receiver.port)
        let first = try await Self.sender(port), second = try await Self.sender(port)
        try await Self.write(first, NS.connection, #"{"type":"CONNECT"}"#)
        try await Self.write(first, NS.receiver, #"{"type":"LAUNCH","appId":"CC1AD845","requestId":1}"#)
        let launched = try #require(try await Self.read(first, type: "RECEIVER_STATUS"))
        let transport = try #require(launched["status"]?["applications"]?[0]?["transportId"]?.stringValue)
        try await Self.write(first, to: transport, NS.connection, #"{"type":"CONNECT"}"#)
        try await Self.write(second, from: "sender-2", NS.connection, #"{"type":"CONNECT"}"#)
        try await Self.write(second, from: "sender-2", to: transport, NS.connection, #"{"type":"CONNECT"}"#)
        try await Self.write(second, from: "sender-2", to: transport, NS.media, #"{"type":"GET_STATUS","requestId":2}"#)
        #expect(try await Self.read(second, type: "MEDIA_STATUS")?["status"] == [])

        try await Self.write(first, to: transport, NS.media, Self.load(String(repeating: "a", count: 32_600), requestId: 3))
        let refusal = try await Self.read(first)
        #expect(refusal?["type"] == "INVALID_REQUEST", "\(String(describing: refusal))")
        #expect(refusal?["reason"] == "INVALID_PARAMS")
        #expect(refusal?["customData"]?["message"]?.stringValue?.contains("twice") == true)

        try await Self.write(first, to: transport, NS.media, Self.load(String(repeating: "b", count: 32_000), requestId: 4))
        let status = try await Self.read(first, type: "MEDIA_STATUS")
        #expect(status?["requestId"] == 4)
        #expect(status?["status"]?[0]?["media"]?["metadata"]?["title"]?.stringValue?.count == 32_000)
        let broadcast = try await Self.read(second, type: "MEDIA_STATUS")
        #expect(broadcast?["requestId"] == 4, "the second sender is still there and heard of it")
        #expect(await receiver.connectionCount == 2)
        #expect(!lines.entries.contains { $0.message == "sender dropped" || $0.message.hasPrefix("message not sent") })
        await receiver.stop()
    }

    /// Before: a sender flooding KeyUpdates was closed with only `debug sender disconnected` in the log.
    /// Now every close the receiver's side makes is logged at `notice` with its reason.
    @Test func aKeyUpdateFloodIsClosedWithItsReasonAtNotice() async throws {
        let (receiver, lines) = try await Self.receiver()
        let port = try #require(await receiver.port)
        let sender = try await Self.sender(port)
        try await sender.run(#"writecast sender-0 receiver-0 urn:x-cast:com.google.cast.tp.connection {"type":"CONNECT"}"#)
        for _ in 0..<300 { try await sender.run("keyupdate 0") }
        _ = try await sender.flush()
        let closed = try await sender.run("awaitclose")
        #expect(closed.first == "CLOSED", "\(closed)")
        let logged = await ChangeSignal.shared.wait(for: { lines.entries.contains { $0.message == "sender dropped" } }, until: .now + .seconds(30))
        #expect(logged, "the drop is logged")
        let drop = try #require(lines.entries.first { $0.message == "sender dropped" })
        #expect(drop.level == .notice)
        #expect(drop.metadata["reason"] == "tls", "\(drop.metadata)")
        #expect(drop.metadata["detail"]?.isEmpty == false)
        await receiver.stop()
    }

    /// Before: a `requestId` of 2^63−1 was taken for a missing one and the request ignored.
    @Test func aSixtyFourBitRequestIdIsAnsweredExactly() async throws {
        let (receiver, _) = try await Self.receiver()
        let port = try #require(await receiver.port)
        let sender = try await Self.sender(port)
        try await Self.write(sender, NS.connection, #"{"type":"CONNECT"}"#)
        try await Self.write(sender, NS.receiver, #"{"type":"GET_STATUS","requestId":9223372036854775807}"#)
        let answer = try await sender.run("readcast")
        #expect(answer.first == "CAST")
        #expect(answer.joined(separator: " ").contains(#""requestId":9223372036854775807,"#), "\(answer)")
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }

    /// Before: 100 000 CONNECTs with distinct source ids on one socket were all kept (21 MB, 13 s of CPU,
    /// 62 MB left after the socket closed). Now a socket holds 16; each CONNECT past them is answered
    /// CLOSE, and after 16 of those the socket is closed.
    @Test func aFloodOfVirtualConnectionsIsRefusedAndTheSocketClosed() async throws {
        let (receiver, lines) = try await Self.receiver()
        let port = try #require(await receiver.port)
        let sender = try await Self.sender(port)
        try await sender.run("connectflood 1000")
        _ = try await sender.flush()
        var closes = 0
        while let message = try await Self.read(sender) {
            #expect(message["type"] == "CLOSE")
            closes += 1
        }
        #expect(closes == 16, "one CLOSE per refused CONNECT, then the socket closes")
        let logged = await ChangeSignal.shared.wait(for: { lines.entries.contains { $0.message == "sender dropped" } }, until: .now + .seconds(30))
        #expect(logged, "the drop is logged")
        let drop = try #require(lines.entries.first { $0.message == "sender dropped" })
        #expect(drop.level == .notice)
        #expect(drop.metadata["reason"]?.hasPrefix("tooManyVirtualConnections") == true, "\(drop.metadata)")
        #expect(await receiver.violations.filter { $0.kind == .tooManyVirtualConnections }.count == 16)
        #expect(await receiver.connectionCount == 0)
        await receiver.stop()
    }
}
