/// An injected `Clock` seen as "time since this value was created", which is what the state
/// machines count in (the emulated receiver's engine, the streaming senders and receivers).
package struct ElapsedClock: Sendable {
    package let now: @Sendable () -> Duration
    package let sleep: @Sendable (_ until: Duration) async throws -> Void

    package init(_ clock: any Clock<Duration>) {
        self = Self.make(clock)
    }

    private init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    private static func make<C: Clock<Duration>>(_ clock: C) -> ElapsedClock {
        let start = clock.now
        return ElapsedClock(
            now: { start.duration(to: clock.now) },
            sleep: { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) })
    }
}
