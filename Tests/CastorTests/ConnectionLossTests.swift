import CastChannels
import CastDiscoveryCore
import CastMedia
import CastEmulator
import CastTestSupport
import Foundation
import Synchronization
import Testing
@testable import Castor

/// Records a `Cast`'s session events as they arrive.
final class EventLog: Sendable {
    private final class Store: Sendable {
        let events = Mutex<[CastSessionEvent]>([])
    }
    private let store = Store()
    private let task: Task<Void, Never>

    init(_ cast: Cast) {
        let stream = cast.events
        let store = self.store
        task = Task {
            for await event in stream {
                store.events.withLock { $0.append(event) }
                ChangeSignal.shared.bump()
            }
        }
    }

    deinit { task.cancel() }

    var all: [CastSessionEvent] { store.events.withLock { $0 } }

    var reconnectDelays: [Duration] {
        all.compactMap { if case .reconnecting(_, let delay) = $0 { delay } else { nil } }
    }

    var endReason: CastError?? {
        for event in all { if case .ended(let error) = event { return .some(error) } }
        return .none
    }

    var resumed: CastResumeState? {
        for event in all { if case .resumed(let state) = event { return state } }
        return nil
    }

    var resumeFailure: CastError? {
        for event in all { if case .resumeFailed(let error) = event { return error } }
        return nil
    }

    var lossCount: Int { all.filter { if case .connectionLost = $0 { true } else { false } }.count }
    var rejoinCount: Int { all.filter { if case .rejoined = $0 { true } else { false } }.count }
}

/// A lost device is reported as a loss, recovered when it comes back, and never fought for.
@Suite struct ConnectionLossTests {
    /// Long heartbeat timers, so advancing the manual clock for the back-off or the position
    /// never expires a live connection.
    static func configuration(_ policy: CastReconnectPolicy) -> CastConfiguration {
        CastConfiguration(heartbeatInterval: .seconds(3600), livenessTimeout: .seconds(7200), reconnectPolicy: policy)
    }

