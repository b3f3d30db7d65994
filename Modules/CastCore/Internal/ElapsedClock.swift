/// The one clock abstraction of Castor's modules: an injected `Clock` seen as the time elapsed since
/// this value was made, which is what the state machines count in (the connection, the emulated
/// receiver's engine, the streaming senders and receivers, downloads, the position of a media session).
///
/// It holds any `Clock` without making its owner generic, and is a `Clock` itself (its instants are
/// those elapsed offsets), for code that is written against the protocol.
package struct ElapsedClock: Clock, Sendable {
    /// An instant: the time elapsed since the clock was made.
    package struct Instant: InstantProtocol, Sendable {
        /// The time since the clock was made.
        package var offset: Duration
        /// An instant `offset` after the clock was made.
        package init(offset: Duration) { self.offset = offset }
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// Time elapsed since the clock was made.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until ``elapsed`` reaches a value (returns at once when it already has). Every timer
    /// sleeps until an instant computed when its wait began, never "for a duration from whenever
    /// the task happens to run", so a late-starting timer task cannot fire late.
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`; time starts now.
    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleepUntil = { elapsed in try await clock.sleep(until: start.advanced(by: elapsed), tolerance: nil) }
    }

    /// ``elapsed`` as an instant.
    package var now: Instant { Instant(offset: elapsed()) }
    /// A nanosecond: the wrapped clock decides what it can tell apart.
    package var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps on the wrapped clock until `deadline`.
    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await sleepUntil(deadline.offset)
    }
}
