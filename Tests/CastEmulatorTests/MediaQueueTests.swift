import CastJSON
import Testing
@testable import CastEmulator

@Suite("Default Media Receiver: queue commands")
struct MediaQueueTests {
    func ids(_ entry: JSONValue?) -> [Int] { entry?["items"]?.arrayValue?.compactMap { $0["itemId"]?.intValue } ?? [] }
    func queueIds(_ h: PlayerHarness) -> [Int] { h.player.session?.items.map(\.itemId) ?? [] }

    @Test func queueLoadShowsOnlyPreviousCurrentAndNext() throws {
        var h = PlayerHarness()
        let out = h.request(["type": "QUEUE_LOAD", "items": items(5), "startIndex": 2, "repeatMode": "REPEAT_OFF"])
        let entry = try #require(out.lastEntry)
        #expect(entry["currentItemId"] == 3 && ids(entry) == [2, 3, 4])
        #expect(entry["supportedMediaCommands"] == JSONValue(274_447 | 64 | 128))
        #expect(entry["media"]?["contentId"] == "http://h/2.mp4")
        // At the first item there is no previous one, and the QUEUE_PREV bit goes away.
        let first = try #require(h.command(["type": "QUEUE_UPDATE", "currentItemId": 1]).lastEntry)
        #expect(ids(first) == [1, 2] && first["supportedMediaCommands"] == JSONValue(274_447 | 64))
        let last = try #require(h.command(["type": "QUEUE_UPDATE", "currentItemId": 5]).lastEntry)
        #expect(ids(last) == [4, 5] && last["supportedMediaCommands"] == JSONValue(274_447 | 128))
    }

    @Test func loadWithQueueData() throws {
        var h = PlayerHarness()
        let out = h.request(["type": "LOAD", "media": media("http://h/0.mp4"),
                             "queueData": ["name": "Mix", "queueType": "PLAYLIST", "items": items(3), "startIndex": 1, "repeatMode": "REPEAT_ALL"]])
        let entry = try #require(out.lastEntry)
        #expect(entry["currentItemId"] == 2 && entry["repeatMode"] == "REPEAT_ALL")
        #expect(entry["queueData"] == ["name": "Mix", "queueType": "PLAYLIST", "repeatMode": "REPEAT_ALL"])
        // REPEAT_ALL wraps: both directions exist even at the ends.
        let wrapped = try #require(h.command(["type": "QUEUE_UPDATE", "jump": 2]).lastEntry)
        #expect(wrapped["currentItemId"] == 1)
        #expect(wrapped["supportedMediaCommands"] == JSONValue(274_447 | 64 | 128))
    }

