import CastMedia
import CastQueue

extension CastPlayer {
    /// The queue, in order. Items keep their identity (and fetched assets) across queue changes.
    ///
    /// Setting it is the editing primitive (remove, reorder, shuffle): the new list shows at once,
    /// and at most one QUEUE_REMOVE and one QUEUE_REORDER (only when the order really changed) are
    /// sent. A list holding an item that is not in the queue, or one item twice, is ignored; a
    /// failure shows the receiver's list again. ``setItems(_:)`` is the awaited form.
    public var items: [CastPlayerItem] {
        get {
            registrar.access(self, keyPath: \.items)
            return state.withLock { $0.items }
        }
        set {
            let current = Set(items)
            guard newValue.allSatisfy(current.contains), Set(newValue).count == newValue.count else { return }
            state.withLock { $0.items = newValue }   // shows at once; setItems sends it and shows the receiver's list
            changed(\.items)
            Task { try? await self.setItems(newValue) }
        }
    }

    /// Sets the queue to `items` (a subset of the current items, in any order) and waits.
    /// - Throws: ``CastError`` `.invalidArgument` when an item is not in the queue or appears twice.
    public func setItems(_ newItems: [CastPlayerItem]) async throws(CastError) {
        let current = Set(items)
        guard newItems.allSatisfy(current.contains), Set(newItems).count == newItems.count else {
            throw CastError(code: .invalidArgument, message: "The new list must be a subset of the queue without repetitions")
        }
        let queue = self.queue
        try await edit({ $0 = newItems }) { _ throws(CastMediaError) in
            try await queue.setItems(newItems.map { .existing($0.id) })
        }
    }

    /// Fetches the items among `items` that are not fetched yet, at most 20 (`QueueModelState.batchSize`)
    /// ids per QUEUE_GET_ITEMS, and waits. Each item's ``CastPlayerItem/asset`` is set as its batch
    /// arrives. Code that needs many items at once (an MPRIS track list, a playlist dump) calls this
    /// instead of ``CastPlayerItem/fetch()`` on each; every batch is bounded by the request timeout.
    /// - Throws: ``CastError`` from the first batch that failed; the items of earlier batches stay fetched.
    public func fetchItems(_ items: [CastPlayerItem]) async throws(CastError) {
        var seen = Set<Int>()
        let missing = items.filter { !$0.isFetched && seen.insert($0.id).inserted }
        for start in stride(from: 0, to: missing.count, by: QueueModelState.batchSize) {
            let batch = Array(missing[start..<min(missing.count, start + QueueModelState.batchSize)])
            let fetched: [QueueItem]
            do {
                fetched = try await media.queueFetchItems(batch.map(\.id))
            } catch {
                throw CastError(error)
            }
            for item in fetched {
                guard let id = item.itemId, let target = batch.first(where: { $0.id == id }) else { continue }
                target.update(item)
            }
        }
    }

    // MARK: Load

    /// Loads a queue of assets, replacing the current one, and waits for the receiver.
    ///
    /// With `options.shouldPlay` false the start item is loaded with `autoplay: false`, so the receiver
    /// never starts playing it (there is no PLAY-then-PAUSE); the other items keep `autoplay: true`
    /// and play in turn once the user plays. When this returns, every property shows the new queue.
    /// - Throws: ``CastError`` `.invalidArgument` for an empty list or an index outside it.
    public func loadItems(from assets: [CastAsset], with options: CastLoadOptions = CastLoadOptions()) async throws(CastError) {
        guard assets.indices.contains(options.index) else {
            throw CastError(code: .invalidArgument, message: "Index \(options.index) is outside the \(assets.count) assets")
        }
        let items = assets.indices.map { index in
            QueueItem(media: assets[index].mediaInformation, autoplay: index == options.index ? options.shouldPlay : true,
                      activeTrackIds: index == options.index ? options.activeTrackIds : nil)
        }
        do {
            let status = try await media.queueLoad(
                items, startIndex: options.index, repeatMode: options.repeatMode.repeatMode,
                startTime: options.time.map(CastReconnectPolicy.seconds))
            if options.playbackSpeed != 1, status.media?.streamType != .live {
                _ = try await media.setPlaybackRate(options.playbackSpeed)
            }
        } catch {
            throw CastError(error)
        }
        try? await queue.reload()
        rebuildItems()
        applyLatestStatus()
    }

