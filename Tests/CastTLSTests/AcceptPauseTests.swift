#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import CastTLS

/// The listening side's guard against running out of file descriptors, driven on an embedded
/// channel (NIO's manual clock): it holds an accept back while no more than the reserve is free,
/// pauses on EMFILE, and resumes only once more than the reserve is free.
///
/// Why it matters: `cast-receiver` died with SIGILL at its descriptor limit under load. libdispatch's
/// worker monitor opens `/proc/<tid>/stat` about once a second while work is queued and traps
/// ("workq: registered worker exited prematurely") when that open fails; the old accept loop took
/// every descriptor and sat at EMFILE, so the monitor's next open failed.
@Suite("Accept pause at the descriptor reserve")
struct AcceptPauseTests {
    /// A listening channel stand-in: the handler, a spy that counts the reads it lets through, and
    /// the descriptor count the handler sees.
    final class Harness {
        /// What the handler's closures share with the test.
        final class Shared: Sendable {
            let free: Mutex<Int?>
            let events = Mutex<[CastTransportServer.Event]>([])
            /// Whether a spare descriptor can be opened.
            let sparesAvailable = Mutex(true)
            init(free: Int?) { self.free = Mutex(free) }
        }
        let channel: EmbeddedChannel
        let shared: Shared
        let reads = ReadCounter()
        let handler: AcceptPauseHandler

