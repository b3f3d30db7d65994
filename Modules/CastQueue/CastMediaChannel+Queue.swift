import CastChannels
import CastJSON
public import CastMedia
public import CastMediaMetadata

/// Queue commands (QUEUE_*) on the media channel, each awaited and typed like the media commands.
extension CastMediaChannel {
    /// Loads a queue (QUEUE_LOAD) and returns the first status of the new media session.
    ///
    /// A queue whose message would exceed 64 KiB is split automatically: the start item and as many
    /// following items as fit are loaded, the rest are appended and the items before the start item are
    /// inserted before it, each in chunks under the limit. The resulting queue is the one asked for.
    /// - Parameters:
    ///   - items: the items, without ids.
    ///   - startIndex: the index of the item to play first.
    ///   - repeatMode: the repeat mode.
    ///   - startTime: where to start the first item, in seconds.
    ///   - customData: application data.
    /// - Throws: `CastMediaError`; `messageTooLarge` when a single item is over the limit (nothing sent).
    @discardableResult
    public func queueLoad(
        _ items: [QueueItem], startIndex: Int = 0, repeatMode: RepeatMode = .off, startTime: Double? = nil,
        customData: CastCustomData? = nil
    ) async throws(CastMediaError) -> MediaStatus {
        guard !items.isEmpty, items.indices.contains(startIndex) else {
            throw CastMediaError(code: .invalidRequest, message: "A queue needs items and a start index among them (\(startIndex) of \(items.count))",
                                 reason: .invalidParams)
        }
        let encoded = try items.map { item throws(CastMediaError) in try Self.json(item) }
        var base: JSONValue = ["type": "QUEUE_LOAD", "repeatMode": .string(repeatMode.rawValue)]
        base["currentTime"] = startTime.map(JSONValue.number)
        base["customData"] = customData?.json
        let limit = try maxItemsPayload(for: base, itemsKey: "items", needsSession: false)
        if QueueChunker.fits(encoded, within: limit) {
            var payload = base
            payload["items"] = .array(encoded)
            payload["startIndex"] = .number(Double(startIndex))
            return try await queueStatus(payload, needsSession: false)
        }
        // Too large: load from the start item, then append the tail and insert the head before it.
        let head = Array(encoded[..<startIndex])
        let fromStart = Array(encoded[startIndex...])
        let first = try QueueChunker.chunks(fromStart, within: limit)[0]
        // Size the inserts before sending anything, so an oversized item fails with nothing sent.
        let appendLimit = try maxItemsPayload(for: ["type": "QUEUE_INSERT"], itemsKey: "items", needsSession: true)
        let tail = try QueueChunker.chunks(Array(fromStart[first.count...]), within: appendLimit)
        _ = try QueueChunker.chunks(head, within: appendLimit - 30)
        var payload = base
        payload["items"] = .array(first)
        payload["startIndex"] = 0
        var status = try await queueStatus(payload, needsSession: false)
        guard let anchor = status.currentItemId else {
            throw CastMediaError(code: .unexpectedReply, message: "QUEUE_LOAD status has no current item to insert around")
        }
        for chunk in tail {
            status = try await queueInsertEncoded(chunk, before: nil) ?? status
        }
        if !head.isEmpty {
            let insertLimit = try maxItemsPayload(for: ["type": "QUEUE_INSERT", "insertBefore": .number(Double(anchor))],
                                                  itemsKey: "items", needsSession: true)
            for chunk in try QueueChunker.chunks(head, within: insertLimit) {
                status = try await queueInsertEncoded(chunk, before: anchor) ?? status
            }
        }
        return status
    }

    /// Inserts items before an item, or at the end (QUEUE_INSERT). Split into several messages when over 64 KiB.
    @discardableResult
    public func queueInsert(_ items: [QueueItem], before itemId: Int? = nil, customData: CastCustomData? = nil)
        async throws(CastMediaError) -> MediaStatus
    {
        let encoded = try items.map { item throws(CastMediaError) in try Self.json(item) }
        var base: JSONValue = ["type": "QUEUE_INSERT"]
        base["insertBefore"] = itemId.map { .number(Double($0)) }
        base["customData"] = customData?.json
        let limit = try maxItemsPayload(for: base, itemsKey: "items", needsSession: true)
        var status: MediaStatus?
        for chunk in try QueueChunker.chunks(encoded, within: limit) {
            var payload = base
            payload["items"] = .array(chunk)
            status = try await queueStatus(payload, needsSession: true)
        }
        guard let status else {
            throw CastMediaError(code: .invalidRequest, message: "QUEUE_INSERT needs items", reason: .invalidParams)
        }
        return status
    }

