import Dispatch
import Foundation
import Testing

@testable import CastMedia

/// A status reader is cancelled while the channel holds its lock, as it does when it publishes a
/// status (a session ending overlaps the channel hearing of the disconnect). Cancelling runs the
/// stream's termination handler under the runtime's lock of the reader's task, and resuming that
/// reader with a status needs the same task lock: a handler that waited for the channel's lock
/// deadlocked the two (CI's 40-minute hang, fixed in 0ecaf4f without a test of its own).
@Suite("Status streams and the channel's lock", .timeLimit(.minutes(1)))  // a net against a hang, not a timing check
struct StatusStreamTerminationTests {
    @Test("A status reader cancelled while the channel holds its lock ends without waiting for it")
    func cancellingAReaderNeverWaitsForTheChannelsLock() async throws {
        let channel = CastMediaChannel()
        let statuses = channel.statuses
        let readerEnded = DispatchSemaphore(value: 0)
        let (reads, read) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for await _ in statuses { read.yield() }
            readerEnded.signal()
        }
        var readsSoFar = reads.makeAsyncIterator()
        _ = await readsSoFar.next()  // the reader has the current status (nil)

        // Another thread holds the channel's lock, as publishing does, and waits there for the reader
        // to end. The 30 s bound a wait that, fixed, does not happen at all.
        let (lockHeld, held) = AsyncStream<Void>.makeStream()
        let (outcomes, outcome) = AsyncStream<DispatchTimeoutResult>.makeStream()
        Thread.detachNewThread {
            channel.state.withLock { _ in
                held.yield()
                outcome.yield(readerEnded.wait(timeout: .now() + 30))
            }
        }
        var holding = lockHeld.makeAsyncIterator()
        _ = await holding.next()

        reader.cancel()
        var results = outcomes.makeAsyncIterator()
        let result = await results.next()
        #expect(result == .success, "the reader's termination handler waited for the channel's lock")
        await reader.value
        // The stream the lock was busy for is removed by the next publish, not leaked: a new reader
        // still gets the status.
        var fresh = channel.statuses.makeAsyncIterator()
        #expect(await fresh.next() != nil)
    }
}
