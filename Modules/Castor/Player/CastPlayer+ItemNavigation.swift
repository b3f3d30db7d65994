extension CastPlayer {
    // MARK: Current item

    /// The current item (optimistic; the loading item is preferred over the current one).
    /// Setting it jumps to that item without waiting; an item not in the queue is ignored.
    public var currentItem: CastPlayerItem? {
        get {
            registrar.access(self, keyPath: \.currentItem)
            guard let id = currentItemProperty.value else { return nil }
            return items.first { $0.id == id }
        }
        set {
            guard let newValue, items.contains(newValue) else { return }
            currentItemProperty.write(newValue.id)
        }
    }

    /// Jumps to `item` and waits.
    /// - Throws: ``CastError`` `.invalidArgument` when the item is not in the queue.
    public func setCurrentItem(_ item: CastPlayerItem) async throws(CastError) {
        guard items.contains(item) else { throw CastError(code: .invalidArgument, message: "\(item) is not in the queue") }
        try await currentItemProperty.update(to: item.id)
    }

    // MARK: Item navigation (ignores the navigation mode)

    /// Whether there is a previous item in the queue (wrapping around with repeat all).
    ///
    /// Ignores ``CastConfiguration/navigationMode``; ``canReturnToPrevious()`` observes it.
    public func canReturnToPreviousItem() -> Bool {
        previousItem() != nil
    }

    /// Goes to the previous item in the queue and waits (wrapping around with repeat all).
    ///
    /// Ignores ``CastConfiguration/navigationMode``: it never seeks; ``returnToPrevious()`` does.
    /// - Throws: ``CastError`` `.invalidArgument` when there is no previous item.
    public func returnToPreviousItem() async throws(CastError) {
        guard let previous = previousItem() else { throw CastError(code: .invalidArgument, message: "There is no previous item") }
        try await setCurrentItem(previous)
    }

    /// Goes to the previous item without waiting; does nothing when there is none.
    public func requestReturnToPreviousItem() {
        guard let previous = previousItem() else { return }
        currentItem = previous
    }

    /// Whether there is a next item in the queue (wrapping around with repeat all).
    public func canAdvanceToNextItem() -> Bool {
        nextItem() != nil
    }

    /// Goes to the next item in the queue and waits (wrapping around with repeat all).
    /// - Throws: ``CastError`` `.invalidArgument` when there is no next item.
    public func advanceToNextItem() async throws(CastError) {
        guard let next = nextItem() else { throw CastError(code: .invalidArgument, message: "There is no next item") }
        try await setCurrentItem(next)
    }

    /// Goes to the next item without waiting; does nothing when there is none.
    public func requestAdvanceToNextItem() {
        guard let next = nextItem() else { return }
        currentItem = next
    }

    private var currentIndex: Int? {
        guard let id = currentItemProperty.value else { return nil }
        return items.firstIndex { $0.id == id }
    }

    private func nextItem() -> CastPlayerItem? {
        let items = self.items
        guard let index = currentIndex else { return nil }
        if index + 1 < items.count { return items[index + 1] }
        return repeatMode == .all ? items.first : nil
    }

    private func previousItem() -> CastPlayerItem? {
        let items = self.items
        guard let index = currentIndex else { return nil }
        if index > 0 { return items[index - 1] }
        return repeatMode == .all ? items.last : nil
    }
}
