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

/// Yields until `condition` holds (messages travel through tasks); fails after 30 s.
///
/// A fixed number of yields was not enough on a loaded machine (the tasks that carry the message
/// did not get a thread in time): every thousand yields it sleeps a millisecond, so other tasks
/// and processes run, and it gives up only after a ceiling no healthy run comes near.
public func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(30))
    var rounds = 0
    while clock.now < deadline {
        if condition() { return }
        rounds += 1
        if rounds % 1_000 == 0 { try? await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
    }
    Issue.record("Timed out waiting until \(what)")
    throw CancellationError()
}