    @Test func itemIdsKeepIncreasingAcrossLoads() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(3)])
        let entry = try #require(h.request(["type": "QUEUE_LOAD", "items": items(2)]).lastEntry)
        #expect(entry["mediaSessionId"] == 2 && entry["currentItemId"] == 4 && ids(entry) == [4, 5])
    }

    @Test func queueInsertAppendBeforeAndMakeCurrent() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(2)])
        var out = h.command(["type": "QUEUE_INSERT", "requestId": 20, "items": items(1, prefix: "http://x/")])
        #expect(queueIds(h) == [1, 2, 3])
        #expect(out.messages[0]["type"] == "MEDIA_STATUS" && out.messages[0]["requestId"] == 20)
        #expect(out.first(type: "QUEUE_CHANGE") == ["type": "QUEUE_CHANGE", "requestId": 20, "changeType": "INSERT", "itemIds": [3]])
        out = h.command(["type": "QUEUE_INSERT", "items": items(2, prefix: "http://y/"), "insertBefore": 2])
        #expect(queueIds(h) == [1, 4, 5, 2, 3])
        #expect(out.first(type: "QUEUE_CHANGE")?["insertBefore"] == 2)
        #expect(out.lastEntry?["currentItemId"] == 1)
        out = h.command(["type": "QUEUE_INSERT", "items": items(2, prefix: "http://z/"), "insertBefore": 1, "currentItemIndex": 1])
        #expect(queueIds(h) == [6, 7, 1, 4, 5, 2, 3])
        #expect(out.lastEntry?["currentItemId"] == 7 && out.lastEntry?["media"]?["contentId"] == "http://z/1.mp4")
        // Unknown insertBefore appends.
        h.command(["type": "QUEUE_INSERT", "items": items(1), "insertBefore": 999])
        #expect(queueIds(h).last == 8)
    }

    @Test(arguments: [
        ["type": "QUEUE_INSERT"],
        ["type": "QUEUE_INSERT", "items": []],
        ["type": "QUEUE_INSERT", "items": [["itemId": 9, "media": ["contentId": "a"]]]],
        ["type": "QUEUE_INSERT", "items": [["media": ["contentId": "a"]]], "currentItemIndex": 3],
        ["type": "QUEUE_INSERT", "items": [["media": ["contentId": "a"]]], "currentItemId": 99],
        ["type": "QUEUE_UPDATE", "items": [["itemId": 99, "autoplay": false]]],
        ["type": "QUEUE_UPDATE", "currentItemId": 99],
        ["type": "QUEUE_UPDATE", "repeatMode": "NEVER"],
        ["type": "QUEUE_UPDATE", "shuffle": "yes"],
        ["type": "QUEUE_REMOVE"],
        ["type": "QUEUE_REMOVE", "itemIds": []],
        ["type": "QUEUE_REMOVE", "itemIds": [1], "currentItemId": 1],
        ["type": "QUEUE_REORDER", "itemIds": [1, 1]],
        ["type": "QUEUE_REORDER", "itemIds": [99]],
        ["type": "QUEUE_REORDER", "itemIds": [1], "insertBefore": 1],
        ["type": "QUEUE_GET_ITEMS"],
        ["type": "QUEUE_GET_ITEM_RANGE", "itemId": 1, "nextCount": 1, "prevCount": 1],
        ["type": "QUEUE_GET_ITEM_RANGE", "itemId": 1],
        ["type": "QUEUE_GET_ITEM_RANGE", "itemId": 77, "nextCount": 1],
    ] as [JSONValue])
    func malformedQueueRequestsAreInvalidParamsAndChangeNothing(_ request: JSONValue) {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(3)])
        let before = h.player.session
        var json = request
        json["requestId"] = 66
        #expect(h.command(json) == [.reply(["type": "INVALID_REQUEST", "requestId": 66, "reason": "INVALID_PARAMS"])])
        #expect(h.player.session == before)
    }

    @Test func queueUpdateJumpRepeatItemsAndShuffle() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(4)])
        var entry = try #require(h.command(["type": "QUEUE_UPDATE", "jump": 1]).lastEntry)
        #expect(entry["currentItemId"] == 2 && entry["playerState"] == "PLAYING" && entry["currentTime"] == 0)
        #expect(h.command(["type": "QUEUE_UPDATE", "jump": -2, "requestId": 30])
            == [.reply(["type": "INVALID_REQUEST", "requestId": 30, "reason": "END_OF_QUEUE"])])
        entry = try #require(h.command(["type": "QUEUE_UPDATE", "repeatMode": "REPEAT_ALL"]).lastEntry)
        #expect(entry["repeatMode"] == "REPEAT_ALL")
        entry = try #require(h.command(["type": "QUEUE_UPDATE", "jump": -2]).lastEntry)
        #expect(entry["currentItemId"] == 4)
        let out = h.command(["type": "QUEUE_UPDATE", "items": [["itemId": 3, "media": media("http://new/3.mp4"), "customData": ["x": 1]]]])
        #expect(out.first(type: "QUEUE_CHANGE")?["changeType"] == "ITEMS_CHANGE")
        #expect(out.first(type: "QUEUE_CHANGE")?["itemIds"] == [3])
        #expect(h.player.session?.items[2].fields["customData"] == ["x": 1])
        #expect(h.player.session?.items[2].url == "http://new/3.mp4")
        let shuffled = h.command(["type": "QUEUE_UPDATE", "shuffle": true])
        let change = try #require(shuffled.first(type: "QUEUE_CHANGE"))
        #expect(change["changeType"] == "UPDATE")
        #expect(Set(change["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? []) == [1, 2, 3, 4])
        #expect(shuffled.lastEntry?["currentItemId"] == 4)
        entry = try #require(h.command(["type": "QUEUE_UPDATE", "currentItemId": 2, "currentTime": 4]).lastEntry)
        #expect(entry["currentItemId"] == 2 && entry["currentTime"] == 4)
    }

    @Test func queueNextAndPrev() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(2)])
        #expect(h.command(["type": "QUEUE_NEXT"]).lastEntry?["currentItemId"] == 2)
        #expect(h.command(["type": "QUEUE_NEXT", "requestId": 40]).replies.first?["reason"] == "END_OF_QUEUE")
        #expect(h.command(["type": "QUEUE_PREV"]).lastEntry?["currentItemId"] == 1)
    }

    @Test func queueRemove() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(5), "startIndex": 1])
        var out = h.command(["type": "QUEUE_REMOVE", "itemIds": [4, 42]])
        #expect(queueIds(h) == [1, 2, 3, 5])
        #expect(out.first(type: "QUEUE_CHANGE") == ["type": "QUEUE_CHANGE", "requestId": JSONValue(h.nextRequestId - 1), "changeType": "REMOVE", "itemIds": [4]])
        #expect(out.lastEntry?["currentItemId"] == 2)
        // Removing the current item moves to the first survivor after it.
        out = h.command(["type": "QUEUE_REMOVE", "itemIds": [1, 2, 3]])
        #expect(queueIds(h) == [5] && out.lastEntry?["currentItemId"] == 5)
        // Removing the last item ends the media session.
        out = h.command(["type": "QUEUE_REMOVE", "itemIds": [5]])
        #expect(out.lastEntry?["playerState"] == "IDLE")
        #expect(h.player.session == nil)
    }

    @Test func queueReorder() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(5)])
        var out = h.command(["type": "QUEUE_REORDER", "itemIds": [5, 4], "insertBefore": 2])
        #expect(queueIds(h) == [1, 5, 4, 2, 3])
        let change = try #require(out.first(type: "QUEUE_CHANGE"))
        #expect(change["changeType"] == "UPDATE" && change["itemIds"] == [1, 5, 4, 2, 3] && change["reorderItemIds"] == [5, 4])
        out = h.command(["type": "QUEUE_REORDER", "itemIds": [1]])
        #expect(queueIds(h) == [5, 4, 2, 3, 1])
        #expect(out.lastEntry?["currentItemId"] == 1)
        out = h.command(["type": "QUEUE_REORDER", "itemIds": [3, 2, 1, 4, 5], "currentItemId": 3])
        #expect(queueIds(h) == [3, 2, 1, 4, 5] && out.lastEntry?["currentItemId"] == 3)
    }

    @Test func queueGetItemIdsItemsAndRange() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(4)])
        let idsReply = h.command(["type": "QUEUE_GET_ITEM_IDS", "requestId": 90])
        #expect(idsReply == [.reply(["type": "QUEUE_ITEM_IDS", "requestId": 90, "itemIds": [1, 2, 3, 4]])])
        let itemsReply = try #require(h.command(["type": "QUEUE_GET_ITEMS", "itemIds": [3, 1, 99]]).replies.first)
        #expect(itemsReply["type"] == "QUEUE_ITEMS")
        #expect(itemsReply["items"]?.arrayValue?.compactMap { $0["itemId"]?.intValue } == [3, 1])
        #expect(itemsReply["items"]?[0]?["media"]?["contentId"] == "http://h/2.mp4")
        #expect(h.command(["type": "QUEUE_GET_ITEM_RANGE", "itemId": 2, "nextCount": 5]).replies.first?["itemIds"] == [3, 4])
        #expect(h.command(["type": "QUEUE_GET_ITEM_RANGE", "itemId": 3, "prevCount": 1]).replies.first?["itemIds"] == [2])
    }
}

