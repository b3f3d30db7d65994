/// Where playback is now, extrapolated from the last status (receivers do not re-send `currentTime`
/// while playing).
///
/// Pure: give it the status, how long ago it arrived, and it returns the position.
/// ```swift
/// let tracker = MediaPositionTracker(clock: ContinuousClock())
/// tracker.update(status)       // on every status
/// tracker.position()           // now
/// ```
public enum MediaPosition {
    /// The position `elapsed` after `status` was received.
    ///
    /// Only PLAYING advances (at `playbackRate`); the result is clamped to `[0, duration]` for media with a
    /// duration, and to the live seekable range's end for live streams that report one.
    public static func estimate(from status: MediaStatus, elapsed: Duration) -> Double {
        var position = status.currentTime
        if status.playerState == .playing {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            position += max(0, seconds) * status.playbackRate
        }
        if let duration = status.media?.duration, duration > 0, status.media?.streamType != .live {
            position = min(position, duration)
        } else if let end = status.liveSeekableRange?.end {
            position = min(position, end)
        }
        return max(0, position)
    }
}

/// Keeps the last status and the instant it arrived, on an injected clock, to tell the position now.
///
/// A value type: store it where the status is kept (an actor, a locked state).
public struct MediaPositionTracker<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    /// The clock.
    public let clock: C
    /// The last status and when it arrived.
    public private(set) var last: (status: MediaStatus, receivedAt: C.Instant)?

    /// Creates a tracker.
    public init(clock: C) {
        self.clock = clock
    }

    /// Records a status received now.
    public mutating func update(_ status: MediaStatus) {
        last = (status, clock.now)
    }

    /// Forgets the status (the session ended).
    public mutating func reset() {
        last = nil
    }

    /// The position now, or `nil` without a status.
    public func position() -> Double? {
        guard let last else { return nil }
        return MediaPosition.estimate(from: last.status, elapsed: last.receivedAt.duration(to: clock.now))
    }
}
