import Observation
import Synchronization

/// Throttled progress for a slider or a progress bar, with seek on release.
///
/// Time is pulled from the player every `interval` on the injected clock (not on every status), so
/// a UI redraws at a steady pace. While the user drags (``isInteracting``), the tracker stops
/// following the player and ``time`` follows ``progress``; ending the interaction seeks there.
public final class CastProgressTracker: Observable, Sendable {
    private struct State {
        var player: (any CastPlaybackControlling)?
        var isInteracting = false
        var progress: Float = 0
        var time: Duration?
        var timeRange: ClosedRange<Duration>?
        var pulse: Task<Void, Never>?
    }

    /// How often the tracker pulls the player's time.
    public let interval: Duration
    private let clock: any Clock<Duration>
    private let state = Mutex(State())
    private let registrar = ObservationRegistrar()

    /// Creates a tracker.
    /// - Parameters:
    ///   - interval: the refresh interval (at least 10 ms).
    ///   - clock: the clock of the refresh timer.
    public init(interval: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self.interval = max(.milliseconds(10), interval)
        self.clock = clock
    }

    deinit {
        state.withLock { $0.pulse?.cancel() }
    }

    private func changed() {
        registrar.withMutation(of: self, keyPath: \.progress) {}
    }

    /// The player followed; setting it (re)starts the timer, `nil` stops it.
    public var player: (any CastPlaybackControlling)? {
        get { state.withLock { $0.player } }
        set {
            let old = state.withLock { state -> Task<Void, Never>? in
                state.player = newValue
                defer { state.pulse = nil }
                return state.pulse
            }
            old?.cancel()
            pullTime()
            guard newValue != nil else { return }
            let interval = self.interval
            let clock = self.clock
            let task = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    self?.pullTime()
                }
            }
            state.withLock { $0.pulse = task }
        }
    }

    /// Pulls the player's time now (the timer calls this every interval).
    public func pullTime() {
        let player = state.withLock { $0.player }
        let time = player?.time()
        let range = player?.seekableTimeRange()
        state.withLock { state in
            state.timeRange = range
            guard !state.isInteracting else { return }
            state.time = time
            state.progress = Self.progress(of: time, in: range)
        }
        changed()
    }

    static func progress(of time: Duration?, in range: ClosedRange<Duration>?) -> Float {
        guard let time, let range, range.upperBound > range.lowerBound else { return 0 }
        let fraction = (time - range.lowerBound) / (range.upperBound - range.lowerBound)
        return Float(min(1, max(0, fraction)))
    }

    /// Whether there is a range to show progress in.
    public var isProgressAvailable: Bool {
        registrar.access(self, keyPath: \.progress)
        return state.withLock { state in state.timeRange.map { $0.upperBound > $0.lowerBound } ?? false }
    }

    /// The progress in 0...1. Setting it (while interacting) moves ``time`` without seeking yet.
    public var progress: Float {
        get {
            registrar.access(self, keyPath: \.progress)
            return state.withLock { $0.progress }
        }
        set {
            state.withLock { state in
                state.progress = newValue.isNaN ? 0 : min(1, max(0, newValue))
                if let range = state.timeRange {
                    state.time = range.lowerBound + (range.upperBound - range.lowerBound) * Double(state.progress)
                }
            }
            changed()
        }
    }

    /// The time shown: the player's (throttled), or the dragged position while interacting.
    public var time: Duration? {
        registrar.access(self, keyPath: \.progress)
        return state.withLock { $0.time }
    }

    /// The seekable range.
    public var timeRange: ClosedRange<Duration>? {
        registrar.access(self, keyPath: \.progress)
        return state.withLock { $0.timeRange }
    }

    /// Whether the user is dragging. Setting it back to `false` seeks to the dragged position.
    public var isInteracting: Bool {
        get {
            registrar.access(self, keyPath: \.progress)
            return state.withLock { $0.isInteracting }
        }
        set {
            let (seekTarget, player) = state.withLock { state -> (Duration?, (any CastPlaybackControlling)?) in
                let wasInteracting = state.isInteracting
                state.isInteracting = newValue
                return (wasInteracting && !newValue ? state.time : nil, state.player)
            }
            if let seekTarget, let player { player.requestSeek(to: seekTarget) }
            changed()
        }
    }

    /// A time label for a text UI: `m:ss`, or `h:mm:ss` from one hour; `--:--` for `nil`.
    public static func label(for time: Duration?) -> String {
        guard let time else { return "--:--" }
        let total = max(0, Int(time.components.seconds))
        let hours = total / 3600, minutes = (total % 3600) / 60, seconds = total % 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds))" : "\(minutes):\(two(seconds))"
    }
}
