@testable import CastMPRIS
import CastTestSupport
import Castor
import Dispatch
import Foundation
import Testing

/// Stopping `castctl mpris` cancels the announcer (a ``CastMPRISPlayer/busNames`` reader) while the
/// player may be publishing its last name. The player yields names under its lock, and resuming a
/// reader needs the runtime's lock of the reader's task, which cancelling that reader holds while
/// the stream's termination handler runs: a handler that waited for the player's lock deadlocked
/// the two (the same cycle as the media channel's status streams in CI's 40-minute hang).
@Suite("Stopping the MPRIS player", .timeLimit(.minutes(1)))  // a safety net against a hang, not a timing check
struct StopTests {
    @Test("A bus-name reader cancelled while the player holds its lock ends without waiting for that lock")
    func cancellingANameReaderNeverWaitsForThePlayersLock() async throws {
        let mpris = CastMPRISPlayer(cast: Cast(clock: ManualClock()))
        let names = mpris.busNames
        let readerEnded = DispatchSemaphore(value: 0)
        let (reads, read) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for await _ in names { read.yield() }
            readerEnded.signal()
        }
        var readsSoFar = reads.makeAsyncIterator()
        _ = await readsSoFar.next()  // the reader has the current name (nil)

        // Another thread holds the player's lock, as publishing a name does, and waits there for
        // the reader to end. The 30 s are a bound on a wait that, fixed, does not happen at all.
        let (lockHeld, held) = AsyncStream<Void>.makeStream()
        let (outcomes, outcome) = AsyncStream<DispatchTimeoutResult>.makeStream()
        Thread.detachNewThread {
            mpris.published.withLock { _ in
                held.yield()
                outcome.yield(readerEnded.wait(timeout: .now() + 30))
            }
        }
        var holding = lockHeld.makeAsyncIterator()
        _ = await holding.next()

        reader.cancel()
        var results = outcomes.makeAsyncIterator()
        let result = await results.next()
        #expect(result == .success, "the reader's termination handler waited for the player's lock")
        await reader.value
    }
}
