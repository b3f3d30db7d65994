import CastChannels
import CastJSON
import CastTestSupport
import CastTLS
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import CastEmulator

/// What one sender may cost the emulated receiver, over real sockets, with every deadline on the
/// receiver's manual clock: a deadline from accept to a finished TLS handshake, and a cap on
/// replies queued for a sender that does not read them.
@Suite("EmulatedReceiver connection limits", .timeLimit(.minutes(2)))
struct ReceiverLimitsTests {
    static func startReceiver(clock: ManualClock, limits: CastTransportServer.Limits = .init(), log: LogLines = LogLines())
        async throws -> (EmulatedReceiver, Int)
    {
        let receiver = EmulatedReceiver(configuration: .init(clock: clock, replyLatency: .zero, connectionLimits: limits), logger: log.logger)
        try await receiver.start()
        return (receiver, try #require(await receiver.port))
    }

    static func waitForSleeper(at offset: Duration, on clock: ManualClock) async {
        await clock.waitForSleeper(until: ManualClock.Instant(offset: offset))
    }

    /// The first violation of `kind`: the receiver records it on its own task and then logs a
    /// "violation" line, so each new line in `log` is the event to look again on (30 s deadline).
    static func waitForViolation(_ kind: EmulatedReceiverViolation.Kind, on receiver: EmulatedReceiver, log: LogLines) async throws
        -> EmulatedReceiverViolation
    {
        let deadline = ContinuousClock.now + .seconds(30)
        var seen = -1
        while true {
            let lines = log.count(of: "violation")
            if lines > seen, let found = await receiver.violations.first(where: { $0.kind == kind }) { return found }
            seen = lines
            let more = await ChangeSignal.shared.wait(for: { log.count(of: "violation") > seen }, until: deadline)
            try #require(more, "no \(kind) violation was recorded")
        }
    }

    /// A plain TCP connection that may send some bytes but never speaks TLS.
    static func rawConnection(to port: Int, sending bytes: [UInt8]) async throws -> any Channel {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        if !bytes.isEmpty { try await channel.writeAndFlush(ByteBuffer(bytes: bytes)) }
        return channel
    }

    @Test("a connection that never finishes TLS is dropped at the handshake deadline", arguments: [
        [UInt8](),  // raw TCP, nothing sent
        [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00],  // the first bytes of a ClientHello, then nothing
    ])
    func handshakeDeadline(sending bytes: [UInt8]) async throws {
        let clock = ManualClock()
        let log = LogLines()
        let (receiver, port) = try await Self.startReceiver(clock: clock, log: log)
        let channel = try await Self.rawConnection(to: port, sending: bytes)
        await Self.waitForSleeper(at: .seconds(10), on: clock)
        await clock.advance(by: .milliseconds(9999))
        #expect(channel.isActive, "still within the deadline")
        await clock.advance(by: .milliseconds(1))
        try await channel.closeFuture.get()  // the receiver closed it
        let violation = try await Self.waitForViolation(.handshakeTimeout, on: receiver, log: log)
        #expect(violation.connection == 0)
        #expect(violation.message.contains("10 s"))
        #expect(await receiver.connectionCount == 0)
        await receiver.stop()
    }

    @Test("a sender that finished its handshake is not affected by the handshake deadline")
    func finishedHandshakeOutlivesTheDeadline() async throws {
        let clock = ManualClock()
        let (receiver, port) = try await Self.startReceiver(clock: clock)
        let connection = CastConnection(transport: try await TLSCastTransport.connect(host: "127.0.0.1", port: port))
        _ = try await connection.start()
        await clock.advance(by: .seconds(15))
        #expect(connection.isRunning)
        #expect(await receiver.connectionCount == 1)
        #expect(await receiver.violations.isEmpty)
        await connection.close()
        await receiver.stop()
    }

    /// A custom app that answers every message with 60 kB, counting what it handled.
    final class BigReplyApp: EmulatedReceiverAppHandler {
        static let appId = "B16B16B1"
        static let namespace = "urn:x-cast:com.castor.test.big"
        let handled = Mutex(0)
        func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
            handled.withLock { $0 += 1 }
            return [EmulatedReceiverAppResponse(audience: .sender, text: #"{"blob":""# + String(repeating: "x", count: 60_000) + #""}"#)]
        }
    }

    @Test(
        "a sender that stops reading: reading from it stops at the unsent limit, and it is dropped when it stays over",
        .enabled(if: OpenSSLPeer.isAvailable, "needs python3 with the ssl module"))
    func senderThatStopsReading() async throws {
        let clock = ManualClock()
        let log = LogLines()
        let app = BigReplyApp()
        let limits = CastTransportServer.Limits(
            maximumUnsentBytes: 64 << 10, unsentBytesTimeout: .seconds(7), maximumQueuedInboundBytes: 16 << 10)
        let receiver = EmulatedReceiver(configuration: .init(
            clock: clock, replyLatency: .zero,
            apps: [EmulatedReceiverApp(appId: BigReplyApp.appId, displayName: "Big", namespaces: [BigReplyApp.namespace], handler: app)],
            connectionLimits: limits), logger: log.logger)
        try await receiver.start()
        let port = try #require(await receiver.port)
        // OpenSSL as the sender: it launches the app, then sends 20 000 small messages (each
        // answered with 60 kB, 1.2 GB in all) and never reads a reply.
        let sender = try await OpenSSLPeer.start(.client, version: "1.3", connectTo: port, extraArguments: ["--rcvbuf", "4096"])
        try await sender.run("connect")
        try await sender.run("handshake")
        try await sender.run(#"writecast sender-0 receiver-0 urn:x-cast:com.google.cast.tp.connection {"type":"CONNECT"}"#)
        try await sender.run(#"writecast sender-0 receiver-0 urn:x-cast:com.google.cast.receiver {"type":"LAUNCH","appId":"\#(BigReplyApp.appId)","requestId":1}"#)
        _ = try await sender.flush()
        var transportId: String?
        while transportId == nil {
            let answer = try await sender.run("readcast")
            guard answer.first == "CAST", answer.count >= 3 else { throw OpenSSLPeerError(message: "no reply to LAUNCH: \(answer)") }
            let status = try JSONValue(parsing: answer.dropFirst(2).joined(separator: " "))  // CAST namespace json
            transportId = status["status"]?["applications"]?.arrayValue?
                .first { $0["appId"]?.stringValue == BigReplyApp.appId }?["transportId"]?.stringValue
        }
        let appTransport = try #require(transportId)
        try await sender.run(#"writecast sender-0 \#(appTransport) urn:x-cast:com.google.cast.tp.connection {"type":"CONNECT"}"#)
        try await sender.run(#"floodcast 20000 sender-0 \#(appTransport) \#(BigReplyApp.namespace) {"type":"MORE"}"#)
        _ = try await sender.flush()
        // The drop deadline is armed when reading stops: 7 s from now on the receiver's clock.
        await Self.waitForSleeper(at: .seconds(7), on: clock)
        #expect(await receiver.violations.allSatisfy { $0.kind != .notReading })
        await clock.advance(by: .seconds(7))
        let violation = try await Self.waitForViolation(.notReading, on: receiver, log: log)
        #expect(violation.connection == 1)
        #expect(violation.message.contains("65536 bytes"))
        // Reading had stopped: most of the messages were never read, so never answered.
        let handled = app.handled.withLock { $0 }
        #expect(handled < 20_000, "handled \(handled) of 20 000")
        await receiver.stop()
    }
}
