import CastChannels
import CastJSON
import CastTestSupport
import CastCore
import Foundation
import Logging
import Synchronization
import Testing
@testable import CastEmulator

@Suite("EmulatedReceiver over in-memory transports")
struct ReceiverShellTests {
    func makeReceiver(clock: ManualClock = ManualClock(), _ configure: (inout EmulatedReceiverConfiguration) -> Void = { _ in })
        -> EmulatedReceiver
    {
        var configuration = EmulatedReceiverConfiguration(name: "Test TV", clock: clock, replyLatency: .zero)
        configure(&configuration)
        return EmulatedReceiver(configuration: configuration)
    }

    func attach(_ receiver: EmulatedReceiver, senderId: String = "sender-0") async -> RawSender {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(receiverEnd)
        return RawSender(senderEnd, senderId: senderId)
    }

    @Test func ourOwnSenderCausesNoViolations() async throws {
        let receiver = makeReceiver()
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(receiverEnd)
        let connection = CastConnection(transport: senderEnd)
        let status = try await connection.start()
        #expect(status.applications.first?.appId == "E8C28D3C")
        let app = try await connection.receiver.launch(appId: "CC1AD845")
        #expect(app.namespaces.contains("urn:x-cast:com.google.cast.media"))
        let volume = try await connection.receiver.setVolume(level: 0.3)
        #expect(volume.volume.level == 0.3)
        let muted = try await connection.receiver.setMuted(true)
        #expect(muted.volume.muted == true)
        let availability = try await connection.receiver.appAvailability(["CC1AD845", "12345678"])
        #expect(availability == ["CC1AD845": true, "12345678": false])
        let stopped = try await connection.receiver.stop(sessionId: app.sessionId)
        #expect(stopped.runningApp == nil)
        await connection.close()
        #expect(await receiver.violations.isEmpty)
    }

    @Test func everyConnectedSenderGetsTheBroadcasts() async throws {
        let receiver = makeReceiver()
        var senders: [RawSender] = []
        for index in 0..<8 {
            let sender = await attach(receiver, senderId: "sender-\(index)")
            try await sender.connect()
            // Sockets are served concurrently: make sure this CONNECT was handled before the LAUNCH.
            _ = try await sender.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
            senders.append(sender)
        }
        let outsider = await attach(receiver, senderId: "sender-x")
        _ = try await senders[0].request(["type": "LAUNCH", "appId": "CC1AD845", "requestId": 11], reply: "RECEIVER_STATUS")
        for sender in senders.dropFirst() {
            let status = try await sender.next(type: "RECEIVER_STATUS")
            #expect(status.destinationId == "*")
            #expect(status.json?["requestId"] == 11)
            #expect(status.json?["status"]?["applications"]?[0]?["appId"] == "CC1AD845")
        }
        // The outsider never connected to receiver-0: its first message is the answer to its own PING.
        try await outsider.send(["type": "PING"], namespace: NS.heartbeat)
        #expect(try await outsider.next()?.json == ["type": "PONG"])
        #expect(await receiver.connectionCount == 9)
        #expect(await receiver.violations.isEmpty)
    }

