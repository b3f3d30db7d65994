import CastChannels
import CastJSON
import CastTestSupport
import CastCore
import Testing

import CastMedia

/// A sender connection with a media channel, wired to a ``ScriptedReceiver`` in memory.
public struct MediaHarness: Sendable {
    public let connection: CastConnection
    public let receiver: ScriptedReceiver
    public let media: CastMediaChannel
    public let clock: ManualClock
    public let receiverEnd: InMemoryCastTransport
    /// Bump ``ChangeSignal/shared`` when the sender side changes (a media message applied, a status
    /// published, a connection event), so that ``waitUntil(_:_:)`` re-checks its condition then.
    let watchers: [Task<Void, Never>]

    public static func make(launched: Bool = true, configuration: CastConnectionConfiguration = .default) async throws -> MediaHarness {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let receiver = ScriptedReceiver(transport: receiverEnd, launched: launched)
        let clock = ManualClock()
        let connection = CastConnection(transport: senderEnd, configuration: configuration, clock: clock)
        let media = CastMediaChannel(clock: clock)
        let signal = ChangeSignal.shared
        // Subscribed before anything is sent. `messages` is published after the channel applied the
        // message; `statuses` also after a disconnect forgot the session.
        let watchers = [signal.bumps(on: media.messages), signal.bumps(on: media.statuses), signal.bumps(on: connection.events)]
        try await connection.add(media)
        try await connection.start()
        if launched { try await waitUntilConnected(media, on: connection) }
        return MediaHarness(connection: connection, receiver: receiver, media: media, clock: clock, receiverEnd: receiverEnd,
                            watchers: watchers)
    }

    /// Waits until `media` is connected on `connection` (its `channelDidConnect` returned); fails after 30 s.
    public static func waitUntilConnected(_ media: CastMediaChannel, on connection: CastConnection) async throws {
        // The connection's own wait is on the harness's manual clock, which does not move: it only
        // announces the connect, and `waitUntil` keeps the deadline.
        let connected = Task {
            _ = try? await connection.waitUntilConnected(media)
            ChangeSignal.shared.bump()
        }
        defer { connected.cancel() }
        try await waitUntil("the media channel connects") { media.isConnected }
    }

    /// Bumps ``ChangeSignal/shared`` on each element of `changes` (say a queue model's changes) until
    /// ``close()``.
    @discardableResult
    public func watch<Changes: AsyncSequence & Sendable>(_ changes: Changes) -> Task<Void, Never> {
        ChangeSignal.shared.bumps(on: changes)
    }

    public func close() async {
        await connection.close()
        receiver.stop()
        for watcher in watchers { watcher.cancel() }
    }
}