    /// Loads one asset and waits for the receiver.
    public func loadItem(from asset: CastAsset, with options: CastLoadOptions = CastLoadOptions()) async throws(CastError) {
        try await loadItems(from: [asset], with: options)
    }

    /// Loads a queue of assets without waiting; a failure is dropped (the receiver's state shows).
    public func requestLoadItems(from assets: [CastAsset], with options: CastLoadOptions = CastLoadOptions()) {
        Task { try? await self.loadItems(from: assets, with: options) }
    }

    /// Loads one asset without waiting.
    public func requestLoadItem(from asset: CastAsset, with options: CastLoadOptions = CastLoadOptions()) {
        requestLoadItems(from: [asset], with: options)
    }

    // MARK: Insert

    /// Inserts assets before `item` (`nil`: at the end) and waits. Without a media session this loads them.
    /// - Throws: ``CastError`` `.invalidArgument` when `item` is not in the queue.
    public func insertItems(from assets: [CastAsset], before item: CastPlayerItem?) async throws(CastError) {
        guard !assets.isEmpty else { return }
        if media.mediaSessionId == nil { return try await loadItems(from: assets) }
        if let item, !items.contains(item) {
            throw CastError(code: .invalidArgument, message: "\(item) is not in the queue")
        }
        do {
            _ = try await media.queueInsert(assets.map { QueueItem(media: $0.mediaInformation) }, before: item?.id)
        } catch {
            throw CastError(error)
        }
        try? await queue.reload()
        rebuildItems()
        applyLatestStatus()
    }

    /// Inserts assets after `item` (`nil`: at the front) and waits.
    public func insertItems(from assets: [CastAsset], after item: CastPlayerItem?) async throws(CastError) {
        try await insertItems(from: assets, before: successor(after: item))
    }

    /// Inserts one asset before `item` (`nil`: at the end) and waits.
    public func insertItem(from asset: CastAsset, before item: CastPlayerItem?) async throws(CastError) {
        try await insertItems(from: [asset], before: item)
    }

    /// Inserts one asset after `item` (`nil`: at the front) and waits.
    public func insertItem(from asset: CastAsset, after item: CastPlayerItem?) async throws(CastError) {
        try await insertItems(from: [asset], after: item)
    }

    /// Inserts assets before `item` (`nil`: at the end) without waiting. Returns `false` (and sends
    /// nothing) when `item` is not in the queue.
    @discardableResult
    public func requestInsertItems(from assets: [CastAsset], before item: CastPlayerItem?) -> Bool {
        if let item, !items.contains(item) { return false }
        Task { try? await self.insertItems(from: assets, before: item) }
        return true
    }

    /// Inserts assets after `item` (`nil`: at the front) without waiting. Returns `false` (and sends
    /// nothing) when `item` is not in the queue.
    @discardableResult
    public func requestInsertItems(from assets: [CastAsset], after item: CastPlayerItem?) -> Bool {
        if let item, !items.contains(item) { return false }
        Task { try? await self.insertItems(from: assets, after: item) }
        return true
    }

    /// Appends assets at the end and waits.
    public func appendItems(from assets: [CastAsset]) async throws(CastError) {
        try await insertItems(from: assets, before: nil)
    }

    /// Appends one asset and waits.
    public func appendItem(from asset: CastAsset) async throws(CastError) {
        try await appendItems(from: [asset])
    }

    /// Prepends assets at the front and waits.
    public func prependItems(from assets: [CastAsset]) async throws(CastError) {
        try await insertItems(from: assets, before: items.first)
    }

    /// Prepends one asset and waits.
    public func prependItem(from asset: CastAsset) async throws(CastError) {
        try await prependItems(from: [asset])
    }

    private func successor(after item: CastPlayerItem?) -> CastPlayerItem? {
        let items = self.items
        guard let item else { return items.first }
        guard let index = items.firstIndex(of: item), index + 1 < items.count else { return nil }
        return items[index + 1]
    }

