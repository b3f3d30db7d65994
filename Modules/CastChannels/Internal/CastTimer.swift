/// A type-erased clock measured as elapsed time, so the connection can hold any `Clock`.
package struct CastTimer: Sendable {
    /// Time elapsed since the timer was made.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps for a duration on the underlying clock.
    package let sleep: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`.
    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }
}
