import CastJSON
import CastMedia

extension CastPlayer {
    /// The position now: the pending seek target, else the receiver's position extrapolated with
    /// the injected clock; `nil` without media. The receiver's numbers can be anything: past a century
    /// either way they read as a century.
    public func time() -> Duration? {
        if let target = seekProperty.value { return .saturatingSeconds(target) }
        return media.estimatedPosition.map { .saturatingSeconds($0) }
    }

    /// The range one can seek in: the live seekable window when the receiver reports one, else
    /// `0...duration`; `nil` when unknown.
    public func seekableTimeRange() -> ClosedRange<Duration>? {
        guard let status = mediaStatus else { return nil }
        if let live = status.liveSeekableRange, let start = live.start, let end = live.end, end >= start {
            return .saturatingSeconds(start) ... .saturatingSeconds(end)
        }
        if let duration = status.media?.duration, duration > 0 {
            return .zero ... .saturatingSeconds(duration)
        }
        return nil
    }

    /// Whether `time` is inside ``seekableTimeRange()`` and the receiver supports seeking.
    public func canSeek(to time: Duration) -> Bool {
        guard let range = seekableTimeRange(), mediaStatus?.supportedMediaCommands.contains(.seek) ?? false else { return false }
        return range.contains(time)
    }

    /// Seeks and waits for the receiver; the target shows at once in ``time()``. Clamped to the
    /// seekable range.
    /// - Throws: ``CastError`` `.noSession` without media.
    public func seek(to time: Duration) async throws(CastError) {
        guard mediaStatus != nil else { throw CastError(code: .noSession, message: "There is no media to seek in") }
        try await seekProperty.update(to: clampedSeek(time))
    }

    /// Seeks without waiting; the target shows at once in ``time()``. Clamped to the seekable range.
    public func requestSeek(to time: Duration) {
        seekProperty.write(clampedSeek(time))
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

    /// Skips in `direction` by the configured interval and waits.
    /// - Throws: ``CastError`` `.noSession` without media.
    public func skip(_ direction: CastSkip) async throws(CastError) {
        guard let target = skipTarget(direction) else { throw CastError(code: .noSession, message: "There is no media to skip in") }
        try await seek(to: target)
    }

    /// Skips in `direction` without waiting; does nothing when ``canSkip(_:)`` is false.
    public func requestSkip(_ direction: CastSkip) {
        guard canSkip(direction), let target = skipTarget(direction) else { return }
        requestSeek(to: target)
    }

    /// Whether a backward skip is possible.
    public func canSkipBackward() -> Bool { canSkip(.backward) }
    /// Whether a forward skip is possible.
    public func canSkipForward() -> Bool { canSkip(.forward) }
    /// Skips backward by ``CastConfiguration/backwardSkipInterval`` and waits.
    public func skipBackward() async throws(CastError) { try await skip(.backward) }
    /// Skips forward by ``CastConfiguration/forwardSkipInterval`` and waits.
    public func skipForward() async throws(CastError) { try await skip(.forward) }
    /// Skips backward without waiting.
    public func requestSkipBackward() { requestSkip(.backward) }
    /// Skips forward without waiting.
    public func requestSkipForward() { requestSkip(.forward) }

    /// Whether the player can go to its default position (live edge, or start).
    public func canSkipToDefault() -> Bool { seekableTimeRange() != nil }

    /// Goes to the live edge of a live stream, or the start of an on-demand one, and waits.
    /// - Throws: ``CastError`` `.noSession` without media.
    public func skipToDefault() async throws(CastError) {
        guard let target = defaultPosition() else { throw CastError(code: .noSession, message: "There is no media to seek in") }
        try await seek(to: target)
    }

    /// Goes to the live edge or the start without waiting.
    public func requestSkipToDefault() {
        guard let target = defaultPosition() else { return }
        requestSeek(to: target)
    }

    private func defaultPosition() -> Duration? {
        guard let range = seekableTimeRange() else { return nil }
        return streamType == .live ? range.upperBound : range.lowerBound
    }
}
