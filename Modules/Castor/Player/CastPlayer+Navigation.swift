extension CastPlayer {
    // MARK: Navigation (observes the navigation mode)

    /// Whether going back does something: with ``CastNavigationMode/smart(interval:)`` on an on-demand
    /// (buffered) item it always does (it seeks to the start at least); otherwise, when there is a
    /// previous item (wrapping around with repeat all).
    public func canReturnToPrevious() -> Bool {
        if case .smart = configuration.navigationMode, streamType == .buffered { return true }
        return canReturnToPreviousItem()
    }

    /// Goes back and waits, observing ``CastConfiguration/navigationMode``.
    ///
    /// With ``CastNavigationMode/smart(interval:)``, going back seeks to the start of the item when an
    /// on-demand item has played at least `interval`, or when there is no previous item; otherwise it
    /// goes to the previous item. With ``CastNavigationMode/immediate`` it always goes to the previous item.
    /// - Throws: ``CastError`` `.invalidArgument` when there is nowhere to go back to.
    public func returnToPrevious() async throws(CastError) {
        if let start = previousSeekTarget() {
            try await seek(to: start)
        } else {
            try await returnToPreviousItem()
        }
    }

    /// Goes back without waiting, observing ``CastConfiguration/navigationMode`` (see ``returnToPrevious()``).
    public func requestReturnToPrevious() {
        if let start = previousSeekTarget() {
            requestSeek(to: start)
        } else {
            requestReturnToPreviousItem()
        }
    }

    /// Whether there is a next item (wrapping around with repeat all); the same as ``canAdvanceToNextItem()``.
    public func canAdvanceToNext() -> Bool {
        canAdvanceToNextItem()
    }

    /// Goes to the next item and waits; the same as ``advanceToNextItem()`` (no navigation mode changes "next").
    public func advanceToNext() async throws(CastError) {
        try await advanceToNextItem()
    }

    /// Goes to the next item without waiting.
    public func requestAdvanceToNext() {
        requestAdvanceToNextItem()
    }

    /// Where "back" seeks instead of changing items, or `nil` when it changes items. Smart navigation
    /// seeks to the start of the seekable range when a buffered item is at least `interval` past it, or
    /// when there is no previous item (as Castor does).
    func previousSeekTarget() -> Duration? {
        guard case .smart(let interval) = configuration.navigationMode, let range = seekableTimeRange() else { return nil }
        let awayFromStart = streamType == .buffered && (time().map { $0 - range.lowerBound >= interval } ?? false)
        return awayFromStart || !canReturnToPreviousItem() ? range.lowerBound : nil
    }
}
