import CastConversion
import Testing

/// The scheduler, event by event: which runs start, pause, resume and stop, what is served, kept and evicted.
@Suite("Segments: the on-demand scheduler")
struct SegmentSchedulerTests {
    typealias Action = SegmentScheduler.Action

    @Test("The first run starts at once; a request it will reach waits; each made segment answers its waiters")
    func waitsForTheRun() {
        var scheduler = SegmentScheduler(segmentCount: 10)
        #expect(scheduler.handle(.start) == [.startRun(1, segment: 0)])
        #expect(scheduler.handle(.requested(segment: 0, waiter: 1)) == [])
        #expect(scheduler.handle(.requested(segment: 2, waiter: 2)) == [])
        #expect(scheduler.handle(.produced(run: 1, segment: 0, bytes: 100)) == [.serve(waiter: 1, segment: 0)])
        #expect(scheduler.handle(.produced(run: 1, segment: 1, bytes: 100)) == [])
        #expect(scheduler.handle(.produced(run: 1, segment: 2, bytes: 100)) == [.serve(waiter: 2, segment: 2)])
        #expect(scheduler.handle(.requested(segment: 1, waiter: 3)) == [.serve(waiter: 3, segment: 1)])
        #expect(scheduler.runPosition == 3)
    }

    @Test("A request far beyond the run (a seek forward) restarts it there; one behind it that was not kept does too")
    func restarts() {
        var scheduler = SegmentScheduler(segmentCount: 100, limits: .init(restartDistance: 4))
        _ = scheduler.handle(.start)
        _ = scheduler.handle(.produced(run: 1, segment: 0, bytes: 10))
        // Within reach: wait.
        #expect(scheduler.handle(.requested(segment: 5, waiter: 1)) == [])
        // Beyond it: stop, start at 50.
        #expect(scheduler.handle(.requested(segment: 50, waiter: 2)) == [.stopRun(1), .startRun(2, segment: 50)])
        // The old run's late segments are ignored; its end too.
        #expect(scheduler.handle(.produced(run: 1, segment: 1, bytes: 10)) == [])
        #expect(scheduler.handle(.runEnded(run: 1, succeeded: false, message: "killed")) == [])
        #expect(scheduler.handle(.produced(run: 2, segment: 50, bytes: 10)) == [.serve(waiter: 2, segment: 50)])
        // Waiter 1 still wants 5, behind the new run and not made: another restart.
        #expect(scheduler.handle(.requested(segment: 5, waiter: 3)) == [.stopRun(2), .startRun(3, segment: 5)])
        #expect(scheduler.handle(.produced(run: 3, segment: 5, bytes: 10)) == [.serve(waiter: 1, segment: 5), .serve(waiter: 3, segment: 5)])
    }

    @Test("A run far ahead of the requests pauses, and resumes when they catch up")
    func pauses() {
        var scheduler = SegmentScheduler(segmentCount: 100, limits: .init(lookahead: 3))
        _ = scheduler.handle(.start)
        _ = scheduler.handle(.requested(segment: 0, waiter: 1))
        for segment in 0..<3 { _ = scheduler.handle(.produced(run: 1, segment: segment, bytes: 1)) }
        #expect(scheduler.handle(.produced(run: 1, segment: 3, bytes: 1)) == [.pauseRun(1)])
        #expect(scheduler.isRunPaused)
        #expect(scheduler.handle(.requested(segment: 1, waiter: 2)) == [.serve(waiter: 2, segment: 1), .resumeRun(1)])
        #expect(!scheduler.isRunPaused)
        // A request for a segment the paused run is about to make resumes it.
        _ = scheduler.handle(.produced(run: 1, segment: 4, bytes: 1))
        _ = scheduler.handle(.produced(run: 1, segment: 5, bytes: 1))
        #expect(scheduler.isRunPaused)
        #expect(scheduler.handle(.requested(segment: 6, waiter: 3)) == [.resumeRun(1)])
    }

    @Test("Over the cache cap, segments far behind the last request go first, then the farthest ahead; never a waited one")
    func evicts() {
        var scheduler = SegmentScheduler(segmentCount: 100, limits: .init(lookahead: 50, cacheBytes: 500, keepBehind: 1))
        _ = scheduler.handle(.start)
        for segment in 0..<5 { _ = scheduler.handle(.produced(run: 1, segment: segment, bytes: 100)) }
        #expect(scheduler.cachedBytes == 500)
        _ = scheduler.handle(.requested(segment: 4, waiter: 1))
        #expect(scheduler.handle(.produced(run: 1, segment: 5, bytes: 100)) == [.evict(segment: 0)])
        #expect(scheduler.handle(.produced(run: 1, segment: 6, bytes: 100)) == [.evict(segment: 1)])
        #expect(scheduler.handle(.produced(run: 1, segment: 7, bytes: 100)) == [.evict(segment: 2)])
        // Segment 3 is kept behind (keepBehind 1): the farthest ahead goes.
        #expect(scheduler.handle(.produced(run: 1, segment: 8, bytes: 100)) == [.evict(segment: 8)])
        #expect(!scheduler.isReady(0) && scheduler.isReady(3) && scheduler.cachedBytes <= 500)
    }

