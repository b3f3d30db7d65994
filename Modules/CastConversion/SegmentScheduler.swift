/// Decides which segments of a converted stream ffmpeg makes, when, and which are kept: a state machine that
/// takes events (a device asks for a segment, ffmpeg finished one, a run ended, a wait ran out) and returns
/// the actions for its I/O shell to carry out. No I/O, no clock: tests drive it event by event.
///
/// The rules, as Jellyfin's on-demand HLS has them:
/// - A run of ffmpeg makes segments in order from where it started. A request for a segment the run will reach
///   soon (within ``Limits/restartDistance`` segments) waits for it; a request behind the run (a segment not
///   kept) or far beyond it stops the run and starts one at the requested segment.
/// - A run that gets more than ``Limits/lookahead`` segments ahead of the last request is paused (SIGSTOP) and
///   resumed when requests catch up, so an idle device does not make ffmpeg fill the disk.
/// - Made segments are kept up to ``Limits/cacheBytes``; beyond that the ones farthest behind the last request
///   go first, then the farthest ahead (never the one being waited for).
/// - A run that fails fails the requests waiting on it; one retry is made at the same segment before giving up.
public struct SegmentScheduler: Sendable {
    /// The bounds the scheduler keeps.
    public struct Limits: Sendable, Hashable {
        /// Segments a run may make beyond the last requested one before it is paused.
        public var lookahead: Int
        /// How far beyond the segment a run is making a request may be and still wait for the run.
        public var restartDistance: Int
        /// Bytes of made segments kept.
        public var cacheBytes: Int
        /// Segments behind the last request kept even over the cap (a device re-fetching after a small seek back).
        public var keepBehind: Int

        /// Creates limits.
        public init(lookahead: Int = 20, restartDistance: Int = 4, cacheBytes: Int = 512 << 20, keepBehind: Int = 2) {
            self.lookahead = max(1, lookahead)
            self.restartDistance = max(0, restartDistance)
            self.cacheBytes = max(1, cacheBytes)
            self.keepBehind = max(0, keepBehind)
        }
    }

    /// An identifier the shell gives each waiting request.
    public typealias WaiterID = Int
    /// An identifier of an ffmpeg run, given by the scheduler.
    public typealias RunID = Int

    /// What happened.
    public enum Event: Sendable, Hashable {
        /// The conversion starts (the first segment is made at once, before any request).
        case start
        /// A request for a segment arrived; `waiter` identifies it until it is answered.
        case requested(segment: Int, waiter: WaiterID)
        /// A run finished a segment of `bytes` bytes.
        case produced(run: RunID, segment: Int, bytes: Int)
        /// A run ended (`succeeded`: it made everything it was asked for); `message` says why it failed.
        case runEnded(run: RunID, succeeded: Bool, message: String)
        /// A waiting request ran out of time.
        case waitExpired(waiter: WaiterID)
        /// The conversion stops.
        case stop
    }

    /// What the shell must do.
    public enum Action: Sendable, Hashable {
        /// Start ffmpeg making segments from `segment` on (after stopping any other run: see ``stopRun(_:)``).
        case startRun(RunID, segment: Int)
        /// Kill a run.
        case stopRun(RunID)
        /// Pause a run (SIGSTOP to its process group).
        case pauseRun(RunID)
        /// Resume a paused run (SIGCONT).
        case resumeRun(RunID)
        /// Answer a waiting request with the made segment.
        case serve(waiter: WaiterID, segment: Int)
        /// Answer a waiting request with a failure.
        case fail(waiter: WaiterID, segment: Int, message: String)
        /// Delete a made segment.
        case evict(segment: Int)
    }

    struct Run: Sendable, Hashable {
        var id: RunID
        var start: Int
        /// The next segment it will make.
        var next: Int
        var paused = false
    }

    /// The number of segments.
    public let segmentCount: Int
    /// The bounds.
    public let limits: Limits
    private(set) var ready: [Int: Int] = [:]
    private(set) var run: Run?
    private var waiters: [WaiterID: Int] = [:]
    private var lastRequested = 0
    private var nextRunID = 1
    private var retried: Set<Int> = []
    private var stopped = false

    /// A scheduler for `segmentCount` segments.
    public init(segmentCount: Int, limits: Limits = Limits()) {
        self.segmentCount = max(1, segmentCount)
        self.limits = limits
    }

    /// Whether a segment is made and kept.
    public func isReady(_ segment: Int) -> Bool { ready[segment] != nil }
    /// The bytes of made segments kept.
    public var cachedBytes: Int { ready.values.reduce(0, +) }
    /// The segment the current run will make next, if a run is on.
    public var runPosition: Int? { run?.next }
    /// Whether the current run is paused.
    public var isRunPaused: Bool { run?.paused ?? false }