    private func queueInsertEncoded(_ items: [JSONValue], before itemId: Int?) async throws(CastMediaError) -> MediaStatus? {
        var payload: JSONValue = ["type": "QUEUE_INSERT", "items": .array(items)]
        payload["insertBefore"] = itemId.map { .number(Double($0)) }
        return try await queueStatus(payload, needsSession: true)
    }

    /// Inserts one item and plays it at once (QUEUE_INSERT with `currentItemIndex` 0).
    @discardableResult
    public func queueInsertAndPlay(_ item: QueueItem, before itemId: Int? = nil, startTime: Double? = nil,
                                   customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload: JSONValue = ["type": "QUEUE_INSERT", "items": [try Self.json(item)], "currentItemIndex": 0]
        payload["insertBefore"] = itemId.map { .number(Double($0)) }
        payload["currentTime"] = startTime.map(JSONValue.number)
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Updates items in place (QUEUE_UPDATE `items`); each item needs its id.
    @discardableResult
    public func queueUpdate(_ items: [QueueItem], customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        guard items.allSatisfy({ $0.itemId != nil }) else {
            throw CastMediaError(code: .invalidRequest, message: "QUEUE_UPDATE items need their itemId", reason: .invalidParams)
        }
        var payload: JSONValue = ["type": "QUEUE_UPDATE", "items": .array(try items.map { item throws(CastMediaError) in try Self.json(item) })]
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Makes an item current (QUEUE_UPDATE `currentItemId`).
    @discardableResult
    public func queueJump(to itemId: Int, startTime: Double? = nil, customData: CastCustomData? = nil)
        async throws(CastMediaError) -> MediaStatus
    {
        var payload: JSONValue = ["type": "QUEUE_UPDATE", "currentItemId": .number(Double(itemId))]
        payload["currentTime"] = startTime.map(JSONValue.number)
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Plays the next item (QUEUE_UPDATE `jump: 1`, as Chrome does: not every receiver app knows QUEUE_NEXT).
    @discardableResult
    public func queueNext(customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        try await queueJump(by: 1, customData: customData)
    }

    /// Plays the previous item (QUEUE_UPDATE `jump: -1`).
    @discardableResult
    public func queuePrevious(customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        try await queueJump(by: -1, customData: customData)
    }

    /// Moves `offset` items forward or back (QUEUE_UPDATE `jump`).
    @discardableResult
    public func queueJump(by offset: Int, customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload: JSONValue = ["type": "QUEUE_UPDATE", "jump": .number(Double(offset))]
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Sets the repeat mode (QUEUE_UPDATE `repeatMode`).
    @discardableResult
    public func queueSetRepeatMode(_ mode: RepeatMode, customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload: JSONValue = ["type": "QUEUE_UPDATE", "repeatMode": .string(mode.rawValue)]
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Shuffles the queue (QUEUE_UPDATE `shuffle: true`).
    @discardableResult
    public func queueShuffle(customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload: JSONValue = ["type": "QUEUE_UPDATE", "shuffle": true]
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Removes items (QUEUE_REMOVE).
    @discardableResult
    public func queueRemove(_ itemIds: [Int], customData: CastCustomData? = nil) async throws(CastMediaError) -> MediaStatus {
        var payload: JSONValue = ["type": "QUEUE_REMOVE", "itemIds": Self.ids(itemIds)]
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// Moves items, in the given order, before an item or to the end (QUEUE_REORDER).
    @discardableResult
    public func queueReorder(_ itemIds: [Int], before itemId: Int? = nil, customData: CastCustomData? = nil)
        async throws(CastMediaError) -> MediaStatus
    {
        var payload: JSONValue = ["type": "QUEUE_REORDER", "itemIds": Self.ids(itemIds)]
        payload["insertBefore"] = itemId.map { .number(Double($0)) }
        payload["customData"] = customData?.json
        return try await queueStatus(payload, needsSession: true)
    }

    /// The ids of every item, in order (QUEUE_GET_ITEM_IDS).
    public func queueFetchItemIds() async throws(CastMediaError) -> [Int] {
        try await queueFetchItemIds(yieldingToReplacementsAfter: nil)
    }

    /// ``queueFetchItemIds()``; with `yieldingToReplacementsAfter`, not sent while a LOAD started since is in flight.
    package func queueFetchItemIds(yieldingToReplacementsAfter serial: Int?) async throws(CastMediaError) -> [Int] {
        var payload: JSONValue = ["type": "QUEUE_GET_ITEM_IDS"]
        let reply = try await exchange(&payload, needsSession: true, yieldingToReplacementsAfter: serial).reply
        guard reply.type == "QUEUE_ITEM_IDS", let ids = reply.json?["itemIds"]?.arrayValue else {
            throw CastMediaError(code: .unexpectedReply, message: "Expected QUEUE_ITEM_IDS, got \(reply.type ?? "no type")")
        }
        return ids.compactMap(\.intValue)
    }

    /// Items by id (QUEUE_GET_ITEMS), as many as the receiver returns.
    public func queueFetchItems(_ itemIds: [Int]) async throws(CastMediaError) -> [QueueItem] {
        try await queueFetchItems(itemIds, yieldingToReplacementsAfter: nil)
    }

    /// ``queueFetchItems(_:)``; with `yieldingToReplacementsAfter`, not sent while a LOAD started since is in flight.
    package func queueFetchItems(_ itemIds: [Int], yieldingToReplacementsAfter serial: Int?) async throws(CastMediaError) -> [QueueItem] {
        var payload: JSONValue = ["type": "QUEUE_GET_ITEMS", "itemIds": Self.ids(itemIds)]
        let reply = try await exchange(&payload, needsSession: true, yieldingToReplacementsAfter: serial).reply
        guard reply.type == "QUEUE_ITEMS", let items = QueueModelState.queueItems(in: reply) else {
            throw CastMediaError(code: .unexpectedReply, message: "Expected QUEUE_ITEMS, got \(reply.type ?? "no type")")
        }
        return items
    }

    // MARK: - Helpers

    static func ids(_ ids: [Int]) -> JSONValue { .array(ids.map { .number(Double($0)) }) }

    /// Sends a queue request and returns the status that answered it (or the latest one, when the
    /// receiver answered with a QUEUE_CHANGE).
    func queueStatus(_ payload: consuming JSONValue, needsSession: Bool) async throws(CastMediaError) -> MediaStatus {
        let (_, decoded) = try await exchange(&payload, needsSession: needsSession)
        if let message = decoded {
            guard let status = message.first else {
                throw CastMediaError(code: .noMediaSession, message: "The receiver answered \(payload["type"]?.stringValue ?? "") with no media session")
            }
            return status
        }
        guard let status else {
            throw CastMediaError(code: .noMediaSession, message: "No media status after \(payload["type"]?.stringValue ?? "")")
        }
        return status
    }

    /// How many bytes of serialized items fit in `base` (with `itemsKey` set) under the 64 KiB rule.
    func maxItemsPayload(for base: JSONValue, itemsKey: String, needsSession: Bool) throws(CastMediaError) -> Int {
        guard let context = connectedContext else {
            throw CastMediaError(code: .notConnected, message: "The media channel is not connected to a receiver app")
        }
        var empty = base
        empty[itemsKey] = []
        empty["requestId"] = .number(Double(Int32.max))
        if needsSession { empty["mediaSessionId"] = .number(Double(Int32.max)) }
        empty["startIndex"] = empty["startIndex"] ?? (base["type"] == "QUEUE_LOAD" ? 0 : nil)
        let baseSize = CastMessageSize.encodedSize(
            sourceId: context.senderId, destinationId: context.transportId, namespace: context.namespace.rawValue, json: empty)
        // The payload length varint can grow by up to 2 bytes as items are added.
        return CastMessageSize.limit - baseSize - 2
    }
}

/// Splits serialized items into runs that fit a byte budget (items joined by commas inside `[ ]`).
enum QueueChunker {
    static func size(_ item: JSONValue) -> Int { item.serializedData().count }

    static func fits(_ items: [JSONValue], within budget: Int) -> Bool {
        items.reduce(0) { $0 + size($1) } + max(0, items.count - 1) <= budget
    }

    static func chunks(_ items: [JSONValue], within budget: Int) throws(CastMediaError) -> [[JSONValue]] {
        var chunks: [[JSONValue]] = []
        var current: [JSONValue] = []
        var used = 0
        for item in items {
            let itemSize = size(item)
            guard itemSize <= budget else {
                throw CastMediaError(CastMessageTooLargeError(size: CastMessageSize.limit - budget + itemSize, request: "QUEUE item"))
            }
            let extra = current.isEmpty ? itemSize : itemSize + 1
            if used + extra > budget {
                chunks.append(current)
                current = [item]
                used = itemSize
            } else {
                current.append(item)
                used += extra
            }
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}
