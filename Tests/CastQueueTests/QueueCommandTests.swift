import CastMediaTestSupport
import CastChannels
import CastJSON
import CastMedia
import CastMediaMetadata
import CastTestSupport
import Testing

@testable import CastQueue

@Suite("Queue commands and model against a scripted receiver")
struct QueueCommandTests {
    static func item(_ name: String, padding: Int = 0) -> QueueItem {
        var builder = QueueItemBuilder(media: MediaInformation(contentId: "http://127.0.0.1/\(name).mp3", contentType: "audio/mpeg"))
        builder.preloadTime = 10
        if padding > 0 {
            builder.media?.metadata = CastMetadata(title: name + String(repeating: "·", count: padding), metadataType: .musicTrack)
        }
        return builder.build()
    }

    func contentIds(_ harness: MediaHarness) -> [String] {
        harness.receiver.state.withLock { $0.items.compactMap { $0.json["media"]?["contentId"]?.stringValue } }
    }

    @Test func everyCommand() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let media = harness.media
        let queue = CastMediaQueue(media: media)
        harness.watch(queue.changes)

        let loaded = try await media.queueLoad(["a", "b", "c"].map { Self.item($0) }, startIndex: 1, repeatMode: .all, startTime: 5)
        #expect(loaded.currentItemId == 2)
        #expect(loaded.currentTime == 5)
        let load = try #require(harness.receiver.requests(ofType: "QUEUE_LOAD").first)
        #expect(load["startIndex"] == 1 && load["repeatMode"] == "REPEAT_ALL")
        #expect(load["items"]?[0]?["preloadTime"] == 10)
        #expect(load["items"]?[0]?["itemId"] == nil)
        try await waitUntil("the model loads the ids") { queue.itemIds == [1, 2, 3] }
        #expect(queue.currentItemId == 2)

        try await media.queueInsert([Self.item("d"), Self.item("e")], before: 2)
        try await waitUntil("the insert reaches the model") { queue.itemIds == [1, 4, 5, 2, 3] }

        let playing = try await media.queueInsertAndPlay(Self.item("f"), startTime: 3)
        #expect(playing.currentItemId == 6)
        #expect(harness.receiver.requests(ofType: "QUEUE_INSERT").last?["currentItemIndex"] == 0)

        #expect(try await media.queueJump(to: 4).currentItemId == 4)
        #expect(try await media.queueNext().currentItemId == 5)
        #expect(try await media.queuePrevious().currentItemId == 4)
        let jumps = harness.receiver.requests(ofType: "QUEUE_UPDATE").compactMap { $0["jump"]?.intValue }
        #expect(jumps == [1, -1])
        #expect(try await media.queueSetRepeatMode(.single).repeatMode == .single)

        var updated = try #require(try await media.queueFetchItems([5]).first)
        #expect(updated.media?.contentId == "http://127.0.0.1/e.mp3")
        updated.customData = ["liked": true]
        try await media.queueUpdate([updated])
        #expect(try await media.queueFetchItems([5]).first?.customData == ["liked": true])

        try await media.queueRemove([1, 3])
        try await waitUntil("the removal reaches the model") { queue.itemIds == [4, 5, 2, 6] }
        try await media.queueReorder([6, 2], before: 4)
        try await waitUntil("the reorder reaches the model") { queue.itemIds == [6, 2, 4, 5] }
        try await media.queueShuffle()
        try await waitUntil("the shuffle reaches the model") { queue.itemIds == [5, 4, 2, 6] }
        #expect(try await media.queueFetchItemIds() == [5, 4, 2, 6])
        #expect(queue.itemIds == harness.receiver.itemIds)

