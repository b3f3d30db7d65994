import CastChannels
import CastJSON
import CastTestSupport
import CastTransport
import Testing

import CastMedia

/// A sender connection with a media channel, wired to a ``ScriptedReceiver`` in memory.
public struct MediaHarness: Sendable {
    public let connection: CastConnection
    public let receiver: ScriptedReceiver
    public let media: CastMediaChannel
    public let clock: ManualClock
    public let receiverEnd: InMemoryCastTransport

    public static func make(launched: Bool = true) async throws -> MediaHarness {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let receiver = ScriptedReceiver(transport: receiverEnd, launched: launched)
        let clock = ManualClock()
        let connection = CastConnection(transport: senderEnd, clock: clock)
        let media = CastMediaChannel(clock: clock)
        try await connection.add(media)
        try await connection.start()
        if launched {
            try await waitUntil("the media channel connects") { media.isConnected }
        }
        return MediaHarness(connection: connection, receiver: receiver, media: media, clock: clock, receiverEnd: receiverEnd)
    }

    public func close() async {
        await connection.close()
        receiver.stop()
    }
}

/// Waits until `condition` holds (messages travel through tasks); fails after 30 s.
public func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    // In-memory messages usually arrive within a few rounds of yielding; past that, poll gently so a
    // loaded machine's other tasks (the ones being waited for) get the cores. The deadline only turns
    // a hang into a failure; no test passes or fails on how fast something happens.
    let deadline = ContinuousClock.now + .seconds(30)
    var rounds = 0
    while ContinuousClock.now < deadline {
        if condition() { return }
        rounds += 1
        if rounds < 1_000 { await Task.yield() } else { try await Task.sleep(for: .milliseconds(2)) }
    }
    Issue.record("Timed out waiting until \(what)")
    throw CancellationError()
}
