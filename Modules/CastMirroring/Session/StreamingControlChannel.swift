import CastCore
import CastChannels
import CastJSON
import CastStreaming
import Synchronization

/// The mirroring session's plugin on `urn:x-cast:com.google.cast.webrtc`: sends the OFFER and the
/// other requests, and hands back the reply that quotes each request's `seqNum` (the namespace does
/// not use `requestId`).
final class StreamingControlChannel: CastChannelPlugin {
    let namespace = CastNamespace.webrtc

    private struct State {
        var context: CastChannelContext?
        var waiting: [Int: CheckedContinuation<StreamingMessage?, Never>] = [:]
        var disconnected = false
        var nextSequence = 1
        /// Replies that came before anyone waited for them (the last few).
        var received: [Int: StreamingMessage] = [:]
        /// Told when the app closes the channel.
        var onDisconnect: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func channelDidConnect(_ context: CastChannelContext) async {
        state.withLock { state in
            state.context = context
            state.disconnected = false
        }
    }

    func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        let (waiting, handler) = state.withLock { state in
            state.context = nil
            state.disconnected = true
            defer { state.waiting = [:] }
            return (Array(state.waiting.values), state.onDisconnect)
        }
        for waiter in waiting { waiter.resume(returning: nil) }
        handler?()
    }

    /// Calls `handler` when the app closes the channel (it stopped, or the connection dropped).
    func whenDisconnected(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onDisconnect = handler }
    }

    func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        guard let text = message.text, let parsed = try? StreamingMessage(parsing: text), let sequence = parsed.sequenceNumber else { return }
        let waiter = state.withLock { state -> CheckedContinuation<StreamingMessage?, Never>? in
            if let waiter = state.waiting.removeValue(forKey: sequence) { return waiter }
            state.received[sequence] = parsed
            if state.received.count > 16, let oldest = state.received.keys.min() { state.received[oldest] = nil }
            return nil
        }
        waiter?.resume(returning: parsed)
    }

    /// Whether the channel is connected to the mirroring app.
    var isConnected: Bool { state.withLock { $0.context != nil } }

    /// Whether the app closed the channel since it connected.
    var wasDisconnected: Bool { state.withLock { $0.disconnected } }

    /// The next sequence number to use.
    func nextSequenceNumber() -> Int {
        state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    /// Sends `message` and waits for the reply carrying its `seqNum`, within `timeout` on `clock`.
    /// - Returns: the reply, or `nil` when the deadline passed or the channel went away first.
    func request(_ message: StreamingMessage, timeout: Duration, clock: any Clock<Duration>) async throws(CastChannelError) -> StreamingMessage? {
        guard let sequence = message.sequenceNumber, let context = state.withLock({ $0.context }) else {
            throw CastChannelError(code: .notConnected, message: "The mirroring app's channel is not connected")
        }
        try await context.send(message.json)
        let elapsed = ElapsedClock(clock)
        let deadline = elapsed.elapsed() + timeout
        return await withTaskGroup(of: StreamingMessage?.self) { group in
            group.addTask { await self.reply(to: sequence) }
            group.addTask {
                try? await elapsed.sleepUntil(deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The deadline won: the waiter is resumed with nothing so the group can finish.
            self.state.withLock { $0.waiting.removeValue(forKey: sequence) }?.resume(returning: nil)
            return first
        }
    }

    /// The reply to `sequence`: one that already came, or the next to come (`nil` once disconnected).
    private func reply(to sequence: Int) async -> StreamingMessage? {
        await withCheckedContinuation { continuation in
            let ready: StreamingMessage?? = state.withLock { state in
                if let early = state.received.removeValue(forKey: sequence) { return .some(early) }
                if state.disconnected { return .some(nil) }
                state.waiting[sequence] = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
