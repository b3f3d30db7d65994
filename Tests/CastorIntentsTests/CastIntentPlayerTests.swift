import CastIntents
import CastJSON
import CastQueue
import Castor
import CastorIntents
import Foundation
import Testing
import CastTestSupport

@Suite("Playing intents on a Cast device", .serialized)
struct CastIntentPlayerTests {
    @Test func aShowPlaysInOrderWithRepeatAndSpeedOnTheReceiver() async throws {
        let device = try await Device.start()
        let podcast = try Podcast(episodes: 4)
        let store = InMemoryIntentStore()
        let intent = try PlayMediaIntent(mediaContainer: podcast.show, repeatMode: .all, playbackSpeed: 1.5)
        let response = await podcast.resolver(store: store).handlePlay(intent)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)

        #expect(playback.code == .handleInApp)
        #expect(playback.action == .loadedQueue)
        #expect(playback.queue == podcast.episodes)
        #expect(playback.startIndex == 0)
        #expect(playback.failure == nil)
        #expect(try await device.queueContentIds() == podcast.episodes.map { Podcast.url($0.identifier) })
        let status = try #require(await device.status)
        #expect(status["playerState"] == "PLAYING")
        #expect(status["repeatMode"] == "REPEAT_ALL")
        #expect(status["playbackRate"] == 1.5)
        #expect(status["media"]?["contentId"]?.stringValue == Podcast.url("show-ep1"))
        await device.stop()
    }

    @Test func shuffleIsDeterministicUnderASeededGenerator() async throws {
        let podcast = try Podcast(episodes: 8)
        let request = PlayRequest(
            intent: try PlayMediaIntent(mediaContainer: podcast.show, playShuffled: true), container: podcast.show,
            items: podcast.episodes, playShuffled: true, mediaKind: .audio)
        var first = SeededGenerator(seed: 7)
        var second = SeededGenerator(seed: 7)
        let order = CastIntentPlayer.queueOrder(for: request, using: &first)
        #expect(order == CastIntentPlayer.queueOrder(for: request, using: &second))
        #expect(order.items != podcast.episodes)
        #expect(Set(order.items) == Set(podcast.episodes) && order.items.count == 8)
        #expect(order.startIndex == 0)

        // The receiver gets exactly that order.
        let device = try await Device.start()
        var generator = SeededGenerator(seed: 7)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets)
            .play(.handleInApp(request), for: request.intent, using: &generator)
        #expect(playback.queue == order.items)
        #expect(try await device.queueContentIds() == order.items.map { Podcast.url($0.identifier) })
        #expect(await device.status?["repeatMode"] == "REPEAT_OFF")
        await device.stop()
    }

    @Test func shufflingAResumedRequestKeepsItsStartItemFirst() throws {
        let podcast = try Podcast(episodes: 6)
        let request = PlayRequest(
            intent: try PlayMediaIntent(mediaContainer: podcast.show), container: podcast.show, items: podcast.episodes,
            startIndex: 3, playShuffled: true, resumePlayback: true, mediaKind: .audio)
        var generator = SeededGenerator(seed: 99)
        let order = CastIntentPlayer.queueOrder(for: request, using: &generator)
        #expect(order.items.first == podcast.episodes[3])
        #expect(order.startIndex == 0)
        #expect(Set(order.items) == Set(podcast.episodes))
        // Without shuffle, the order and start index are the request's.
        var unshuffled = request
        unshuffled.playShuffled = false
        let plain = CastIntentPlayer.queueOrder(for: unshuffled, using: &generator)
        #expect(plain.items == podcast.episodes && plain.startIndex == 3)
    }

    @Test func resumingStartsAtTheDonatedEpisodeAndItsStoredPosition() async throws {
        let device = try await Device.start()
        var podcast = try Podcast(episodes: 4)
        podcast.positions = ["show-ep3": .seconds(120)]
        let store = InMemoryIntentStore()
        try await store.donate(Interaction(
            intent: PlayMediaIntent(mediaItems: [podcast.episodes[2]], mediaContainer: podcast.show),
            groupIdentifier: podcast.show.identifier))
        let intent = try PlayMediaIntent(mediaContainer: podcast.show, repeatMode: .one, resumePlayback: true)
        let response = await podcast.resolver(store: store).handlePlay(intent)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)

        #expect(playback.code == .handleInApp)
        #expect(playback.startItem == podcast.episodes[2])
        #expect(playback.startTime == .seconds(120))
        #expect(try await device.queueContentIds() == podcast.episodes.map { Podcast.url($0.identifier) })
        let status = try #require(await device.status)
        #expect(status["media"]?["contentId"]?.stringValue == Podcast.url("show-ep3"))
        #expect(status["currentTime"] == 120)   // the receiver's clock is manual: exact
        #expect(status["repeatMode"] == "REPEAT_SINGLE")
        await device.stop()
    }

    @Test func anEmptyResumeIntentContinuesTheDevicesQueue() async throws {
        let device = try await Device.start()
        let podcast = try Podcast(episodes: 3)
        let store = InMemoryIntentStore()
        let bridge = CastIntentPlayer(cast: device.cast, assets: podcast.assets)
        let first = try PlayMediaIntent(mediaContainer: podcast.show)
        _ = await bridge.play(await podcast.resolver(store: store).handlePlay(first), for: first)
        let player = try #require(device.cast.player)
        try await player.setCurrentItem(player.items[1])
        try await player.pause()
        #expect(await device.status?["playerState"] == "PAUSED")

        // "Resume" with nothing donated: the handler fails, the device's own queue continues.
        let resume = try PlayMediaIntent(repeatMode: .all, resumePlayback: true, playbackSpeed: 2)
        let response = await podcast.resolver(store: store).handlePlay(resume)
        #expect(response.code == .failure)
        let playback = await bridge.play(response, for: resume)
        #expect(playback.code == .handleInApp)
        #expect(playback.action == .continuedQueue)
        #expect(playback.queue.isEmpty)
        let status = try #require(await device.status)
        #expect(status["playerState"] == "PLAYING")
        #expect(status["media"]?["contentId"]?.stringValue == Podcast.url("show-ep2"))
        #expect(status["repeatMode"] == "REPEAT_ALL")
        #expect(status["playbackRate"] == 2)
        #expect(try await device.queueContentIds().count == 3)
        await device.stop()
    }

    @Test func videoContinuesInAppAndPlays() async throws {
        let device = try await Device.start()
        let podcast = try Podcast(episodes: 1)
        let film = try MediaItem(identifier: "film", title: "A Film", type: .movie)
        let intent = try PlayMediaIntent(mediaItems: [film], playbackSpeed: 4)
        let response = await podcast.resolver(store: InMemoryIntentStore(), extra: [film]).handlePlay(intent)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)
        #expect(playback.code == .continueInApp)
        #expect(playback.playbackSpeed == 2)   // clamped to what receivers accept
        let status = try #require(await device.status)
        #expect(status["media"]?["contentId"]?.stringValue == Podcast.url("film"))
        #expect(status["media"]?["contentType"] == "video/mp4")
        #expect(status["playbackRate"] == 2)
        await device.stop()
    }

    @Test func showingAContainerPlaysNothing() async throws {
        let device = try await Device.start()
        let podcast = try Podcast(episodes: 2)
        let intent = try PlayMediaIntent(mediaItems: [podcast.episodes[1]])
        let response = await podcast.resolver(store: InMemoryIntentStore()).handleShow(intent)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)
        #expect(playback.code == .showContainer)
        #expect(playback.action == .displayedContainer)
        #expect(playback.display?.container == podcast.show)
        #expect(playback.display?.highlightedItemIdentifier == "show-ep2")
        #expect(await device.status == nil)
        #expect(try #require(device.cast.player).items.isEmpty)
        await device.stop()
    }
}

