import Synchronization

/// A `Clock` that moves only when told to, so tests of timers never wait.
///
/// Every change of its sleepers or of its time bumps ``ChangeSignal/shared``, so a wait for a
/// condition on ``sleeperCount`` or ``now`` is re-checked when it may have become true.
///
/// Sleepers wake, in deadline order, when ``advance(by:)`` or ``advance(to:)`` moves the
/// clock past their deadline. Cancellation wakes a sleeper at once with `CancellationError`.
///
/// ```swift
/// let clock = ManualClock()
/// let connection = CastConnection(transport: transport, clock: clock)
/// await clock.advance(by: .seconds(10))   // the heartbeat gives up without a real wait
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point in the clock's time: the duration since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock's start.
        public var offset: Duration
        /// Creates an instant at `offset` from the clock's start.
        public init(offset: Duration) { self.offset = offset }
        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextId: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Tasks in ``waitForSleeper(until:)`` and ``waitForSleepers(count:)``.
        var sleeperWatchers: [(id: UInt64, condition: SleeperCondition, continuation: CheckedContinuation<Void, Never>)] = []

        /// Removes and returns the watchers whose condition now holds.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            var satisfied: [CheckedContinuation<Void, Never>] = []
            sleeperWatchers.removeAll { watcher in
                guard watcher.condition.holds(for: sleepers) else { return false }
                satisfied.append(watcher.continuation)
                return true
            }
            return satisfied
        }
    }

    /// What a watcher waits for.
    private enum SleeperCondition {
        /// A sleeper until exactly this instant.
        case deadline(Instant)
        /// At least this many sleepers.
        case count(Int)

        func holds(for sleepers: [Sleeper]) -> Bool {
            switch self {
            case .deadline(let deadline): sleepers.contains { $0.deadline == deadline }
            case .count(let count): sleepers.count >= count
            }
        }
    }

    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }
    /// The smallest step the clock measures.
    public var minimumResolution: Duration { .zero }
    /// How many tasks are sleeping on this clock: tests wait for this to know a timer is armed.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// When each suspended sleeper wakes, so a test can wait until one particular timer is armed.
    public var sleeperDeadlines: [Instant] { state.withLock { $0.sleepers.map(\.deadline) } }

    /// Suspends until the clock reaches `deadline` (at once if it already has).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, state.satisfiedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                if resumeNow { continuation.resume() } else { ChangeSignal.shared.bump() }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            if sleeper != nil { ChangeSignal.shared.bump() }
        }
        try Task.checkCancellation()
    }

    /// Suspends until a task sleeps until exactly `deadline` (at once if one already does), so a
    /// test knows that a particular timer is armed without polling. Returns early when the waiting
    /// task is cancelled.
    public func waitForSleeper(until deadline: Instant) async {
        await waitFor(.deadline(deadline))
    }

    /// Suspends until at least `count` tasks sleep on this clock (at once if they already do), so a
    /// test knows that its timers are armed without polling ``sleeperCount``. Returns early when the
    /// waiting task is cancelled.
    public func waitForSleepers(count: Int) async {
        await waitFor(.count(count))
    }

    /// Returns when `condition` holds, or at once when the task is cancelled.
    private func waitFor(_ condition: SleeperCondition) async {
        let id = state.withLock { state -> UInt64 in
            state.nextId += 1
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let holds = state.withLock { state in
                    if condition.holds(for: state.sleepers) || Task.isCancelled { return true }
                    state.sleeperWatchers.append((id, condition, continuation))
                    return false
                }
                if holds { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.sleeperWatchers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleeperWatchers.remove(at: index).continuation
            }
            watcher?.resume()
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards) and wakes, in deadline order, every sleeper
    /// whose deadline has come.
    ///
    /// It does not wait for the woken tasks to run: they run after it, and see ``now`` at `instant`,
    /// so a timer one of them arms again counts from `instant`. A test that needs what a woken task
    /// does awaits it (a timer armed again with ``waitForSleeper(until:)``, a message, an event),
    /// and to step a repeating timer it advances to each of its deadlines in turn.
    public func advance(to instant: Instant) async {
        let due: [Sleeper] = state.withLock { state in
            if state.now < instant { state.now = instant }
            let due = state.sleepers.filter { $0.deadline <= instant }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= instant }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        ChangeSignal.shared.bump()
    }
}
