public import CastChannels
public import CastDiscoveryCore
public import CastMedia
import Synchronization

/// What happens to the session, as it happens: the connection's fate (lost, reconnecting, rejoined,
/// resumed after a restart, taken over, ended) and every receiver and media status.
///
/// Read them with ``Cast/events``. A program that follows playback tells a device that vanished
/// (``connectionLost(_:)`` then ``ended(_:)`` with ``CastError/Code/connectionLost``) from playback
/// that finished (a ``mediaStatus(_:)`` that is IDLE with idle reason FINISHED).
public enum CastSessionEvent: Sendable {
    /// A session with the device started (launched or joined).
    case started(CastDevice)
    /// The connection dropped (heartbeat timeout, reset, closed) while the session was up; reconnecting starts.
    case connectionLost(CastError)
    /// Attempt `attempt` of the reconnect policy starts after `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    /// The receiver still ran the session's app: it was joined again and its status re-synced.
    case rejoined(attempt: Int)
    /// The receiver had restarted (it ran no app): the app was launched again and `state`, captured
    /// at the moment of loss with its position extrapolated to it, was loaded.
    case resumed(CastResumeState)
    /// The app was launched again after a restart, but loading what played before failed.
    case resumeFailed(CastError)
    /// The session is over. `nil` when this sender ended it; otherwise why:
    /// ``CastError/Code/connectionLost`` (reconnecting gave up), ``CastError/Code/sessionEnded``
    /// (the receiver stopped the app) or ``CastError/Code/sessionTakenOver`` (another sender took the device).
    case ended(CastError?)
    /// The receiver's status (apps, volume) changed.
    case receiverStatus(ReceiverStatus)
    /// The media status changed (`nil`: no media session, for example while the connection is down).
    case mediaStatus(MediaStatus?)
}

/// Fans session events out to subscribers, each with a bounded buffer (the newest events win).
final class SessionEventBroadcaster: Sendable {
    /// Events a subscriber that does not read may fall behind by before the oldest are dropped.
    static let bufferLimit = 1024
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<CastSessionEvent>.Continuation] = [:]
    }
    private let state = Mutex(State())

    func subscribe() -> AsyncStream<CastSessionEvent> {
        let (stream, continuation) = AsyncStream<CastSessionEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let id = state.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ event: CastSessionEvent) {
        for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
    }

    func finish() {
        let continuations = state.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
