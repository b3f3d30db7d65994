@_spi(SwiftUI) import Observation
import Synchronization

/// A broadcast that something a test may be waiting for has changed, so that a wait for a
/// condition re-checks it when, and only when, it may have become true.
///
/// The parts of a test harness that hold state a condition reads (a scripted peer that received a
/// message, a log that recorded an event, a ``ManualClock`` whose sleepers or time changed) call
/// ``bump()``; ``wait(for:until:)`` evaluates its condition once, then again after each bump and after
/// each change of an `Observable` property the condition read, until the condition holds or the
/// deadline passes. Nothing polls: between two changes the waiting task is suspended.
///
/// ```swift
/// let received = Mutex<[String]>([])
/// // In the peer's reader: received.withLock { $0.append(type) }; ChangeSignal.shared.bump()
/// let arrived = await ChangeSignal.shared.wait(for: { received.withLock { $0.contains("PONG") } },
///                                              until: .now + .seconds(30))
/// ```
public final class ChangeSignal: Sendable {
    private struct State {
        var next = 0
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
    }
    private let state = Mutex(State())

    /// The signal that ``ManualClock`` and the test harnesses bump: one per test process, so a wait
    /// needs no reference to the parts it depends on. A bump from another test only makes a waiter
    /// check its condition once more.
    public static let shared = ChangeSignal()

    /// Creates a signal with no waiters.
    public init() {}

    /// Tells every waiter that something changed. Cheap when nobody waits; never blocks.
    public func bump() {
        let waiters = state.withLock { Array($0.waiters.values) }
        for waiter in waiters { waiter.yield() }
    }

    /// Bumps the signal after each element of `sequence`, until it ends or the returned task is
    /// cancelled: for a harness part whose changes a stream announces (a channel's statuses, a
    /// connection's events).
    public func bumps<Changes: AsyncSequence & Sendable>(on changes: Changes) -> Task<Void, Never> {
        Task {
            do {
                for try await _ in changes { self.bump() }
            } catch {}
        }
    }

    /// How many waits are suspended on this signal now.
    public var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Suspends until `condition` holds, and returns `true`; or returns `false` once `deadline` has
    /// passed without it holding (the deadline is a guard against a hang, not a measure of speed).
    ///
    /// The condition is evaluated at once, then after each ``bump()`` and after each change of an
    /// `Observable` property it read the last time it was evaluated. Bumps that arrive while the
    /// condition is being evaluated are coalesced into one more evaluation (the buffer holds one).
    public func wait(for condition: () -> Bool, until deadline: ContinuousClock.Instant) async -> Bool {
        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.next += 1
            state.waiters[state.next] = continuation
            return state.next
        }
        let guardTask = Task {
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
                continuation.finish()
            } catch {}
        }
        defer {
            guardTask.cancel()
            _ = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation.finish()
        }
        var iterator = changes.makeAsyncIterator()
        repeat {
            // didSet, not onChange: onChange runs before the mutation, and a property changed inside
            // `withMutation`'s body (not after it) would still read the old value here.
            let holds = withObservationTracking(condition, didSet: { tracking in
                tracking.cancel()
                continuation.yield()
            })
            if holds { return true }
        } while await iterator.next() != nil
        return condition()
    }
}
