import CastChannels
import CastJSON
import CastTestSupport
import CastTLS
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import CastEmulator

@Suite("EmulatedReceiver over real TLS on loopback")
struct ReceiverTLSTests {
    func startReceiver(log: LogLines = LogLines(), _ configure: (inout EmulatedReceiverConfiguration) -> Void = { _ in })
        async throws -> (EmulatedReceiver, Int)
    {
        var configuration = EmulatedReceiverConfiguration(name: "TLS TV", replyLatency: .zero)
        // Raw test senders do not PING: keep the silence timeout out of the way on a loaded machine.
        configuration.heartbeat.silenceTimeout = .seconds(600)
        configure(&configuration)
        let receiver = EmulatedReceiver(configuration: configuration, logger: log.logger)
        try await receiver.start()
        let port = try #require(await receiver.port)
        return (receiver, port)
    }

    func connectSender(port: Int, senderId: String = "sender-0") async throws -> RawSender {
        // Fifty handshakes at once on a loaded two-core machine can take longer than the default 10 s
        // budget; what these tests assert does not depend on how long connecting took.
        RawSender(try await TLSCastTransport.connect(
            host: "127.0.0.1", port: port, configuration: .init(connectTimeout: .seconds(60))), senderId: senderId)
    }

    @Test func fiftyConcurrentSendersAllReceiveTheBroadcasts() async throws {
        let (receiver, port) = try await startReceiver()
        let senders = try await withThrowingTaskGroup(of: RawSender.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let sender = try await connectSender(port: port, senderId: "sender-\(index)")
                    try await sender.connect()
                    // The reply proves this socket's CONNECT was handled.
                    _ = try await sender.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
                    return sender
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(senders.count == 50)
        #expect(await receiver.connectionCount == 50)

        _ = try await senders[0].request(["type": "LAUNCH", "appId": "CC1AD845", "requestId": 2], reply: "RECEIVER_STATUS")
        // Sender 7 skips the LAUNCH broadcast while it waits for its own reply: it is checked below.
        let launchSeenBy7 = try await senders[7].next(type: "RECEIVER_STATUS")
        #expect(launchSeenBy7.json?["requestId"] == 2)
        _ = try await senders[7].request(["type": "SET_VOLUME", "volume": ["level": 0.25], "requestId": 3], reply: "RECEIVER_STATUS")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, sender) in senders.enumerated() {
                group.addTask {
                    if index != 0 && index != 7 {
                        let launch = try await sender.next(type: "RECEIVER_STATUS")
                        #expect(launch.destinationId == "*" && launch.json?["requestId"] == 2)
                        #expect(launch.json?["status"]?["applications"]?[0]?["appId"] == "CC1AD845")
                    }
                    if index != 7 {
                        let volume = try await sender.next(type: "RECEIVER_STATUS")
                        #expect(volume.json?["requestId"] == 3 && volume.json?["status"]?["volume"]?["level"] == 0.25)
                    }
                }
            }
            try await group.waitForAll()
        }
        for sender in senders { await sender.transport.close() }
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }

    @Test func garbageFramesCloseOnlyTheirOwnSocket() async throws {
        let log = LogLines()
        let (receiver, port) = try await startReceiver(log: log)
        let good = try await connectSender(port: port)
        try await good.connect()
        _ = try await good.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")

        let garbage: [[UInt8]] = [
            [0x00, 0x00, 0x00, 0x05, 0xDE, 0xAD, 0xBE, 0xEF, 0x42],   // a body that is not a CastMessage
            [0x00, 0x01, 0x00, 0x01] + Array(repeating: 0x41, count: 64),  // announces 65 537 bytes
            [0x00, 0x00, 0x00, 0x00],                                  // an empty frame
        ]
        for (index, bytes) in garbage.enumerated() {
            let channel = try await RawTLSClient.connect(port: port)
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
            try await channel.closeFuture.get()   // the receiver hangs up on this socket
            // The transport can close the socket before the receiver's task has recorded why: await the
            // receiver's "violation" log line, written once it has recorded it and dropped the socket.
            #expect(await ChangeSignal.shared.wait(for: { log.count(of: "violation") == index + 1 }, until: .now + .seconds(30)))
            _ = try await good.request(["type": "GET_STATUS", "requestId": 2], reply: "RECEIVER_STATUS")
        }
        #expect(await receiver.violations.map(\.kind) == [.invalidFrame, .invalidFrame, .invalidFrame])
        #expect(await receiver.connectionCount == 1)
        await good.transport.close()
        await receiver.stop()
    }

    @Test func silentSenderIsDropped() async throws {
        // The receiver's time is a manual clock: the sender is silent for exactly as long as the test
        // says, however slowly the machine connects it.
        let clock = ManualClock()
        let (receiver, port) = try await startReceiver {
            $0.clock = clock
            $0.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(5), silenceTimeout: .seconds(10))
        }
        let silent = try await connectSender(port: port)
        try await silent.connect()
        // The reply proves the CONNECT was handled, at time zero.
        _ = try await silent.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .seconds(9))
        // The PING due at 5 s, sent when the receiver's timer ran: waited for before time moves on, or the
        // next advance could find the socket silent too long before the PING went out.
        let ping = try await silent.next(type: "PING")
        #expect(ping.json?["type"] == "PING", "a PING came before the close")
        #expect(await receiver.connectionCount == 1, "still inside the silence timeout")
        await clock.advance(by: .seconds(2))
        _ = await silent.drainUntilClosed()
        #expect(await receiver.violations.map(\.kind) == [.heartbeatTimeout])
        await receiver.stop()
    }

    @Test func ourOwnSenderOverTLSBreaksNoRule() async throws {
        let (receiver, port) = try await startReceiver()
        let connection = CastConnection(transport: try await TLSCastTransport.connect(host: "127.0.0.1", port: port))
        try await connection.start()
        let app = try await connection.receiver.launch(appId: "CC1AD845")
        try await connection.receiver.setVolume(level: 0.4)
        try await connection.receiver.stop(sessionId: app.sessionId)
        await connection.close()
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }

    @Test func startTwiceAndPortInUse() async throws {
        let (receiver, port) = try await startReceiver()
        await #expect(throws: EmulatedReceiverError.self) { try await receiver.start() }
        let second = EmulatedReceiver(configuration: .init(port: port))
        do {
            try await second.start()
            Issue.record("a second receiver bound the same port")
        } catch {
            #expect(error.code == .listenFailed)
        }
        await receiver.stop()
    }

    @Test func advertiserFollowsTheLifecycle() async throws {
        let advertiser = RecordingAdvertiser()
        let receiver = EmulatedReceiver(
            configuration: .init(name: "Ad TV", replyLatency: .zero, heartbeat: .init(silenceTimeout: .seconds(600))),
            advertiser: advertiser)
        try await receiver.start()
        let port = try #require(await receiver.port)
        let sender = try await connectSender(port: port)
        try await sender.connect()
        _ = try await sender.request(["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1], reply: "RECEIVER_STATUS")
        // The receiver republishes from a task of its own, after its reply: wait for it before stopping.
        let updated = await ChangeSignal.shared.wait(
            for: { advertiser.events.contains("update rs=Default Media Receiver") }, until: .now + .seconds(30))
        #expect(updated, "the advertisement was updated after LAUNCH")
        await sender.transport.close()
        await receiver.stop()
        let events = advertiser.events
        #expect(events.first == "start Ad TV port \(port) rs=")
        #expect(events.contains("update rs=Default Media Receiver"))
        #expect(events.last == "stop")
    }
}

/// Records what the receiver asks of its advertiser.
final class RecordingAdvertiser: EmulatedReceiverAdvertiser {
    private let log = Mutex<[String]>([])
    var events: [String] { log.withLock { $0 } }
    func start(_ advertisement: EmulatedReceiverAdvertisement) async throws {
        log.withLock { $0.append("start \(advertisement.name) port \(advertisement.port) rs=\(advertisement.txt["rs"] ?? "?")") }
    }
    func update(_ advertisement: EmulatedReceiverAdvertisement) async {
        log.withLock { $0.append("update rs=\(advertisement.txt["rs"] ?? "?")") }
        ChangeSignal.shared.bump()
    }
    func stop() async { log.withLock { $0.append("stop") } }
}

/// A TLS client that writes raw bytes (not CastMessages), to send a receiver malformed frames.
enum RawTLSClient {
    static func connect(port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(GnuTLSHandler(role: .client))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }
}