    static func receiver(for device: CastDevice, id: UUID) -> EmulatedReceiver {
        EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: device.friendlyName, id: id, port: 0, replyLatency: .zero))
    }

    /// Advances the manual clock to each back-off deadline until `done`. Only sleepers due within
    /// `maxDelay` are back-off sleeps: request, launch and heartbeat deadlines are further away and
    /// are never reached, so a request in flight is never timed out by the test.
    static func driveBackOff(_ clock: ManualClock, maxDelay: Duration = .seconds(8), until what: String,
                             _ done: @escaping () -> Bool) async throws {
        func backOff() -> ManualClock.Instant? {
            let now = clock.now
            return clock.sleeperDeadlines.filter { now.duration(to: $0) <= maxDelay }.min()
        }
        for _ in 0..<64 {
            if done() { return }
            try await waitUntil("a back-off sleeps or \(what)") { backOff() != nil || done() }
            if done() { return }
            if let deadline = backOff() { await clock.advance(to: deadline) }
        }
        Issue.record("\(what) never happened")
    }

    @Test func aDeviceThatStaysAwayEndsTheSessionAsALossAfterTheTimeout() async throws {
        let clock = ManualClock()
        let tv = TestDevice.make("TV")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let policy = CastReconnectPolicy(maxAttempts: 100, initialDelay: .seconds(1), maxDelay: .seconds(4), jitter: 0, timeout: .seconds(10))
        let cast = Cast(configuration: Self.configuration(policy), connector: connector, clock: clock, networkMonitor: nil)
        let log = EventLog(cast)
        try await cast.startSession(with: tv.device)
        try await #require(cast.player).loadItems(from: [Assets.movie(1)])
        // The device vanishes mid-cast: its connections close and it accepts no new ones.
        connector.setReachable(false)
        await connector.dropConnections()
        try await Self.driveBackOff(clock, maxDelay: .seconds(4), until: "the session ends") { log.endReason != nil }
        try await waitUntil("the session is torn down") { cast.player == nil }
        #expect(log.lossCount == 1)
        // 1 s, 2 s, 4 s, then what is left of the 10 s: 3 s; no attempt after the timeout.
        #expect(log.reconnectDelays == [.seconds(1), .seconds(2), .seconds(4), .seconds(3)])
        let reason = try #require(log.endReason ?? nil)
        #expect(reason.code == .connectionLost)
        #expect(reason.message.contains("gave up after 4 attempts"))
        // Playback never counted as finished: no IDLE/FINISHED status was seen.
        let finished = log.all.contains { if case .mediaStatus(let status?) = $0 { status.idleReason == .finished } else { false } }
        #expect(!finished)
        #expect(cast.connectionState == .disconnected)
    }

    @Test func aDeviceThatComesBackWithTheAppRunningIsRejoined() async throws {
        let clock = ManualClock()
        let tv = TestDevice.make("TV")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = Cast(configuration: Self.configuration(.within(.seconds(60))), connector: connector, clock: clock, networkMonitor: nil)
        let log = EventLog(cast)
        try await cast.startSession(with: tv.device)
        let player = try #require(cast.player)
        try await player.loadItems(from: [Assets.movie(1)])
        let session = try #require(cast.sessionInfo?.sessionId)
        let mediaSession = try #require(player.mediaStatus?.mediaSessionId)
        await connector.dropConnections()  // a network fault: the receiver keeps running the app
        try await Self.driveBackOff(clock, until: "rejoined") { log.rejoinCount == 1 }
        #expect(cast.sessionInfo?.sessionId == session)
        try await waitUntil("the media status is re-synced") { player.mediaStatus?.mediaSessionId == mediaSession }
        #expect(log.resumed == nil)
        #expect(log.endReason == nil)
        await cast.endSession()
        try await waitUntil("the end is reported") { log.all.contains { if case .ended(nil) = $0 { true } else { false } } }
    }

    @Test func aRestartedDeviceGetsTheAppAgainWithTheContentAtTheExtrapolatedPosition() async throws {
        let clock = ManualClock()
        let id = UUID()
        let device = CastDevice(id: CastDeviceID(id), friendlyName: "TV")
        let first = Self.receiver(for: device, id: id)
        let connector = ReceiverConnector()
        connector.register(first, for: device)
        let cast = Cast(configuration: Self.configuration(.within(.seconds(60))), connector: connector, clock: clock, networkMonitor: nil)
        let log = EventLog(cast)
        try await cast.startSession(with: device)
        let player = try #require(cast.player)
        try await player.loadItems(from: [Assets.movie(1), Assets.movie(2)], with: CastLoadOptions(index: 1, time: .seconds(40)))
        try await player.setPlaybackSpeed(1.5)
        let sessionBefore = try #require(cast.sessionInfo?.sessionId)
        let status = try #require(player.mediaStatus)
        #expect(status.playerState == .playing)
        // 20 s pass on the sender's clock; then the receiver is killed and restarted with no app.
        await clock.advance(by: .seconds(20))
        let expected = status.currentTime + 20 * 1.5
        let restarted = Self.receiver(for: device, id: id)
        connector.register(restarted, for: device)
        await first.stop()
        await connector.dropConnections()
        try await Self.driveBackOff(clock, until: "resumed") { log.resumed != nil || log.endReason != nil || log.resumeFailure != nil }
        #expect(log.resumeFailure == nil, "\(String(describing: log.resumeFailure)) status: \(String(describing: player.mediaStatus)) events: \(log.all)")
        let resumed = try #require(log.resumed)
        #expect(log.endReason == nil)
        #expect(resumed.assets.map { $0.metadata?.title } == ["Movie 1", "Movie 2"])
        #expect(resumed.options.index == 1)
        #expect(resumed.options.playbackSpeed == 1.5)
        let position = SessionNarratorSeconds.of(resumed.options.time ?? .zero)
        #expect(abs(position - expected) < 0.001, "resumed at \(position), extrapolated \(expected)")
        // The restarted receiver plays the same item from there, in a new app session.
        #expect(cast.sessionInfo?.sessionId != sessionBefore)
        try await waitUntil("the receiver plays the resumed item") { player.mediaStatus?.media?.metadata?.title == "Movie 2" }
        let now = try #require(player.mediaStatus)
        #expect(abs(now.currentTime - expected) < 1, "receiver at \(now.currentTime)")
        #expect(now.playbackRate == 1.5)
        #expect(cast.connectionState == .connected)
        await cast.endSession()
        await restarted.stop()
    }

    @Test func anotherSenderOnTheRestartedDeviceIsNotFought() async throws {
        let clock = ManualClock()
        let id = UUID()
        let device = CastDevice(id: CastDeviceID(id), friendlyName: "TV")
        let first = Self.receiver(for: device, id: id)
        let connector = ReceiverConnector()
        connector.register(first, for: device)
        let cast = Cast(configuration: Self.configuration(.within(.seconds(60))), connector: connector, clock: clock, networkMonitor: nil)
        let log = EventLog(cast)
        try await cast.startSession(with: device)
        try await #require(cast.player).loadItems(from: [Assets.movie(1)])
        let restarted = Self.receiver(for: device, id: id)
        connector.register(restarted, for: device)
        connector.setReachable(false)
        await first.stop()
        await connector.dropConnections()
        try await waitUntil("the first back-off sleeps") { clock.sleeperCount > 0 }
        // Meanwhile another sender starts its own cast on the restarted device.
        connector.setReachable(true)
        let other = makeCast(connector)
        try await other.startSession(with: device)
        try await #require(other.player).loadItems(from: [Assets.movie(9)])
        try await Self.driveBackOff(clock, until: "the session ends") { log.endReason != nil }
        let reason = try #require(log.endReason ?? nil)
        #expect(reason.code == .sessionTakenOver)
        #expect(log.resumed == nil)
        // The other sender's cast is untouched.
        try await waitUntil("the other sender still plays") { other.player?.mediaStatus?.media?.metadata?.title == "Movie 9" }
        #expect(other.player?.mediaStatus?.playerState == .playing)
        await other.endSession()
        await restarted.stop()
    }
}

enum SessionNarratorSeconds {
    static func of(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
