import CastChannels
import CastMedia
import CastQueue
import CastTestSupport
import Testing
@testable import Castor

/// The awaited commands against the emulated receiver: what they send, and that every property of the
/// player shows the receiver's answer the moment the call returns (no waiting in between).
@Suite struct AwaitedCommandTests {
    /// Every property the player derives from the receiver agrees with its latest status.
    static func expectAgreement(_ player: CastPlayer, after command: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let status = player.mediaStatus
        #expect(player.shouldPlay == CastPlayer.isPlaying(player.playerState),
                "after \(command): shouldPlay \(player.shouldPlay), playerState \(player.playerState)", sourceLocation: sourceLocation)
        if let status {
            #expect(player.playbackSpeed == status.playbackRate, "after \(command): speed", sourceLocation: sourceLocation)
            #expect(player.currentItem?.id == (status.loadingItemId ?? status.currentItemId),
                    "after \(command): current item \(String(describing: player.currentItem))", sourceLocation: sourceLocation)
            #expect(player.activeTrackIds.sorted() == (status.activeTrackIds ?? []).sorted(), "after \(command): tracks",
                    sourceLocation: sourceLocation)
            if let mode = status.repeatMode ?? status.queueData?.repeatMode {
                #expect(player.repeatMode == CastRepeatMode(mode), "after \(command): repeat mode", sourceLocation: sourceLocation)
            }
        }
        #expect(player.items.map(\.id) == player.queue.itemIds, "after \(command): items", sourceLocation: sourceLocation)
    }

    @Test func loadingPausedSendsAutoplayFalseAndNeverPlays() async throws {
        let (cast, player, tv, _) = try await PlayerTests.session()
        let messages = player.media.messages   // every message the receiver sends on the media namespace, from now on
        try await player.loadItems(from: [Assets.movie(1), Assets.movie(2)], with: CastLoadOptions(index: 1, shouldPlay: false))
        Self.expectAgreement(player, after: "loadItems(shouldPlay: false)")
        #expect(player.playerState == .paused)
        #expect(!player.shouldPlay)
        // A GET_STATUS reply is a barrier: everything the LOAD caused was sent before it.
        let barrier = try await player.media.getStatus()
        #expect(barrier?.playerState == .paused)
        var states: [String] = []
        var replies = 0
        for await message in messages where message.type == "MEDIA_STATUS" {
            states += (message.json?["status"]?.arrayValue ?? []).compactMap { $0["playerState"]?.stringValue }
            if message.json?["requestId"]?.intValue ?? 0 != 0 { replies += 1 }
            if replies == 2 { break }   // QUEUE_LOAD's reply, then GET_STATUS's: everything in between is here
        }
        #expect(!states.isEmpty)
        #expect(!states.contains("PLAYING"), "the receiver reported \(states)")
        // The receiver holds the start item with autoplay false; the next one keeps autoplay true.
        // The queue model fetches the item ids after the load's status: wait for them, not just the reply.
        try await waitUntil("the queue's item ids") { player.queue.itemIds.count == 2 }
        let items = try await player.media.queueFetchItems(player.queue.itemIds)
        try #require(items.count == 2)
        #expect(items.map(\.autoplay) == [true, false])
        #expect(player.currentItem?.id == items[1].itemId)
        #expect(await tv.receiver.violations.isEmpty)
        await cast.endSession()
    }

    @Test func everyPropertyShowsTheReplyWhenTheCallReturns() async throws {
        let (cast, player, tv, _) = try await PlayerTests.session()
        try await player.loadItems(from: [Assets.movie(1), Assets.movie(2), Assets.movie(3)])
        Self.expectAgreement(player, after: "loadItems")
        #expect(player.shouldPlay && player.playerState == .playing)
        try await player.pause()
        Self.expectAgreement(player, after: "pause")
        #expect(player.playerState == .paused)
        try await player.play()
        Self.expectAgreement(player, after: "play")
        #expect(player.playerState == .playing)
        try await player.togglePlayPause()
        Self.expectAgreement(player, after: "togglePlayPause")
        #expect(player.playerState == .paused)
        try await player.seek(to: .seconds(120))
        Self.expectAgreement(player, after: "seek")
        #expect(try #require(player.time()) >= .seconds(120))
        try await player.skipForward()
        Self.expectAgreement(player, after: "skipForward")
        #expect(try #require(player.time()) >= .seconds(130))
        try await player.setPlaybackSpeed(1.5)
        Self.expectAgreement(player, after: "setPlaybackSpeed")
        try await player.setRepeatMode(.all)
        Self.expectAgreement(player, after: "setRepeatMode")
        try await player.advanceToNext()
        Self.expectAgreement(player, after: "advanceToNext")
        #expect(player.currentItem == player.items[1])
        try await player.returnToPreviousItem()
        Self.expectAgreement(player, after: "returnToPreviousItem")
        #expect(player.currentItem == player.items[0])
        try await player.appendItem(from: Assets.movie(4))
        Self.expectAgreement(player, after: "appendItem")
        #expect(player.items.count == 4)
        try await player.move(player.items[3], before: player.items[0])
        Self.expectAgreement(player, after: "move")
        try await player.remove(player.items[0])
        Self.expectAgreement(player, after: "remove")
        #expect(player.items.count == 3)
        let asset = try await player.items[2].fetch()
        #expect(asset?.metadata?.title == "Movie 3")
        try await player.stop()
        Self.expectAgreement(player, after: "stop")
        #expect(!player.isActive)
        #expect(await tv.receiver.violations.isEmpty)
        await cast.endSession()
    }

    @Test func navigationFollowsCastor() async throws {
        let (cast, player, _, _) = try await PlayerTests.session()
        try await player.loadItems(from: [Assets.movie(1), Assets.movie(2), Assets.movie(3)], with: CastLoadOptions(index: 1))
        #expect(player.currentItem == player.items[1])

        // Smart (the default): 30 s into an on-demand item, "previous" seeks to its start...
        try await player.seek(to: .seconds(30))
        #expect(player.canReturnToPrevious())
        try await player.returnToPrevious()
        #expect(player.currentItem == player.items[1])
        #expect(try #require(player.time()) < .seconds(30))
        // ... while the item navigation ignores the mode and changes items.
        try await player.seek(to: .seconds(30))
        try await player.returnToPreviousItem()
        #expect(player.currentItem == player.items[0])
        // At the first item, smart "previous" seeks to the start, item navigation has nowhere to go.
        #expect(!player.canReturnToPreviousItem())
        #expect(player.canReturnToPrevious())
        try await player.returnToPrevious()
        #expect(player.currentItem == player.items[0])
        await #expect(throws: CastError.self) { try await player.returnToPreviousItem() }

        // Immediate: "previous" always changes items.
        cast.configuration.navigationMode = .immediate
        try await player.advanceToNext()
        try await player.seek(to: .seconds(30))
        #expect(player.canReturnToPrevious())
        try await player.returnToPrevious()
        #expect(player.currentItem == player.items[0])
        #expect(!player.canReturnToPrevious())

        // Next is the same in both modes; repeat all wraps around both ends.
        try await player.advanceToNextItem()
        try await player.advanceToNext()
        #expect(player.currentItem == player.items[2])
        #expect(!player.canAdvanceToNext())
        await #expect(throws: CastError.self) { try await player.advanceToNext() }
        try await player.setRepeatMode(.all)
        #expect(player.canAdvanceToNext())
        try await player.advanceToNext()
        #expect(player.currentItem == player.items[0])
        try await player.returnToPrevious()
        #expect(player.currentItem == player.items[2])
        await cast.endSession()
    }

    @Test func fireAndForgetFormsHaveTheirOwnNames() async throws {
        let (cast, player, _, _) = try await PlayerTests.session()
        player.requestLoadItems(from: [Assets.movie(1), Assets.movie(2)], with: CastLoadOptions(shouldPlay: false))
        try await waitUntil("loaded, paused") { player.items.count == 2 && player.playerState == .paused }
        player.requestPlay()
        #expect(player.shouldPlay)   // optimistic: shows at once
        try await waitUntil("playing") { player.playerState == .playing }
        player.requestAdvanceToNext()
        #expect(player.currentItem == player.items[1])
        try await waitUntil("the receiver moved on") { player.mediaStatus?.currentItemId == player.items[1].id }
        player.requestSeek(to: .seconds(42))
        // Shows at once; the content plays on, so once the receiver has sought (it may already have),
        // the time is extrapolated a little past 42 s.
        #expect(player.time().map { (Duration.seconds(42)..<Duration.seconds(52)).contains($0) } == true)
        try await waitUntil("the receiver sought") { (player.mediaStatus?.currentTime ?? 0) >= 42 }
        let reversed = Array(player.items.reversed())
        player.items = reversed
        #expect(player.items == reversed)   // optimistic: shows at once
        try await waitUntil("the receiver reordered") { player.queue.itemIds == reversed.map(\.id) }
        player.items[0].requestFetch()
        try await waitUntil("fetched") { player.items[0].isFetched }
        player.requestStop()
        try await waitUntil("stopped") { !player.isActive }
        await cast.endSession()
    }
}