        // Errors are typed like media errors.
        await #expect(throws: CastMediaError.self) { try await media.queueUpdate([Self.item("no id")]) }
        do {
            try await media.queueSetRepeatMode(.off)
            try await media.queueJump(by: 10)
            Issue.record("jumped past the end")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason == .endOfQueue)
        }
    }

    @Test func modelFetchesItemsLazilyInBatches() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let queue = CastMediaQueue(media: harness.media, cacheCapacity: 40)
        harness.watch(queue.changes)
        try await harness.media.queueLoad((0..<50).map { Self.item("t\($0)") })
        try await waitUntil("the ids arrive") { queue.itemCount == 50 }
        var changes = queue.changes.makeAsyncIterator()
        #expect(queue.item(at: 25) == nil)
        var loaded: [Int] = []
        while loaded.isEmpty, let change = await changes.next() {
            if case .itemsLoaded(let ids) = change { loaded = ids }
        }
        #expect(loaded == Array(26...45))
        #expect(queue.item(at: 25)?.media?.contentId == "http://127.0.0.1/t25.mp3")
        let fetches = harness.receiver.requests(ofType: "QUEUE_GET_ITEMS")
        #expect(fetches.count == 1)
        #expect(fetches.allSatisfy { ($0["itemIds"]?.arrayValue?.count ?? 0) <= 20 })
    }

    @Test func otherSendersEditsReachTheModel() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let queue = CastMediaQueue(media: harness.media)
        harness.watch(queue.changes)
        try await harness.media.queueLoad(["a", "b"].map { Self.item($0) })
        try await waitUntil("the ids arrive") { queue.itemIds == [1, 2] }
        // Another sender removes item 1: the receiver broadcasts the change.
        harness.receiver.state.withLock { $0.items.removeAll { $0.id == 1 } }
        await harness.receiver.send(["type": "QUEUE_CHANGE", "changeType": "REMOVE", "itemIds": [1]],
                                    namespace: ScriptedReceiver.media, to: "*", from: ScriptedReceiver.transportId)
        try await waitUntil("the removal reaches the model") { queue.itemIds == [2] }
    }

    @Test func longQueueIsSplitUnder64KiB() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let names = (0..<120).map { "long\($0)" }
        let items = names.map { Self.item($0, padding: 1500) }
        let status = try await harness.media.queueLoad(items, startIndex: 50)
        let loads = harness.receiver.requests(ofType: "QUEUE_LOAD")
        let inserts = harness.receiver.requests(ofType: "QUEUE_INSERT")
        #expect(loads.count == 1)
        #expect(inserts.count >= 2)
        for request in loads + inserts {
            #expect(request.serializedData().count < 65_536)
        }
        // The start item plays, and the queue is exactly the one asked for.
        #expect(contentIds(harness)[50] == "http://127.0.0.1/long50.mp3")
        #expect(contentIds(harness) == names.map { "http://127.0.0.1/\($0).mp3" })
        let current = harness.receiver.state.withLock { $0.currentItemId }
        #expect(status.currentItemId == current)
        #expect(harness.receiver.state.withLock { state in state.items.first { $0.id == current }?.json["media"]?["contentId"] } == "http://127.0.0.1/long50.mp3")
    }

    @Test func singleOversizedItemIsRefusedBeforeSending() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        do {
            try await harness.media.queueLoad([Self.item("a"), Self.item("huge", padding: 40_000)], startIndex: 0)
            Issue.record("an oversized item was sent")
        } catch {
            #expect(error.code == .messageTooLarge)
            #expect((error.messageSize ?? 0) > 65_536)
        }
        #expect(harness.receiver.requests.withLock { $0.isEmpty })
    }

    @Test func setItemsSendsTheMinimalEdits() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let queue = CastMediaQueue(media: harness.media)
        harness.watch(queue.changes)
        try await harness.media.queueLoad(["a", "b", "c", "d"].map { Self.item($0) })
        try await waitUntil("the ids arrive") { queue.itemIds == [1, 2, 3, 4] }

        // Same order: nothing is sent.
        let before = harness.receiver.requests.withLock { $0.count }
        #expect(try await queue.setItems([.existing(1), .existing(2), .existing(3), .existing(4)]).isEmpty)
        #expect(harness.receiver.requests.withLock { $0.count } == before)

        let plan = try await queue.setItems([.existing(3), .new(Self.item("x")), .existing(1), .new(Self.item("y"))])
        #expect(plan.removals == [2, 4])
        #expect(plan.reorder == [3, 1])
        #expect(plan.messageCount == 4)
        #expect(contentIds(harness) == ["c", "x", "a", "y"].map { "http://127.0.0.1/\($0).mp3" })
        try await waitUntil("the model follows") { queue.itemIds == harness.receiver.itemIds }
        #expect(harness.receiver.requests(ofType: "QUEUE_REMOVE").count == 1)
        #expect(harness.receiver.requests(ofType: "QUEUE_REORDER").count == 1)
        #expect(harness.receiver.requests(ofType: "QUEUE_INSERT").count == 2)
    }

    /// The queue model's background fetches never name a session that a LOAD in flight is replacing
    /// (the receiver would refuse them with INVALID_PLAYER_STATE); a caller's own fetch still goes out.
    @Test func backgroundFetchesYieldToALoadInFlight() async throws {
        let harness = try await MediaHarness.make()
        defer { Task { await harness.close() } }
        let media = harness.media
        try await media.queueLoad(["a", "b"].map { Self.item($0) })
        let before = harness.receiver.requests(ofType: "QUEUE_GET_ITEM_IDS").count

        // The status the model would fetch for was applied before this LOAD started.
        let serial = media.replacementsStarted
        harness.receiver.silentTypes.withLock { _ = $0.insert("LOAD") }
        let load = Task { try await media.load(MediaInformation(contentId: "http://127.0.0.1/announce.mp3", contentType: "audio/mpeg")) }
        defer { load.cancel() }
        try await waitUntil("the LOAD reaches the receiver") { !harness.receiver.requests(ofType: "LOAD").isEmpty }

        await #expect(throws: CastMediaError.self) { try await media.queueFetchItemIds(yieldingToReplacementsAfter: serial) }
        await #expect(throws: CastMediaError.self) { try await media.queueFetchItems([1], yieldingToReplacementsAfter: serial) }
        #expect(harness.receiver.requests(ofType: "QUEUE_GET_ITEM_IDS").count == before)
        #expect(harness.receiver.requests(ofType: "QUEUE_GET_ITEMS").isEmpty)
        #expect(try await media.queueFetchItemIds() == [1, 2])
        // A fetch for a status applied after the LOAD started (the LOAD's own reply) does not yield to it.
        #expect(try await media.queueFetchItemIds(yieldingToReplacementsAfter: media.replacementsStarted) == [1, 2])
    }
}