    // MARK: Remove and move (optimistic: the list changes at once, a failure reloads it)

    /// Removes an item and waits.
    public func remove(_ item: CastPlayerItem) async throws(CastError) {
        guard items.contains(item) else { throw CastError(code: .invalidArgument, message: "\(item) is not in the queue") }
        try await edit({ $0.removeAll { $0 == item } }) { media throws(CastMediaError) in
            _ = try await media.queueRemove([item.id])
        }
    }

    /// Removes an item without waiting (the list changes at once; a failure shows the receiver's list).
    public func requestRemove(_ item: CastPlayerItem) {
        Task { try? await self.remove(item) }
    }

    /// Removes every item and waits.
    public func removeAllItems() async throws(CastError) {
        let ids = items.map(\.id)
        guard !ids.isEmpty else { return }
        try await edit({ $0.removeAll() }) { media throws(CastMediaError) in
            _ = try await media.queueRemove(ids)
        }
    }

    /// Removes every item without waiting.
    public func requestRemoveAllItems() {
        Task { try? await self.removeAllItems() }
    }

    /// Moves `item` before `other` (`nil`: to the end) and waits.
    /// - Throws: ``CastError`` `.invalidArgument` when either item is not in the queue.
    public func move(_ item: CastPlayerItem, before other: CastPlayerItem?) async throws(CastError) {
        let current = items
        guard current.contains(item), other.map(current.contains) ?? true else {
            throw CastError(code: .invalidArgument, message: "\(item) or its destination is not in the queue")
        }
        guard item != other else { return }
        try await edit({ list in
            list.removeAll { $0 == item }
            let index = other.flatMap { list.firstIndex(of: $0) } ?? list.endIndex
            list.insert(item, at: index)
        }) { media throws(CastMediaError) in
            _ = try await media.queueReorder([item.id], before: other?.id)
        }
    }

    /// Moves `item` after `other` (`nil`: to the front) and waits.
    public func move(_ item: CastPlayerItem, after other: CastPlayerItem?) async throws(CastError) {
        let list = items.filter { $0 != item }
        let before: CastPlayerItem?
        if let other {
            guard let index = list.firstIndex(of: other) else {
                throw CastError(code: .invalidArgument, message: "\(other) is not in the queue")
            }
            before = index + 1 < list.count ? list[index + 1] : nil
        } else {
            before = list.first
        }
        try await move(item, before: before)
    }

    /// Moves `item` before `other` (`nil`: to the end) without waiting. Returns `false` (and sends
    /// nothing) when either is not in the queue.
    @discardableResult
    public func requestMove(_ item: CastPlayerItem, before other: CastPlayerItem?) -> Bool {
        let current = items
        guard current.contains(item), other.map(current.contains) ?? true else { return false }
        Task { try? await self.move(item, before: other) }
        return true
    }

    /// Moves `item` after `other` (`nil`: to the front) without waiting. Returns `false` (and sends
    /// nothing) when either is not in the queue.
    @discardableResult
    public func requestMove(_ item: CastPlayerItem, after other: CastPlayerItem?) -> Bool {
        let current = items
        guard current.contains(item), other.map(current.contains) ?? true else { return false }
        Task { try? await self.move(item, after: other) }
        return true
    }

    /// Shows `local` at once, sends `remote`, and reloads the receiver's list either way.
    private func edit(_ local: (inout [CastPlayerItem]) -> Void,
                      remote: (CastMediaChannel) async throws(CastMediaError) -> Void) async throws(CastError) {
        state.withLock { local(&$0.items) }
        changed(\.items)
        var failure: CastError?
        do {
            try await remote(media)
        } catch {
            failure = CastError(error)
        }
        try? await queue.reload()
        // Rollback on failure (or confirm on success): show the receiver's list.
        let ids = queue.itemIds
        state.withLock { state in
            let existing = Dictionary(state.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            state.items = ids.map { existing[$0] ?? CastPlayerItem(id: $0, queue: queue) }
        }
        changed(\.items)
        applyLatestStatus()
        if let failure { throw failure }
    }
}