    /// Takes an event, returns what to do.
    public mutating func handle(_ event: Event) -> [Action] {
        guard !stopped else {
            if case .requested(let segment, let waiter) = event {
                return [.fail(waiter: waiter, segment: segment, message: "the conversion has stopped")]
            }
            return []
        }
        switch event {
        case .start:
            return run == nil ? startRun(at: 0) : []
        case .requested(let segment, let waiter):
            return requested(segment, waiter: waiter)
        case .produced(let id, let segment, let bytes):
            return produced(run: id, segment: segment, bytes: bytes)
        case .runEnded(let id, let succeeded, let message):
            return runEnded(id, succeeded: succeeded, message: message)
        case .waitExpired(let waiter):
            guard let segment = waiters.removeValue(forKey: waiter) else { return [] }
            return [.fail(waiter: waiter, segment: segment, message: "segment \(segment) was not made in time")]
        case .stop:
            stopped = true
            var actions: [Action] = run.map { [.stopRun($0.id)] } ?? []
            run = nil
            for (waiter, segment) in waiters.sorted(by: { $0.key < $1.key }) {
                actions.append(.fail(waiter: waiter, segment: segment, message: "the conversion has stopped"))
            }
            waiters = [:]
            actions += ready.keys.sorted().map { .evict(segment: $0) }
            ready = [:]
            return actions
        }
    }

    private mutating func requested(_ segment: Int, waiter: WaiterID) -> [Action] {
        guard (0..<segmentCount).contains(segment) else {
            return [.fail(waiter: waiter, segment: segment, message: "there is no segment \(segment)")]
        }
        lastRequested = segment
        var actions: [Action] = []
        if ready[segment] != nil {
            actions.append(.serve(waiter: waiter, segment: segment))
        } else {
            waiters[waiter] = segment
            if let run, run.next <= segment, segment <= run.next + limits.restartDistance {
                // The run gets there soon: wait.
            } else {
                actions += startRun(at: segment)
            }
        }
        actions += resumeIfNeeded()
        return actions
    }

    private mutating func produced(run id: RunID, segment: Int, bytes: Int) -> [Action] {
        guard var current = run, current.id == id, (0..<segmentCount).contains(segment) else { return [] }
        ready[segment] = max(0, bytes)
        current.next = max(current.next, segment + 1)
        retried.remove(current.start)
        var actions: [Action] = []
        for (waiter, wanted) in waiters.sorted(by: { $0.key < $1.key }) where wanted == segment {
            waiters[waiter] = nil
            actions.append(.serve(waiter: waiter, segment: segment))
        }
        if !current.paused, current.next < segmentCount, current.next > lastRequested + limits.lookahead, waiters.isEmpty {
            current.paused = true
            actions.append(.pauseRun(id))
        }
        run = current
        actions += evictOverCap()
        return actions
    }

    private mutating func runEnded(_ id: RunID, succeeded: Bool, message: String) -> [Action] {
        guard let current = run, current.id == id else { return [] }
        run = nil
        let waiting = waiters.values.filter { ready[$0] == nil }
        guard let first = waiting.min() else { return [] }
        if succeeded || !retried.contains(current.start) {
            // Ended before reaching a waiting segment (a window's end), or failed for the first time: go on from there.
            if !succeeded { retried.insert(first) }
            return startRun(at: first)
        }
        var actions: [Action] = []
        for (waiter, segment) in waiters.sorted(by: { $0.key < $1.key }) where ready[segment] == nil {
            waiters[waiter] = nil
            actions.append(.fail(waiter: waiter, segment: segment, message: "ffmpeg failed: \(message)"))
        }
        return actions
    }

    private mutating func startRun(at segment: Int) -> [Action] {
        var actions: [Action] = run.map { [.stopRun($0.id)] } ?? []
        let id = nextRunID
        nextRunID += 1
        run = Run(id: id, start: segment, next: segment)
        actions.append(.startRun(id, segment: segment))
        return actions
    }

    private mutating func resumeIfNeeded() -> [Action] {
        guard var current = run, current.paused else { return [] }
        let wanted = !waiters.isEmpty || current.next <= lastRequested + limits.lookahead
        guard wanted else { return [] }
        current.paused = false
        run = current
        return [.resumeRun(current.id)]
    }

    private mutating func evictOverCap() -> [Action] {
        var total = cachedBytes
        guard total > limits.cacheBytes else { return [] }
        let protected = Set(waiters.values).union([lastRequested])
        let behindLimit = lastRequested - limits.keepBehind
        // Farthest behind first, then farthest ahead.
        let behind = ready.keys.filter { $0 < behindLimit }.sorted()
        let ahead = ready.keys.filter { $0 > lastRequested + 1 }.sorted(by: >)
        var actions: [Action] = []
        for segment in behind + ahead where total > limits.cacheBytes && !protected.contains(segment) {
            total -= ready.removeValue(forKey: segment) ?? 0
            actions.append(.evict(segment: segment))
        }
        return actions
    }
}
