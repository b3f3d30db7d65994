@testable import CastMPRIS
import CastDiscoveryCore
import CastEmulator
import CastTestSupport
import CastCore
import Castor
import Dispatch
import Foundation
import Synchronization
import Testing

/// The sender's end of an in-memory link to an emulated receiver, which can go silent: once muted,
/// what the sender sends is accepted and never arrives (a device that stopped answering while its
/// socket still takes data).
private final class MutableLink: CastTransport {
    private let inner: InMemoryCastTransport
    private let muted = Mutex(false)

    init(_ inner: InMemoryCastTransport) { self.inner = inner }

    func mute() { muted.withLock { $0 = true } }
    var inbound: AsyncThrowingStream<CastMessage, any Error> { inner.inbound }
    var closeReason: CastTransportError? { inner.closeReason }
    var peerDescription: String { inner.peerDescription }
    func close() async { await inner.close() }

    func send(_ message: CastMessage) throws(CastTransportError) {
        if muted.withLock({ $0 }) { return }
        try inner.send(message)
    }
}

/// Connects to one emulated receiver through a ``MutableLink``.
private final class MutableLinkConnector: CastDeviceConnector {
    private let receiver: EmulatedReceiver
    private let links = Mutex<[MutableLink]>([])

    init(_ receiver: EmulatedReceiver) { self.receiver = receiver }

    /// Every link made so far goes silent.
    func muteAll() { for link in links.withLock({ $0 }) { link.mute() } }

    func connect(to device: CastDevice) async throws -> any CastTransport {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(receiverEnd)
        let link = MutableLink(senderEnd)
        links.withLock { $0.append(link) }
        return link
    }
}

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

    /// `castctl mpris` ends the session when it stops (SIGTERM) and hands the resume state to
    /// nobody. Building that state asks the receiver for the queue's items; a device that had
    /// stopped answering held the stop until the request timed out (9.4 s of castctl's 10 s bound
    /// with the receiver frozen by SIGSTOP). On a manual clock that never moves, the old code never
    /// returned here.
    @Test("Ending a session nobody takes a resume state from does not wait for a receiver that stopped answering")
    func endingDoesNotWaitForASilentReceiver() async throws {
        let clock = ManualClock()
        let id = UUID()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "Quiet TV", id: id, clock: clock, replyLatency: .zero))
        let device = CastDevice(id: CastDeviceID(id), friendlyName: "Quiet TV")
        let connector = MutableLinkConnector(receiver)
        let cast = Cast(configuration: CastConfiguration(reconnectPolicy: .never), connector: connector, clock: clock)
        try await cast.startSession(with: device)
        let player = try #require(cast.player)
        let songs = (1...3).map { n in
            CastAsset.url(URL(string: "https://example.com/song\(n).mp3")!,
                          configuration: CastAssetURLConfiguration(mimeType: "audio/mpeg", duration: 180), metadata: .init(title: "Song \(n)"))
        }
        try await player.loadItems(from: songs)
        try #require(player.items.count == 3, "the queue's ids, which a resume state would fetch the items of")

        connector.muteAll()
        await cast.endSession(stoppingReceiverApp: false)
        #expect(cast.player == nil)
        #expect(cast.currentDevice == nil)
    }
}
