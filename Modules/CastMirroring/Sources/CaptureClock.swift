import CastCore
import CastStreaming

/// The session's clock as sources see it: time since the session started, which is what a frame's
/// ``VideoFrame/captureTime`` and a chunk's ``AudioChunk/captureTime`` are counted in. The session maps
/// that time to RTP timestamps and to the wall clock of its sender reports, so a source that counted from
/// another origin would make every frame look older (or newer) to the device than it is.
public struct CaptureClock: Sendable {
    private let elapsed: ElapsedClock

    /// A clock whose zero is now.
    public init(_ clock: any Clock<Duration> = ContinuousClock()) {
        elapsed = ElapsedClock(clock)
    }

    init(elapsed: ElapsedClock) {
        self.elapsed = elapsed
    }

    /// The time since the session started.
    public var now: Duration { elapsed.elapsed() }

    /// Sleeps until the session's time reaches `time`.
    public func sleep(until time: Duration) async throws {
        try await elapsed.sleepUntil(time)
    }
}
