public import CastChannels
public import CastJSON
public import CastMedia

/// A change of the queue model, published on ``CastMediaQueue/changes``.
public enum QueueModelChange: Sendable, Hashable {
    /// The whole list of ids was (re)loaded.
    case reloaded(itemIds: [Int])
    /// Items were inserted, starting at `index`.
    case inserted(itemIds: [Int], index: Int)
    /// Items were removed.
    case removed(itemIds: [Int])
    /// The order changed; the new full order.
    case reordered(itemIds: [Int])
    /// The receiver reported these items changed; cached copies were dropped and are fetched again on demand.
    case itemsChanged(itemIds: [Int])
    /// These items were fetched and are now available.
    case itemsLoaded(itemIds: [Int])
    /// The current, loading or preloaded item changed.
    case currentItemChanged(current: Int?, loading: Int?, preloaded: Int?)
    /// The media session ended: the queue is empty.
    case cleared
}

/// The queue as a pure state machine (the logic of ``CastMediaQueue``): feed it the receiver's
/// messages, it updates item ids, the cache and current items, and says which changes happened and
/// what to fetch.
public struct QueueModelState: Sendable {
    /// Something the model needs from the receiver.
    public enum Effect: Sendable, Hashable {
        /// Fetch every item id (QUEUE_GET_ITEM_IDS).
        case fetchItemIds
        /// Fetch these items (QUEUE_GET_ITEMS), at most ``QueueModelState/batchSize``.
        case fetchItems([Int])
    }

    /// The largest QUEUE_GET_ITEMS batch.
    public static let batchSize = 20

    /// Every item id, in queue order.
    public private(set) var itemIds: [Int] = []
    /// The current item.
    public private(set) var currentItemId: Int?
    /// The item being loaded.
    public private(set) var loadingItemId: Int?
    /// The preloaded next item.
    public private(set) var preloadedItemId: Int?
    /// The media session the ids belong to.
    public private(set) var mediaSessionId: Int?
    /// Ids requested and not yet received.
    public private(set) var pendingItemIds: Set<Int> = []
    /// Whether a QUEUE_GET_ITEM_IDS is outstanding.
    public private(set) var isFetchingItemIds = false
    private var cache: LRUCache<Int, QueueItem>

    /// Creates an empty model whose item cache holds `cacheCapacity` items.
    public init(cacheCapacity: Int = 100) {
        cache = LRUCache(capacity: cacheCapacity)
    }

    /// The number of items.
    public var itemCount: Int { itemIds.count }

    /// The index of an item, if it is in the queue.
    public func index(of itemId: Int) -> Int? { itemIds.firstIndex(of: itemId) }

    /// The cached item, marking it recently used.
    public mutating func cachedItem(_ itemId: Int) -> QueueItem? { cache.value(for: itemId) }

    /// The ids currently cached.
    public var cachedItemIds: Set<Int> { Set(cache.keys) }

    /// The item at `index` if cached; otherwise `nil` and, unless already requested, a fetch of up to
    /// ``batchSize`` uncached items starting at `index`.
    public mutating func item(at index: Int) -> (item: QueueItem?, effect: Effect?) {
        guard itemIds.indices.contains(index) else { return (nil, nil) }
        let id = itemIds[index]
        if let item = cache.value(for: id) { return (item, nil) }
        guard !pendingItemIds.contains(id) else { return (nil, nil) }
        var batch: [Int] = []
        for candidate in itemIds[index...] where batch.count < Self.batchSize {
            if cache.peek(candidate) == nil && !pendingItemIds.contains(candidate) { batch.append(candidate) }
        }
        pendingItemIds.formUnion(batch)
        return (nil, .fetchItems(batch))
    }

    /// A fetch failed: the ids may be requested again.
    public mutating func fetchFailed(_ effect: Effect) {
        switch effect {
        case .fetchItemIds: isFetchingItemIds = false
        case .fetchItems(let ids): pendingItemIds.subtract(ids)
        }
    }