    @Test("A failed run is retried once at the waited segment, then its waiters fail; a wait that runs out fails alone")
    func failures() {
        var scheduler = SegmentScheduler(segmentCount: 10)
        _ = scheduler.handle(.start)
        _ = scheduler.handle(.requested(segment: 2, waiter: 1))
        #expect(scheduler.handle(.runEnded(run: 1, succeeded: false, message: "boom")) == [.startRun(2, segment: 2)])
        #expect(scheduler.handle(.runEnded(run: 2, succeeded: false, message: "boom again"))
            == [.fail(waiter: 1, segment: 2, message: "ffmpeg failed: boom again")])
        _ = scheduler.handle(.requested(segment: 3, waiter: 2))
        #expect(scheduler.handle(.waitExpired(waiter: 2)) == [.fail(waiter: 2, segment: 3, message: "segment 3 was not made in time")])
        #expect(scheduler.handle(.waitExpired(waiter: 2)) == [])
        #expect(scheduler.handle(.requested(segment: 10, waiter: 3)) == [.fail(waiter: 3, segment: 10, message: "there is no segment 10")])
    }

    @Test("A run that ends before a waited segment (its window) is followed by one from there")
    func windowEnd() {
        var scheduler = SegmentScheduler(segmentCount: 10)
        _ = scheduler.handle(.start)
        _ = scheduler.handle(.produced(run: 1, segment: 0, bytes: 1))
        _ = scheduler.handle(.requested(segment: 3, waiter: 1))
        #expect(scheduler.handle(.runEnded(run: 1, succeeded: true, message: "")) == [.startRun(2, segment: 3)])
    }

    @Test("Stop kills the run, fails every waiter, evicts everything, and fails later requests")
    func stops() {
        var scheduler = SegmentScheduler(segmentCount: 10)
        _ = scheduler.handle(.start)
        _ = scheduler.handle(.produced(run: 1, segment: 0, bytes: 1))
        _ = scheduler.handle(.requested(segment: 4, waiter: 7))
        #expect(scheduler.handle(.stop) == [.stopRun(1), .fail(waiter: 7, segment: 4, message: "the conversion has stopped"), .evict(segment: 0)])
        #expect(scheduler.handle(.requested(segment: 0, waiter: 8)) == [.fail(waiter: 8, segment: 0, message: "the conversion has stopped")])
        #expect(scheduler.handle(.start) == [])
    }
}

@Suite("Segments: layouts")
struct SegmentLayoutTests {
    @Test("Converted: 1 s and 2 s first, then the target; a short last segment joins the one before")
    func regular() throws {
        let layout = try SegmentLayout.regular(duration: 20, target: 3)
        #expect(layout.starts == [0, 1, 3, 6, 9, 12, 15, 18])
        #expect(layout.end(of: 7) == 20 && layout.length(of: 0) == 1 && layout.targetDuration == 3)
        #expect(layout.segment(containing: 15) == 6 && layout.segment(containing: 14.99) == 5 && layout.segment(containing: 99) == 7)
        #expect(try SegmentLayout.regular(duration: 18.3, target: 3).starts.last == 15)  // 18-18.3 joins 15-18
        #expect(try SegmentLayout.regular(duration: 0.4, target: 3).starts == [0])
        #expect(throws: ConversionError.self) { try SegmentLayout.regular(duration: 0, target: 3) }
        #expect(throws: ConversionError.self) { try SegmentLayout.regular(duration: .infinity, target: 3) }
    }

    @Test("Copied: cut at the first key frame at least the segment's length after the last cut")
    func keyframes() throws {
        let every2s = stride(from: 0.005, to: 20, by: 2).map { $0 }
        let layout = try SegmentLayout.keyframes(every2s, duration: 20, target: 3)
        #expect(layout.starts == [0, 2.005, 4.005, 8.005, 12.005, 16.005])
        #expect(layout.targetDuration == 4)
        let sparse = try SegmentLayout.keyframes([0, 10, 11, 25], duration: 30, target: 3)
        #expect(sparse.starts == [0, 10, 25])
        #expect(try SegmentLayout.keyframes([], duration: 30, target: 3).starts == [0])
    }
}
