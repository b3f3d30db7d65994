import CastTestSupport
import Synchronization
import Testing

/// The test clock's waits for armed timers: they resume when the sleepers are there, not by polling.
@Suite struct ManualClockTests {
    @Test func waitForSleepersResumesOnceEnoughTasksSleep() async throws {
        let clock = ManualClock()
        let resumed = Mutex(false)
        let waiter = Task {
            await clock.waitForSleepers(count: 2)
            resumed.withLock { $0 = true }
        }
        let first = Task { try await clock.sleep(until: .init(offset: .seconds(5))) }
        await clock.waitForSleepers(count: 1)
        #expect(!resumed.withLock { $0 }, "one sleeper is not two")
        let second = Task { try await clock.sleep(until: .init(offset: .seconds(9))) }
        await waiter.value
        #expect(resumed.withLock { $0 })
        #expect(clock.sleeperCount == 2)
        await clock.advance(by: .seconds(9))
        try await first.value
        try await second.value
    }

    @Test func waitsThatAlreadyHoldReturnAtOnce() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
        await clock.waitForSleeper(until: .init(offset: .seconds(1)))
        await clock.waitForSleepers(count: 1)
        await clock.waitForSleepers(count: 0)
        await clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
    }
}