    /// Applies a message of the media namespace as `apply(_:)` with a `JSONValue` applies its JSON, but reads a
    /// MEDIA_STATUS (what a receiver sends most, a few kilobytes each) and QUEUE_ITEMS from the message's
    /// bytes without building a tree, as the media channel does. A status with no readable entry, and every
    /// other message, is applied from its JSON. The message's kind is its `type` as routing reads it
    /// (`responseType` when there is no `type`, which no receiver sends with these two).
    public mutating func apply(_ message: CastChannelMessage) -> (changes: [QueueModelChange], effects: [Effect]) {
        switch message.type {
        case "MEDIA_STATUS":
            if let text = message.text, let status = (try? MediaStatusMessage(utf8: text.utf8))?.first { return applyStatus(status) }
        case "QUEUE_ITEMS":
            if message.text != nil { return (store(Self.queueItems(in: message) ?? []), []) }
        default:
            break
        }
        guard let json = message.json else { return ([], []) }
        return apply(json)
    }

    /// The `items` of a QUEUE_ITEMS message, read from its bytes when it is text (elements that are not
    /// items skipped); `nil` when it has no `items` array or is not JSON.
    static func queueItems(in message: CastChannelMessage) -> [QueueItem]? {
        if let text = message.text { return (try? QueueItem.queueItems(utf8: text.utf8)) ?? nil }
        return message.json?["items"]?.arrayValue?.compactMap { try? QueueItem(json: $0) }
    }

    /// Applies a message of the media namespace.
    public mutating func apply(_ json: JSONValue) -> (changes: [QueueModelChange], effects: [Effect]) {
        switch json["type"]?.stringValue {
        case "MEDIA_STATUS": return applyStatus(json)
        case "QUEUE_CHANGE": return applyChange(json)
        case "QUEUE_ITEM_IDS":
            let ids = (json["itemIds"]?.arrayValue ?? []).compactMap(\.intValue)
            return (setItemIds(ids), [])
        case "QUEUE_ITEMS":
            let items = (json["items"]?.arrayValue ?? []).compactMap { try? QueueItem(json: $0) }
            return (store(items), [])
        default:
            return ([], [])
        }
    }

    /// Replaces the ids (a QUEUE_ITEM_IDS answer).
    /// - Parameters:
    ///   - ids: every item id, in queue order.
    ///   - session: the media session the request named, when the answer is applied as soon as it
    ///     returns rather than in the order of the channel's messages. The model then adopts that
    ///     session, so a MEDIA_STATUS of the same session that the receiver sent *before* the answer,
    ///     applied after it, does not take the ids for a new session's and throw them away.
    public mutating func setItemIds(_ ids: [Int], session: Int? = nil) -> [QueueModelChange] {
        var changes: [QueueModelChange] = []
        if let session, session != mediaSessionId {
            let hadItems = !itemIds.isEmpty
            mediaSessionId = session
            itemIds = []
            cache.removeAll()
            pendingItemIds = []
            if hadItems { changes.append(.reloaded(itemIds: [])) }
        }
        return changes + replaceItemIds(ids)
    }

    private mutating func replaceItemIds(_ ids: [Int]) -> [QueueModelChange] {
        isFetchingItemIds = false
        let set = Set(ids)
        cache.filter { set.contains($0) }
        pendingItemIds.formIntersection(set)
        guard ids != itemIds else { return [] }
        itemIds = ids
        return [.reloaded(itemIds: ids)]
    }

    private mutating func store(_ items: [QueueItem]) -> [QueueModelChange] {
        var loaded: [Int] = []
        for item in items {
            guard let id = item.itemId else { continue }
            pendingItemIds.remove(id)
            guard itemIds.contains(id) else { continue }
            cache.insert(item, for: id)
            loaded.append(id)
        }
        return loaded.isEmpty ? [] : [.itemsLoaded(itemIds: loaded)]
    }

    private mutating func needItemIds() -> [Effect] {
        guard !isFetchingItemIds else { return [] }
        isFetchingItemIds = true
        return [.fetchItemIds]
    }

