import CastTestSupport
import Synchronization
import Testing

/// The test clock: its waits for armed timers resume when the sleepers are there (or the waiting task
/// is cancelled), not by polling; advancing it wakes every due sleeper without yielding.
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

    @Test func advanceWakesEveryDueSleeperAndATimerArmedAgainCountsFromTheNewTime() async throws {
        let clock = ManualClock()
        let order = Mutex<[Int]>([])
        // A repeating timer: every second from its last wake-up, as heartbeats are.
        let repeating = Task {
            for round in 1...2 {
                try await clock.sleep(until: clock.now.advanced(by: .seconds(1)))
                order.withLock { $0.append(round) }
            }
        }
        let late = Task { try await clock.sleep(until: .init(offset: .seconds(3))) }
        await clock.waitForSleepers(count: 2)
        await clock.advance(to: .init(offset: .seconds(5)))
        #expect(clock.now == .init(offset: .seconds(5)))
        try await late.value
        // The first round ran after the clock had moved: its next timer is due at 6 s, not 2 s.
        #expect(await ChangeSignal.shared.wait(for: { clock.sleeperDeadlines == [.init(offset: .seconds(6))] },
                                               until: .now + .seconds(30)))
        #expect(order.withLock { $0 } == [1])
        await clock.advance(to: .init(offset: .seconds(6)))
        try await repeating.value
        #expect(order.withLock { $0 } == [1, 2])
    }

    @Test func waitsForSleepersEndWhenTheirTaskIsCancelled() async {
        let clock = ManualClock()
        let returned = Mutex(false)
        let waiter = Task {
            await clock.waitForSleepers(count: 1)
            returned.withLock { $0 = true }
            ChangeSignal.shared.bump()
        }
        waiter.cancel()
        #expect(await ChangeSignal.shared.wait(for: { returned.withLock { $0 } }, until: .now + .seconds(30)))
        #expect(clock.sleeperCount == 0)
    }
}
