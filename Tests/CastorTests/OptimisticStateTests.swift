import CastTestSupport
import Testing
@testable import Castor

@Suite struct OptimisticStateTests {
    @Test func aWriteShowsAtOnceAndIgnoresStatusesWhileInFlight() {
        var state = OptimisticState(1)
        #expect(state.write(2) == 2)
        #expect(state.value == 2)
        #expect(state.isBusy)
        state.receive(1)           // a stale status arriving during the request
        #expect(state.value == 2)
        #expect(state.complete(success: true, reported: 2) == nil)
        #expect(state.value == 2)
        #expect(!state.isBusy)
    }

    @Test func onlyTheLatestPendingValueIsSentNext() {
        var state = OptimisticState(0)
        #expect(state.write(1) == 1)
        #expect(state.write(2) == nil)
        #expect(state.write(3) == nil)
        #expect(state.value == 3)
        #expect(state.complete(success: true, reported: 1) == 3)
        #expect(state.value == 3)
        #expect(state.complete(success: true, reported: 3) == nil)
        #expect(state.value == 3)
    }

    @Test func aFailureDropsThePendingValueAndRollsBack() {
        var state = OptimisticState("a")
        _ = state.write("b")
        _ = state.write("c")
        state.receive("z")         // the receiver moved meanwhile
        #expect(state.complete(success: false, reported: nil) == nil)
        #expect(state.value == "z")
        #expect(!state.isBusy)
    }

    @Test func theDriverResumesAwaitedWritersAndRollsBack() async throws {
        let property = OptimisticProperty(0) {}
        property.setSender { value throws(CastError) in
            if value < 0 { throw CastError(code: .commandFailed, message: "negative") }
            return value
        }
        try await property.update(to: 5)
        #expect(property.value == 5)
        do {
            try await property.update(to: -1)
            Issue.record("a rejected write succeeded")
        } catch {
            #expect(error.code == .commandFailed)
        }
        #expect(property.value == 5)
    }

    @Test func resetFailsWritersInFlight() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let property = OptimisticProperty(0) {}
        property.setSender { value throws(CastError) in
            ChangeSignal.shared.bump()  // in flight now
            for await _ in gate.stream { break }
            return value
        }
        let writer = Task { () -> CastError.Code? in
            do { try await property.update(to: 1); return nil } catch let error as CastError { return error.code } catch { return nil }
        }
        try await waitUntil("the request is in flight") { property.isBusy }
        property.reset(to: 0, failing: CastError(code: .sessionEnded, message: "ended"))
        #expect(await writer.value == CastError.Code.sessionEnded)
        gate.continuation.finish()
    }
}

@Suite struct ConfigurationTests {
    @Test func backOffGrowsExponentiallyWithJitterAndACap() {
        let policy = CastReconnectPolicy(maxAttempts: 10, initialDelay: .seconds(1), maxDelay: .seconds(8), multiplier: 2, jitter: 0.5)
        #expect(policy.delay(beforeAttempt: 1, random: 0) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 2, random: 0) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 3, random: 0) == .seconds(4))
        #expect(policy.delay(beforeAttempt: 5, random: 0) == .seconds(8))
        #expect(policy.delay(beforeAttempt: 9, random: 0) == .seconds(8))
        #expect(policy.delay(beforeAttempt: 2, random: 1) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 2, random: 0.5) == .milliseconds(1500))
        #expect(CastReconnectPolicy.never.maxAttempts == 0)
    }

    @Test func defaultsFollowCastor() {
        let configuration = CastConfiguration()
        #expect(configuration.navigationMode == .smart(interval: .seconds(3)))
        #expect(configuration.interval(forSkip: .forward) == .seconds(10))
        #expect(configuration.interval(forSkip: .backward) == .seconds(10))
        #expect(CastConfiguration(forwardSkipInterval: .seconds(-1)).forwardSkipInterval == .seconds(10))
        #expect(configuration.stopsReceiverAppOnEnd)
    }
}