    private mutating func applyStatus(_ json: JSONValue) -> (changes: [QueueModelChange], effects: [Effect]) {
        guard let status = (try? MediaStatusMessage(json: json))?.first else {
            guard json["status"]?.arrayValue?.isEmpty == true else { return ([], []) }
            let hadQueue = !itemIds.isEmpty || currentItemId != nil || mediaSessionId != nil
            self = QueueModelState(cacheCapacity: cache.capacity)
            return (hadQueue ? [.cleared] : [], [])
        }
        return applyStatus(status)
    }

    /// Applies the first entry of a MEDIA_STATUS.
    private mutating func applyStatus(_ status: MediaStatus) -> (changes: [QueueModelChange], effects: [Effect]) {
        var changes: [QueueModelChange] = []
        var effects: [Effect] = []
        // A session that ended (IDLE with a reason: finished, cancelled, interrupted, failed) has no queue
        // to fetch: the receiver refuses requests naming it. The next LOAD's session is fetched instead.
        let ended = status.playerState == .idle && status.idleReason != nil
        if status.mediaSessionId != mediaSessionId {
            let hadItems = !itemIds.isEmpty
            mediaSessionId = status.mediaSessionId
            itemIds = []
            cache.removeAll()
            pendingItemIds = []
            isFetchingItemIds = false
            if hadItems { changes.append(.reloaded(itemIds: [])) }
            if !ended { effects += needItemIds() }
        }
        if (status.currentItemId, status.loadingItemId, status.preloadedItemId) != (currentItemId, loadingItemId, preloadedItemId) {
            currentItemId = status.currentItemId
            loadingItemId = status.loadingItemId
            preloadedItemId = status.preloadedItemId
            changes.append(.currentItemChanged(current: currentItemId, loading: loadingItemId, preloaded: preloadedItemId))
        }
        let window = (status.items ?? []).filter { $0.itemId != nil && $0.media != nil }
        if !ended, !isFetchingItemIds, window.contains(where: { !itemIds.contains($0.itemId!) })
            || (currentItemId.map { !itemIds.contains($0) } ?? false)
        {
            effects += needItemIds()
        }
        changes += store(window)
        return (changes, effects)
    }

    private mutating func applyChange(_ json: JSONValue) -> (changes: [QueueModelChange], effects: [Effect]) {
        let ids = (json["itemIds"]?.arrayValue ?? []).compactMap(\.intValue)
        switch json["changeType"]?.stringValue {
        case "INSERT":
            let fresh = ids.filter { !itemIds.contains($0) }
            guard !fresh.isEmpty else { return ([], []) }
            let index: Int
            if let before = json["insertBefore"]?.intValue {
                guard let found = itemIds.firstIndex(of: before) else { return ([], needItemIds()) }
                index = found
            } else {
                index = itemIds.count
            }
            itemIds.insert(contentsOf: fresh, at: index)
            return ([.inserted(itemIds: fresh, index: index)], [])
        case "REMOVE":
            let removing = Set(ids)
            let removed = itemIds.filter { removing.contains($0) }
            itemIds.removeAll { removing.contains($0) }
            for id in removing { cache.remove(id) }
            pendingItemIds.subtract(removing)
            return (removed.isEmpty ? [] : [.removed(itemIds: removed)], [])
        case "ITEMS_CHANGE":
            let changed = ids.filter { itemIds.contains($0) }
            for id in changed { cache.remove(id) }
            return (changed.isEmpty ? [] : [.itemsChanged(itemIds: changed)], [])
        case "UPDATE":
            // The full new order (QUEUE_REORDER, shuffle). Anything else is a reason to reload the ids.
            guard Set(ids) == Set(itemIds), ids.count == itemIds.count else { return ([], needItemIds()) }
            guard ids != itemIds else { return ([], []) }
            itemIds = ids
            return ([.reordered(itemIds: ids)], [])
        case "NO_CHANGE":
            return ([], [])
        default:
            return ([], needItemIds())
        }
    }
}
