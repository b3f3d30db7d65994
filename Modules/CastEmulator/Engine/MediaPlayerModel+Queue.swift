import CastJSON

extension MediaPlayerModel {
    mutating func queueInsert(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        guard let rawItems = try request.array("items"), !rawItems.isEmpty else { throw .invalidParams }
        var parsed: [[String: JSONValue]] = []
        for item in rawItems { parsed.append(try MediaQueueItem.parseNew(item)) }
        let insertBefore = try request.int("insertBefore")
        let currentIndex = try request.int("currentItemIndex")
        let currentItemId = try request.int("currentItemId")
        let currentTime = try request.number("currentTime")
        if let currentIndex, !parsed.indices.contains(currentIndex) { throw .invalidParams }
        if let currentItemId, currentIndex == nil, session.index(of: currentItemId) == nil { throw .invalidParams }

        let items = assignIds(parsed)
        let position = insertBefore.flatMap { session.index(of: $0) } ?? session.items.count
        session.items.insert(contentsOf: items, at: position)
        session.rebase(at: now)
        session.preloadedItemId = nil
        self.session = session
        var change: [String: JSONValue] = [:]
        if let insertBefore, session.index(of: insertBefore) != nil { change["insertBefore"] = JSONValue(insertBefore) }
        let queueChanged = AppOutput.broadcast(
            queueChange(requestId: requestId, type: "INSERT", itemIds: items.map(\.itemId), extra: change))
        let target = currentIndex.map { items[$0].itemId } ?? currentItemId
        if let target, let index = session.index(of: target) {
            return move(to: index, at: now, requestId: requestId, position: currentTime) + [queueChanged]
        }
        return [statusBroadcast(requestId: requestId, at: now), queueChanged]
    }

    mutating func queueUpdate(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        let updates = try request.array("items")
        let currentItemId = try request.int("currentItemId")
        let jump = try request.int("jump")
        let repeatMode = try request.string("repeatMode").map { (mode: String) throws(RequestFailure) in try RepeatMode(parsing: mode) }
        let shuffle = try request.bool("shuffle")
        let currentTime = try request.number("currentTime")
        var updatedIds: [Int] = []
        for update in updates ?? [] {
            guard var fields = update.objectValue, let id = fields["itemId"]?.intValue, let index = session.index(of: id)
            else { throw .invalidParams }
            if let media = fields["media"] {
                guard let object = media.objectValue else { throw .invalidParams }
                fields["media"] = .object(try MediaQueueItem.normalizedMedia(object))
            } else {
                fields["media"] = .object(session.items[index].media)
            }
            if fields["autoplay"] == nil { fields["autoplay"] = true }
            session.items[index].fields = fields
            updatedIds.append(id)
        }
        if let repeatMode { session.repeatMode = repeatMode }
        var outputs: [AppOutput] = []
        if shuffle == true {
            self.shuffle(&session)
            outputs.append(.broadcast(queueChange(requestId: requestId, type: "UPDATE", itemIds: session.items.map(\.itemId))))
        }
        var target: Int?
        if let currentItemId {
            guard let index = session.index(of: currentItemId) else { throw .invalidParams }
            target = index
        } else if let jump, jump != 0 {
            guard let index = session.index(jumping: jump) else { throw .invalidRequest("END_OF_QUEUE") }
            target = index
        }
        if !updatedIds.isEmpty {
            outputs.insert(.broadcast(queueChange(requestId: requestId, type: "ITEMS_CHANGE", itemIds: updatedIds)), at: 0)
        }
        session.rebase(at: now)
        self.session = session
        if let target {
            return move(to: target, at: now, requestId: requestId, position: currentTime) + outputs
        }
        if let currentTime {
            var seeked = session
            seeked.position = max(0, min(currentTime, seeked.currentItem.duration ?? currentTime))
            seeked.preloadedItemId = nil
            self.session = seeked
        }
        return [statusBroadcast(requestId: requestId, at: now)] + outputs
    }

    mutating func queueRemove(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        guard let ids = try request.intArray("itemIds"), !ids.isEmpty else { throw .invalidParams }
        let currentItemId = try request.int("currentItemId")
        let currentTime = try request.number("currentTime")
        let removing = Set(ids)
        let removed = session.items.map(\.itemId).filter { removing.contains($0) }
        if let currentItemId, removing.contains(currentItemId) || session.index(of: currentItemId) == nil {
            throw .invalidParams
        }
        guard !removed.isEmpty else {
            return [statusBroadcast(requestId: requestId, at: now)]
        }
        let change = AppOutput.broadcast(queueChange(requestId: requestId, type: "REMOVE", itemIds: removed))
        let currentRemoved = removing.contains(session.currentItemId)
        // Survivors that preceded the current item: the first survivor after it lands at that index.
        let survivorsBefore = session.items[..<session.currentIndex].count { !removing.contains($0.itemId) }
        session.rebase(at: now)
        let ended = session
        session.items.removeAll { removing.contains($0.itemId) }
        session.preloadedItemId = nil
        if session.items.isEmpty {
            // "If the remaining queue is empty, the media session will be terminated."
            self.session = nil
            return [.broadcast(mediaStatus(requestId: requestId, entries: [idleEntry(ended, reason: "INTERRUPTED", at: now)])), change]
        }
        self.session = session
        if let currentItemId, let index = session.index(of: currentItemId) {
            return move(to: index, at: now, requestId: requestId, position: currentTime) + [change]
        }
        if currentRemoved {
            // The first surviving item after the removed current one plays next; past the end,
            // the queue wraps under REPEAT_ALL and otherwise stays on its last item.
            var next = survivorsBefore
            if next >= session.items.count { next = session.repeatMode.wraps ? 0 : session.items.count - 1 }
            return move(to: next, at: now, requestId: requestId, position: currentTime) + [change]
        }
        return [statusBroadcast(requestId: requestId, at: now), change]
    }

    mutating func queueReorder(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        guard let ids = try request.intArray("itemIds"), !ids.isEmpty, Set(ids).count == ids.count,
            ids.allSatisfy({ session.index(of: $0) != nil })
        else { throw .invalidParams }
        let insertBefore = try request.int("insertBefore")
        let currentItemId = try request.int("currentItemId")
        let currentTime = try request.number("currentTime")
        if let insertBefore, ids.contains(insertBefore) || session.index(of: insertBefore) == nil { throw .invalidParams }
        if let currentItemId, session.index(of: currentItemId) == nil { throw .invalidParams }
        let moving = Set(ids)
        let moved = ids.compactMap { id in session.index(of: id).map { session.items[$0] } }
        var remaining = session.items.filter { !moving.contains($0.itemId) }
        let position = insertBefore.flatMap { id in remaining.firstIndex { $0.itemId == id } } ?? remaining.count
        remaining.insert(contentsOf: moved, at: position)
        session.items = remaining
        session.rebase(at: now)
        session.preloadedItemId = nil
        self.session = session
        let change = AppOutput.broadcast(queueChange(
            requestId: requestId, type: "UPDATE", itemIds: session.items.map(\.itemId),
            extra: ["reorderItemIds": .array(ids.map { JSONValue($0) })]))
        if let currentItemId, let index = session.index(of: currentItemId), currentItemId != session.currentItemId {
            return move(to: index, at: now, requestId: requestId, position: currentTime) + [change]
        }
        return [statusBroadcast(requestId: requestId, at: now), change]
    }
}
