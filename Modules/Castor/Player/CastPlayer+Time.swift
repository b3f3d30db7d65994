import CastMedia

extension CastPlayer {
    /// The position now: the pending seek target, else the receiver's position extrapolated with
    /// the injected clock; `nil` without media.
    public func time() -> Duration? {
        if let target = seekProperty.value { return .seconds(target) }
        return media.estimatedPosition.map { .seconds($0) }
    }

    /// The range one can seek in: the live seekable window when the receiver reports one, else
    /// `0...duration`; `nil` when unknown.
    public func seekableTimeRange() -> ClosedRange<Duration>? {
        guard let status = mediaStatus else { return nil }
        if let live = status.liveSeekableRange, let start = live.start, let end = live.end, end >= start {
            return .seconds(start) ... .seconds(end)
        }
        if let duration = status.media?.duration, duration > 0 {
            return .zero ... .seconds(duration)
        }
        return nil
    }

    /// Whether `time` is inside ``seekableTimeRange()`` and the receiver supports seeking.
    public func canSeek(to time: Duration) -> Bool {
        guard let range = seekableTimeRange(), mediaStatus?.supportedMediaCommands.contains(.seek) ?? false else { return false }
        return range.contains(time)
    }

    /// Seeks (fire-and-forget); the target shows at once in ``time()``. Clamped to the seekable range.
    public func seek(to time: Duration) {
        seekProperty.write(clampedSeek(time))
    }

    /// Seeks and waits for the receiver.
    public func seek(to time: Duration) async throws(CastError) {
        guard mediaStatus != nil else { throw CastError(code: .noSession, message: "There is no media to seek in") }
        try await seekProperty.update(to: clampedSeek(time))
    }

    private func clampedSeek(_ time: Duration) -> Double {
        var target = time
        if let range = seekableTimeRange() { target = min(range.upperBound, max(range.lowerBound, time)) }
        return CastReconnectPolicy.seconds(max(.zero, target))
    }

    // MARK: Skip

    /// Whether a skip in `direction` is possible.
    public func canSkip(_ direction: CastSkip) -> Bool {
        guard let time = time(), let range = seekableTimeRange(), mediaStatus?.supportedMediaCommands.contains(.seek) ?? false else {
            return false
        }
        return direction == .forward ? time < range.upperBound : time > range.lowerBound
    }

    /// The target of a skip: from the pending seek target if any, by the configured interval.
    func skipTarget(_ direction: CastSkip) -> Duration? {
        guard let time = time() else { return nil }
        let interval = configuration.interval(forSkip: direction)
        return direction == .forward ? time + interval : time - interval
    }

    /// Skips in `direction` by the configured interval (fire-and-forget).
    public func skip(_ direction: CastSkip) {
        guard canSkip(direction), let target = skipTarget(direction) else { return }
        seek(to: target)
    }

    /// Skips and waits for the receiver.
    public func skip(_ direction: CastSkip) async throws(CastError) {
        guard let target = skipTarget(direction) else { throw CastError(code: .noSession, message: "There is no media to skip in") }
        try await seek(to: target)
    }

    /// Whether a backward skip is possible.
    public func canSkipBackward() -> Bool { canSkip(.backward) }
    /// Whether a forward skip is possible.
    public func canSkipForward() -> Bool { canSkip(.forward) }
    /// Skips backward (fire-and-forget).
    public func skipBackward() { skip(.backward) }
    /// Skips forward (fire-and-forget).
    public func skipForward() { skip(.forward) }

    /// Whether the player can go to its default position (live edge, or start).
    public func canSkipToDefault() -> Bool { seekableTimeRange() != nil }

    /// Goes to the live edge of a live stream, or the start of an on-demand one (fire-and-forget).
    public func skipToDefault() {
        guard let range = seekableTimeRange() else { return }
        seek(to: streamType == .live ? range.upperBound : range.lowerBound)
    }
}