        init(free: Int?, reserve: Int = 16, pending: PendingHandshakes? = nil) throws {
            let shared = Shared(free: free)
            self.shared = shared
            channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(reads)
            // Real spare descriptors (on /dev/null), unless the test says none can be opened.
            let spares = DescriptorSpares(opener: { shared.sparesAvailable.withLock { $0 } ? openSpare() : -1 })
            handler = AcceptPauseHandler(
                backoff: .seconds(1), reserve: reserve, freeDescriptors: { shared.free.withLock { $0 } }, pending: pending,
                spares: spares
            ) { event in shared.events.withLock { $0.append(event) } }
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8009)).wait()
        }

        /// The last `autoRead` the handler set; `nil` when it never touched it.
        var autoRead: Bool? {
            channel.options.last { $0.option is ChannelOptions.Types.AutoReadOption }?.value as? Bool
        }

        var eventLines: [String] { shared.events.withLock { $0.map(\.description) } }

        func setFree(_ count: Int?) { shared.free.withLock { $0 = count } }
    }

    /// Counts the `read()`s that reach it (the accepts NIO would make).
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        private(set) var count = 0
        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    @Test("an accept is let through while more than the reserve is free, held back at the reserve, resumed above twice it")
    func holdsTheReserve() throws {
        let harness = try Harness(free: 18)
        #expect(harness.handler.spares.count == 16, "the spares are held while accepting")
        harness.channel.read()
        #expect(harness.reads.count == 1, "18 free, reserve 16: accept")
        harness.setFree(17)
        harness.channel.read()
        #expect(harness.reads.count == 2, "17 free: the accept may take one, 16 stay")
        #expect(harness.eventLines.isEmpty)

        harness.setFree(16)
        harness.channel.read()
        #expect(harness.reads.count == 2, "16 free: no accept, or fewer than the reserve would be left")
        #expect(harness.autoRead == false, "NIO must stop watching the listening socket")
        #expect(harness.handler.spares.count == 0, "the spares are given back to the process")
        #expect(harness.eventLines == ["only 16 file descriptors free (reserve 16); pausing accept for 1 s"])

        harness.setFree(32)  // the 16 given back
        harness.channel.read()  // a read asked for while paused stays held back
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(harness.reads.count == 2)
        #expect(harness.autoRead == false, "32 free: taking the spares back would leave only the reserve")
        #expect(harness.eventLines.count == 1, "one line per pause, not one per second")

        harness.setFree(33)
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(harness.autoRead == false, "the next count is a whole back-off later")
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(harness.autoRead == true)
        #expect(harness.handler.spares.count == 16)
        #expect(harness.eventLines.last == "17 file descriptors free; accepting again")
        harness.channel.read()
        #expect(harness.reads.count == 3)
    }

    @Test("EMFILE (the limit lowered under the process) gives the spares back and pauses once; it resumes above twice the reserve")
    func emfilePauses() throws {
        let harness = try Harness(free: 0)
        let emfile = IOError(errnoCode: EMFILE, reason: "accept4(descriptor:addr:len:flags:)")
        harness.channel.pipeline.fireErrorCaught(emfile)
        harness.channel.pipeline.fireErrorCaught(emfile)  // a second failure in the same pause: no new line
        #expect(harness.autoRead == false)
        #expect(harness.handler.spares.count == 0, "the process gets 16 descriptors back at once")
        #expect(harness.eventLines.count == 1)
        #expect(harness.eventLines.first?.hasPrefix("accept failed (io: ") == true)
        #expect(harness.eventLines.first?.hasSuffix("; pausing accept for 1 s") == true)
        #expect(throws: Never.self) { try harness.channel.throwIfErrorCaught() }  // not passed on

        harness.setFree(16)
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(harness.autoRead == false, "16 free: accepting now would eat into the reserve")
        harness.setFree(40)
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(harness.autoRead == true)
        #expect(harness.eventLines.last == "24 file descriptors free; accepting again")
    }

    @Test("spares that cannot be opened are not waited for: the server holds what it can")
    func sparesBestEffort() throws {
        let harness = try Harness(free: 100)
        harness.handler.spares.release()
        harness.shared.sparesAvailable.withLock { $0 = false }
        harness.channel.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept4"))
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(harness.autoRead == true, "the count says there is room; accept resumes without spares")
        #expect(harness.handler.spares.count == 0)
    }

    @Test("other accept errors are passed on; with no reserve, or no count, accepting is never held back")
    func otherErrorsAndNoReserve() throws {
        let harness = try Harness(free: 0, reserve: 0)
        harness.channel.read()
        #expect(harness.reads.count == 1)
        harness.channel.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept4"))
        #expect(throws: IOError.self) { try harness.channel.throwIfErrorCaught() }
        #expect(harness.autoRead == nil)

        let unknown = try Harness(free: nil)
        unknown.channel.read()
        #expect(unknown.reads.count == 1, "no /proc: accept as before")
    }

    /// Time for ``PendingHandshakes``, moved by hand.
    final class Now: Sendable {
        private let value = Mutex(Duration.zero)
        var now: Duration { value.withLock { $0 } }
        func advance(by duration: Duration) { value.withLock { $0 += duration } }
    }

    /// Before: at the reserve the server paused accepting for a second, and idle TCP connections held
    /// until their 10 s handshake deadline kept a sender out (served after 69.6 s with 100 idlers under
    /// 64 descriptors). Now a pending handshake is closed for each connection accepted at the reserve.
    @Test("at the reserve a connection that has not finished its handshake is closed for each accept; with none, accept pauses")
    func evictsPendingHandshakesAtTheReserve() throws {
        let time = Now()
        let pending = PendingHandshakes(now: { time.now })
        let evicted = Mutex<[String]>([])
        for name in ["a", "b"] {
            pending.ready(pending.admitted(host: "10.0.0.1") { evicted.withLock { $0.append(name) } })
        }
        time.advance(by: PendingHandshakes.grace)
        let harness = try Harness(free: 16, pending: pending)
        harness.channel.read()
        #expect(harness.reads.count == 1, "room was made: the accept goes through")
        #expect(evicted.withLock { $0 } == ["a"], "the oldest idle one")
        #expect(pending.closing == 1)
        harness.channel.read()
        #expect(harness.reads.count == 2)
        #expect(evicted.withLock { $0 } == ["a"], "a descriptor is on its way back: no second eviction yet")
        pending.evictionClosed()
        harness.channel.read()
        #expect(evicted.withLock { $0 } == ["a", "b"])
        #expect(harness.reads.count == 3)
        harness.channel.read()
        #expect(harness.reads.count == 4, "b's descriptor is on its way back")
        #expect(harness.eventLines.isEmpty, "no pause while there was room to make")
        pending.evictionClosed()
        harness.channel.read()
        #expect(harness.reads.count == 4, "nobody left to close: accept pauses")
        #expect(harness.eventLines == ["only 16 file descriptors free (reserve 16); pausing accept for 1 s"])
    }

    /// A sender's ClientHello follows its TCP handshake at once, but is read only once its connection is
    /// set up: a connection its loop has not had a turn to read, or accepted less than the grace ago, is
    /// not closed; the accept waits for it instead (not the second of a pause).
    @Test("a connection not read yet, or just accepted, is not evicted: the accept waits for it")
    func graceBeforeEviction() throws {
        let time = Now()
        let pending = PendingHandshakes(now: { time.now })
        let evicted = Mutex<[String]>([])
        let token = pending.admitted(host: "10.0.0.1") { evicted.withLock { $0.append("young") } }
        let harness = try Harness(free: 16, pending: pending)
        time.advance(by: .seconds(1))
        harness.channel.read()
        #expect(harness.reads.count == 0, "not read yet: held back")
        #expect(evicted.withLock { $0 }.isEmpty)
        #expect(harness.eventLines.isEmpty, "not a pause")
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(2))
        #expect(harness.reads.count == 0, "asked again, still not read")
        pending.ready(token)
        harness.channel.embeddedEventLoop.advanceTime(by: .milliseconds(2))
        #expect(evicted.withLock { $0 } == ["young"], "read, past its grace: evicted")
        #expect(harness.reads.count == 1, "and the held accept goes through")

        let fresh = pending.admitted(host: "10.0.0.1") { evicted.withLock { $0.append("fresh") } }
        pending.ready(fresh)
        pending.evictionClosed()
        time.advance(by: .milliseconds(5))
        #expect(pending.evictOne() == .wait(PendingHandshakes.grace - .milliseconds(5)), "within its grace")
        time.advance(by: PendingHandshakes.grace)
        #expect(pending.evictOne() == .evicted)
    }

    @Test("eviction order: idle before heard from, the busiest address first, then the oldest; finished handshakes are never candidates")
    func evictionOrder() {
        let time = Now()
        let pending = PendingHandshakes(now: { time.now })
        let sender = pending.admitted(host: "10.0.0.9") {}
        pending.heard(sender)  // its ClientHello came
        let lone = pending.admitted(host: "10.0.0.2") {}
        let flood = (0..<3).map { _ in pending.admitted(host: "10.0.0.1") {} }
        for token in [sender, lone] + flood { pending.ready(token) }
        #expect(pending.candidate == nil, "all within their grace")
        #expect(pending.evictOne() == .wait(PendingHandshakes.grace))
        time.advance(by: PendingHandshakes.grace)
        #expect(pending.candidate?.sequence == flood[0], "idle, from the address holding the most, oldest there")
        #expect(pending.evictOne() == .evicted)
        #expect(pending.candidate?.sequence == flood[1], "2 from 10.0.0.1 still outnumber 1 from 10.0.0.2")
        pending.left(flood[1])  // it finished its handshake
        #expect(pending.candidate?.sequence == lone, "one each now: the oldest idle one")
        #expect(pending.evictOne() == .evicted)
        #expect(pending.evictOne() == .evicted)
        #expect(pending.candidate?.sequence == sender, "the one that spoke goes last")
        pending.left(sender)
        #expect(pending.evictOne() == .none, "nothing pending")
        #expect(pending.evicted == 3)
    }

    @Test("the descriptor count of this process is within its soft limit, and leaves its own scan out")
    func countsThisProcess() throws {
        var limit = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let free = try #require(DescriptorTable.freeDescriptors())
        #expect(free > 3 && free <= Int(limit.rlim_cur), "0, 1 and 2 are open; \(free) of \(limit.rlim_cur) free")
    }
}
