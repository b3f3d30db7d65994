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

/// Yields until `condition` holds (messages travel through tasks); fails after many rounds.
public func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<100_000 {
        if condition() { return }
        await Task.yield()
    }
    Issue.record("Timed out waiting until \(what)")
    throw CancellationError()
}