    @Test func silentSenderIsDroppedAndOthersStay() async throws {
        let clock = ManualClock()
        let receiver = makeReceiver(clock: clock) {
            $0.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(5), silenceTimeout: .seconds(20))
        }
        let silent = await attach(receiver)
        let talker = await attach(receiver, senderId: "sender-1")
        try await silent.connect()
        try await talker.connect()
        _ = try await silent.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
        _ = try await talker.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
        await clock.advance(by: .seconds(15))
        _ = try await talker.request(["type": "PING"], namespace: NS.heartbeat, reply: "PONG")
        await clock.advance(by: .seconds(5))
        let before = await silent.drainUntilClosed()
        #expect(before.filter { $0.json?["type"] == "PING" }.allSatisfy { $0.sourceId == "Tr@n$p0rt-0" })
        #expect(before.contains { $0.json?["type"] == "PING" })
        #expect(await receiver.violations.map(\.kind) == [.heartbeatTimeout])
        // The talker is still served.
        _ = try await talker.request(["type": "GET_STATUS", "requestId": 2], reply: "RECEIVER_STATUS")
        #expect(await receiver.connectionCount == 1)
    }

    @Test func badFrameClosesOnlyItsOwnSocket() async throws {
        let log = LogLines()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "Test TV", clock: ManualClock(), replyLatency: .zero),
                                    logger: log.logger)
        let (badEnd, badReceiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(badReceiverEnd)
        let good = await attach(receiver)
        try await good.connect()
        badEnd.fail(CastTransportError(code: .frameTooLarge, message: "Frame of 70000 bytes exceeds the limit"))
        _ = try await good.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
        // The receiver logs the violation after it dropped the socket: no polling of connectionCount.
        #expect(await ChangeSignal.shared.wait(for: { log.contains("violation") }, until: .now + .seconds(30)))
        #expect(await receiver.connectionCount == 1)
        #expect(await receiver.violations.map(\.kind) == [.invalidFrame])
    }

    /// A sender that launched the Default Media Receiver and loaded media of `duration` seconds (requestId 2).
    func playMedia(on receiver: EmulatedReceiver, duration: Double) async throws -> (RawSender, transport: String, loaded: JSONValue) {
        let sender = await attach(receiver)
        try await sender.connect()
        let launched = try await sender.request(["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1], reply: "RECEIVER_STATUS")
        let transport = try #require(launched["status"]?["applications"]?[0]?["transportId"]?.stringValue)
        try await sender.connect(to: transport)
        let loaded = try await sender.request(
            ["type": "LOAD", "requestId": 2,
             "media": ["contentId": "http://h/a.mp4", "contentType": "video/mp4", "duration": .number(duration)]],
            namespace: NS.media, to: transport, reply: "MEDIA_STATUS")
        return (sender, transport, loaded)
    }

    @Test func mediaPlaysToTheEndOnTheInjectedClock() async throws {
        let clock = ManualClock()
        // A silent test sender: keep the heartbeat timeout out of the way.
        let receiver = makeReceiver(clock: clock) { $0.heartbeat.silenceTimeout = .seconds(300) }
        let (sender, transport, loaded) = try await playMedia(on: receiver, duration: 30)
        #expect(loaded["requestId"] == 2 && loaded["status"]?[0]?["playerState"] == "PLAYING")
        await clock.advance(by: .seconds(10))
        #expect(await receiver.mediaStatus?[0]?["currentTime"] == 10)
        await clock.advance(by: .seconds(20))
        let finished = try await sender.next(type: "MEDIA_STATUS")
        #expect(finished.sourceId == transport && finished.destinationId == "*")
        #expect(finished.json?["requestId"] == 0 && finished.json?["status"]?[0]?["idleReason"] == "FINISHED")
        #expect(await receiver.mediaStatus == [])
        #expect(await receiver.violations.isEmpty)
    }

    /// On the system clock the receiver's timer is a task on its event loop (no sleeping `Task`); a SEEK
    /// that brings the end of the item closer must move it earlier, or FINISHED would wait for the end
    /// armed at LOAD, 100 s away. The 30 s guard only bounds the test if that happens: it stops the
    /// receiver, which closes the socket and fails the wait.
    @Test func aSeekTowardsTheEndMovesTheSystemClockTimerEarlier() async throws {
        var configuration = EmulatedReceiverConfiguration(name: "Test TV", clock: ContinuousClock(), replyLatency: .zero)
        configuration.heartbeat.silenceTimeout = .seconds(300)
        let receiver = EmulatedReceiver(configuration: configuration)
        let (sender, transport, loaded) = try await playMedia(on: receiver, duration: 100)
        let session = try #require(loaded["status"]?[0]?["mediaSessionId"])
        _ = try await sender.request(["type": "SEEK", "requestId": 3, "mediaSessionId": session, "currentTime": 99.9],
                                     namespace: NS.media, to: transport, reply: "MEDIA_STATUS")
        let guardTask = Task {
            try await Task.sleep(for: .seconds(30))
            await receiver.stop()
        }
        defer { guardTask.cancel() }
        let finished = try await sender.next(type: "MEDIA_STATUS")
        #expect(finished.json?["requestId"] == 0 && finished.json?["status"]?[0]?["idleReason"] == "FINISHED")
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }

    /// Media that lasts longer than any timer can count (a hostile or careless sender) arms the system-clock
    /// timer at most a day ahead instead of overflowing its nanosecond count; the receiver keeps running.
    @Test func mediaLongerThanATimerCanCountIsServed() async throws {
        var configuration = EmulatedReceiverConfiguration(name: "Test TV", clock: ContinuousClock(), replyLatency: .zero)
        configuration.heartbeat.silenceTimeout = .seconds(300)
        configuration.heartbeat.pingInterval = .milliseconds(10)
        let receiver = EmulatedReceiver(configuration: configuration)
        let (sender, _, loaded) = try await playMedia(on: receiver, duration: 1e15)
        #expect(loaded["status"]?[0]?["playerState"] == "PLAYING")
        // With no sender connected, no heartbeat comes before the end of the media: it is the timer's deadline.
        await sender.transport.close()
        // The in-memory transport hands the receiver its end before close() returns; the receiver's loop
        // handles it before this call, which runs on the same loop.
        #expect(await receiver.connectionCount == 0)
        // The heartbeat timer armed while the sender was connected fires within milliseconds and re-arms
        // for the end of the media. This wait is no threshold: with the timer's clamp the test passes
        // however long it is; it only gives an unclamped timer the chance to overflow (and trap) first.
        // It stays a sleep because what it waits for is that nothing happens: the timer runs on the
        // system clock (the path under test; a manual clock takes the task path instead) and its firing
        // has no outward effect with no sender connected, so there is no event to await.
        try await Task.sleep(for: .milliseconds(300))
        #expect(await receiver.mediaStatus?[0]?["media"]?["duration"] == 1e15)
        await receiver.stop()
    }

    @Test func customAppRoundTrip() async throws {
        let namespace = "urn:x-cast:com.example.echo"
        let receiver = makeReceiver {
            $0.apps = [EmulatedReceiverApp(appId: "ABCD1234", displayName: "Echo", namespaces: [namespace], handler: EchoHandler())]
        }
        let sender = await attach(receiver)
        try await sender.connect()
        let launched = try await sender.request(["type": "LAUNCH", "appId": "ABCD1234", "requestId": 1], reply: "RECEIVER_STATUS")
        let transport = try #require(launched["status"]?["applications"]?[0]?["transportId"]?.stringValue)
        try await sender.connect(to: transport)
        try await sender.send(["type": "HELLO", "n": 1], namespace: namespace, to: transport)
        let reply = try #require(try await sender.next())
        #expect(reply.namespace == namespace && reply.json == ["echo": ["type": "HELLO", "n": 1]])
        #expect(await receiver.receiverStatus["applications"]?[0]?["displayName"] == "Echo")
    }

    @Test func stopClosesEverySender() async throws {
        let receiver = makeReceiver()
        let a = await attach(receiver)
        let b = await attach(receiver)
        try await a.connect()
        _ = try await a.request(["type": "GET_STATUS", "requestId": 1], reply: "RECEIVER_STATUS")
        await receiver.stop()
        _ = await a.drainUntilClosed()
        _ = await b.drainUntilClosed()
        #expect(await receiver.connectionCount == 0)
        // A stopped receiver refuses new senders.
        let late = await attach(receiver)
        #expect(await late.drainUntilClosed().isEmpty)
    }

    @Test func replyLatencyKeepsOrder() async throws {
        let clock = ManualClock()
        let receiver = makeReceiver(clock: clock) { $0.replyLatency = .milliseconds(5) }
        let sender = await attach(receiver)
        try await sender.connect()
        for id in 1...3 { try await sender.send(["type": "GET_STATUS", "requestId": JSONValue(id)], namespace: NS.receiver) }
        // The replies wait on the clock: once the writer sleeps on it, nothing arrives until it moves.
        // Sleepers: the receiver's heartbeat timer and the writer holding the next reply. A request read
        // after the clock moved is due later still, so move it whenever the writer waits, until all three
        // replies are in (one advance was enough only when all three requests were read before it).
        let advancing = Task {
            while !Task.isCancelled {
                await clock.waitForSleepers(count: 2)  // returns early when cancelled
                if Task.isCancelled { return }
                await clock.advance(by: .milliseconds(5))
            }
        }
        defer { advancing.cancel() }
        var ids: [Int] = []
        while ids.count < 3, let message = try await sender.next() {
            if let id = message.json?["requestId"]?.intValue { ids.append(id) }
        }
        #expect(ids == [1, 2, 3])
    }
}

/// Collects a receiver's log messages, bumping ``ChangeSignal/shared`` for each, so a test can
/// await a line instead of polling the state it announces.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    /// Every entry with its level and metadata.
    private let records = Mutex<[(level: Logger.Level, message: String, metadata: [String: String])]>([])

    /// The entries logged so far, with their level and metadata (as text).
    var entries: [(level: Logger.Level, message: String, metadata: [String: String])] { records.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "test.receiver") { _ in Handler(lines: self) }
        logger.logLevel = .trace
        return logger
    }

    func contains(_ message: String) -> Bool { lines.withLock { $0.contains(message) } }

    /// How many lines are exactly `message`.
    func count(of message: String) -> Int { lines.withLock { $0.count { $0 == message } } }

    fileprivate func append(_ line: String, level: Logger.Level = .info, metadata: Logger.Metadata = [:]) {
        lines.withLock { $0.append(line) }
        records.withLock { $0.append((level, line, metadata.mapValues { "\($0)" })) }
        ChangeSignal.shared.bump()
    }

    private struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.append(event.message.description, level: event.level, metadata: metadata.merging(event.metadata ?? [:]) { $1 })
        }
    }
}

/// A flag tests set from one task and read from another.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