@Suite("Default Media Receiver: the simulated playback clock")
struct MediaClockTests {
    @Test func itemsEndAndTheNextAutoplays() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(3, duration: 10)])
        #expect(h.player.nextDeadline == .seconds(10))
        #expect(h.advance(by: .seconds(9)).isEmpty)
        let out = h.advance(by: .seconds(1))
        #expect(out.count == 1)
        #expect(out.messages[0]["requestId"] == 0)
        #expect(out.lastEntry?["currentItemId"] == 2 && out.lastEntry?["currentTime"] == 0 && out.lastEntry?["playerState"] == "PLAYING")
        #expect(out.lastEntry?["mediaSessionId"] == 1)
    }

    @Test func endOfQueueFinishesWithoutMediaOrItems() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(2, duration: 10)])
        let out = h.advance(by: .seconds(25))
        #expect(out.count == 2)
        let finished = try #require(out.lastEntry)
        #expect(finished["playerState"] == "IDLE" && finished["idleReason"] == "FINISHED" && finished["currentItemId"] == 2)
        #expect(finished["media"] == nil && finished["items"] == nil)
        #expect(out.messages[1]["requestId"] == 0)
        #expect(h.player.session == nil && h.player.nextDeadline == nil)
        #expect(h.request(["type": "GET_STATUS"]).lastEntry == nil)
    }

    @Test func playbackRateShortensTheItem() {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 30)])
        h.command(["type": "SET_PLAYBACK_RATE", "playbackRate": 2])
        #expect(h.advance(by: .seconds(14)).isEmpty)
        #expect(h.advance(by: .seconds(1)).lastEntry?["idleReason"] == "FINISHED")
    }

    @Test func pausedItemsDoNotEnd() {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 10), "autoplay": false])
        #expect(h.player.nextDeadline == nil)
        #expect(h.advance(by: .seconds(100)).isEmpty)
    }

    @Test func liveAndOpenEndedMediaNeverEnd() {
        var h = PlayerHarness()
        var live = media("http://h/live.m3u8", duration: 10)
        live["streamType"] = "LIVE"
        h.request(["type": "LOAD", "media": live])
        #expect(h.player.nextDeadline == nil)
        h.request(["type": "LOAD", "media": media("http://h/unknown.mp4")])
        #expect(h.advance(by: .seconds(1000)).isEmpty)
        #expect(h.status?["currentTime"] == 1000)
    }

    @Test func repeatSingleReplaysTheSameItem() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(2, duration: 10), "repeatMode": "REPEAT_SINGLE"])
        let out = h.advance(by: .seconds(35))
        #expect(out.count == 3)
        #expect(out.messages.allSatisfy { $0["status"]?[0]?["currentItemId"] == 1 })
        #expect(h.status?["currentTime"] == 5)
    }

    /// A FuzzReceiverRequests finding (a campaign on 2026-11-24): items of no length (duration 0, or
    /// -0) under a repeat mode were finished thousands of times within one instant, each with a
    /// broadcast status; one fuzz input took 24 to 51 s. An item is now current for at least
    /// `minimumItemTime` before it ends by itself: 9 s give 36 replays, not 10 000.
    @Test func itemsWithNoLengthDoNotFloodTheSenders() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(2, duration: 0), "repeatMode": "REPEAT_SINGLE"])
        let out = h.advance(by: .seconds(9))
        #expect(out.count == 36, "\(out.count) statuses in 9 s")
        #expect(out.messages.allSatisfy { $0["status"]?[0]?["currentItemId"] == 1 })
        // The same under REPEAT_ALL, and a finite queue still finishes at once at its end.
        var all = PlayerHarness()
        all.request(["type": "QUEUE_LOAD", "items": items(3, duration: 0), "repeatMode": "REPEAT_ALL"])
        #expect(all.advance(by: .seconds(9)).count == 36)
        var off = PlayerHarness()
        off.request(["type": "QUEUE_LOAD", "items": items(3, duration: 0), "repeatMode": "REPEAT_OFF"])
        _ = off.advance(by: .seconds(9))
        #expect(off.player.session == nil, "the queue played to its end")
    }

    @Test func repeatAllWraps() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(2, duration: 10), "repeatMode": "REPEAT_ALL"])
        let out = h.advance(by: .seconds(30))
        #expect(out.compactMap { $0 == .broadcast(.null) ? nil : $0 }.messages.compactMap { $0["status"]?[0]?["currentItemId"]?.intValue } == [2, 1, 2])
    }

    @Test func repeatAllAndShuffleReshufflesAtTheEnd() throws {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": items(4, duration: 10), "repeatMode": "REPEAT_ALL_AND_SHUFFLE"])
        let out = h.advance(by: .seconds(40))
        let change = try #require(out.first(type: "QUEUE_CHANGE"))
        #expect(change["changeType"] == "UPDATE")
        let order = change["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? []
        #expect(Set(order) == [1, 2, 3, 4] && order.first != 4)
        #expect(out.lastEntry?["currentItemId"]?.intValue == order.first)
    }

    @Test func nonAutoplayItemWaitsPaused() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": [["media": media("http://h/a.mp4", duration: 10)],
                                                    ["media": media("http://h/b.mp4", duration: 10), "autoplay": false]]])
        let out = h.advance(by: .seconds(50))
        #expect(out.count == 1)
        #expect(out.lastEntry?["currentItemId"] == 2 && out.lastEntry?["playerState"] == "PAUSED")
    }

    @Test func preloadHappensOnceBeforeTheEnd() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": [["media": media("http://h/a.mp4", duration: 20)],
                                                    ["media": media("http://h/b.mp4", duration: 20), "preloadTime": 5]]])
        #expect(h.player.nextDeadline == .seconds(15))
        let out = h.advance(by: .seconds(16))
        #expect(out.count == 1)
        #expect(out.lastEntry?["preloadedItemId"] == 2 && out.lastEntry?["currentItemId"] == 1)
        #expect(h.advance(by: .seconds(1)).isEmpty)
        let next = h.advance(by: .seconds(3))
        #expect(next.lastEntry?["currentItemId"] == 2 && next.lastEntry?["preloadedItemId"] == nil)
    }

    @Test func playbackDurationAndStartTimeBoundTheItem() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": [["media": media("http://h/a.mp4", duration: 100), "startTime": 30, "playbackDuration": 5]]])
        #expect(h.status?["currentTime"] == 30)
        #expect(h.advance(by: .seconds(5)).lastEntry?["idleReason"] == "FINISHED")
    }

    @Test func advancingIntoBrokenContentFails() {
        var h = PlayerHarness()
        h.request(["type": "QUEUE_LOAD", "items": [["media": media("http://h/a.mp4", duration: 10)], ["media": media("http://h/broken.mp4", duration: 10)]]])
        let out = h.advance(by: .seconds(10))
        #expect(out == [.broadcast(["type": "LOAD_FAILED", "requestId": 0, "detailedErrorCode": 104, "itemId": 2]),
                        .broadcast(["type": "MEDIA_STATUS", "requestId": 0, "status": []])])
        #expect(h.player.session == nil)
    }

    @Test func seekToTheEndFinishesOnTheNextAdvance() {
        var h = PlayerHarness()
        h.request(["type": "LOAD", "media": media("http://h/a.mp4", duration: 60)])
        // An item plays at least `minimumItemTime` (250 ms) before it ends by itself.
        _ = h.advance(by: .seconds(1))
        h.command(["type": "SEEK", "currentTime": 600])
        #expect(h.status?["currentTime"] == 60)
        #expect(h.advance(by: .zero).lastEntry?["idleReason"] == "FINISHED")
    }
}