@Suite("Playing intents: failures", .serialized)
struct CastIntentPlayerFailureTests {
    @Test func anUnknownItemIsTheHandlersFailureAndPlaysNothing() async throws {
        let device = try await Device.start()
        let podcast = try Podcast(episodes: 2)
        let ghost = try MediaItem(identifier: "ghost", type: .podcastEpisode)
        let intent = try PlayMediaIntent(mediaItems: [ghost])
        let response = await podcast.resolver(store: InMemoryIntentStore()).handlePlay(intent)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)
        #expect(playback.code == .failure)
        #expect(playback.failure?.code == .itemNotFound)
        #expect(playback.action == .none)
        #expect(await device.status == nil)
        await device.stop()
    }

    @Test func itemsWithoutAnAssetAreLeftOutOrFailTheRequest() async throws {
        let device = try await Device.start()
        var podcast = try Podcast(episodes: 3)
        podcast.missingAssets = ["show-ep1"]
        let store = InMemoryIntentStore()
        let intent = try PlayMediaIntent(mediaContainer: podcast.show)
        let response = await podcast.resolver(store: store).handlePlay(intent)
        let bridge = CastIntentPlayer(cast: device.cast, assets: podcast.assets)
        let partial = await bridge.play(response, for: intent)
        #expect(partial.code == .handleInApp)
        #expect(partial.unavailableItemIdentifiers == ["show-ep1"])
        #expect(partial.queue == Array(podcast.episodes.dropFirst()))
        #expect(try await device.queueContentIds() == [Podcast.url("show-ep2"), Podcast.url("show-ep3")])

        podcast.missingAssets = Set(podcast.episodes.map(\.identifier))
        let none = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)
        #expect(none.code == .failure)
        #expect(none.failure?.code == .assetUnavailable)
        #expect(none.unavailableItemIdentifiers.count == 3)
        // The device's queue is untouched.
        #expect(try await device.queueContentIds() == [Podcast.url("show-ep2"), Podcast.url("show-ep3")])

        struct Offline: Error {}
        let throwing = CastIntentPlayer(cast: device.cast, assets: MediaAssetMapping { _ in throw Offline() })
        let failed = await throwing.play(response, for: intent)
        #expect(failed.failure?.code == .assetUnavailable)
        await device.stop()
    }

    @Test func anEmptyResolutionFails() async throws {
        let device = try await Device.start()
        let podcast = try Podcast(episodes: 1)
        let intent = try PlayMediaIntent(mediaContainer: podcast.show)
        let empty = PlayRequest(intent: intent, container: podcast.show, items: [], mediaKind: .audio)
        let playback = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(.handleInApp(empty), for: intent)
        #expect(playback.code == .failure)
        #expect(playback.failure?.code == .nothingToPlay)
        #expect(await device.status == nil)
        await device.stop()
    }

    @Test func aReceiverThatIsGoneIsDeviceUnavailable() async throws {
        let device = try await Device.start(reconnect: .never)
        let podcast = try Podcast(episodes: 2)
        let intent = try PlayMediaIntent(mediaContainer: podcast.show)
        let response = await podcast.resolver(store: InMemoryIntentStore()).handlePlay(intent)
        let player = try #require(device.cast.player)
        await device.receiver.stop()
        try await waitUntil("the session ended") { device.cast.player == nil }

        // Through the façade: no session any more.
        let viaCast = await CastIntentPlayer(cast: device.cast, assets: podcast.assets).play(response, for: intent)
        #expect(viaCast.code == .failure)
        #expect(viaCast.failure?.code == .deviceUnavailable)
        #expect(viaCast.castError == nil)

        // Through the player of the ended session: the load fails with Castor's error.
        let viaPlayer = await CastIntentPlayer(player: player, assets: podcast.assets).play(response, for: intent)
        #expect(viaPlayer.code == .failure)
        #expect(viaPlayer.failure?.code == .deviceUnavailable)
        #expect(viaPlayer.castError != nil)
        await device.cast.endSession()
    }
}
