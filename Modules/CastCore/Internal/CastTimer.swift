/// A type-erased clock measured as elapsed time, so the connection can hold any `Clock`.
package struct CastTimer: Sendable {
    /// Time elapsed since the timer was made.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until ``elapsed`` reaches a value (returns at once when it already has). Every timer
    /// sleeps until an instant computed when its wait began, never "for a duration from whenever
    /// the task happens to run", so a late-starting timer task cannot fire late.
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`.
    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleepUntil = { elapsed in try await clock.sleep(until: start.advanced(by: elapsed), tolerance: nil) }
    }
}
