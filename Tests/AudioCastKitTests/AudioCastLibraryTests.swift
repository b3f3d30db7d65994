import AudioCastKit
import CastIntents
import Foundation
import Testing
import CastTestSupport

/// Paths of the sample feeds and scratch library directories.
enum Samples {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func feed(_ name: String) -> String {
        packageRoot.appendingPathComponent("Examples/AudioCast/Feeds/\(name).xml").path
    }
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("audiocast-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}


@Suite("AudioCast library", .serialized)
struct AudioCastLibraryTests {
    @Test func subscribingSuggestsEveryEpisodeSortedByTitle() async throws {
        let library = try AudioCastLibrary(directory: try Samples.scratchDirectory())
        let first = try await library.subscribe(Samples.feed("swift-by-night"))
        #expect(first.isNew)
        #expect(first.show.id == "swift-by-night")
        #expect(first.show.episodes.count == 3)
        let second = try await library.subscribe("file://" + Samples.feed("field-recordings"))
        #expect(second.show.id == "field-recordings")
        let again = try await library.subscribe(Samples.feed("swift-by-night"))
        #expect(!again.isNew && again.newEpisodes.isEmpty)
        #expect(try library.shows().map(\.id) == ["swift-by-night", "field-recordings"])

        let titles = try await library.suggestions().map { $0.mediaItems.first?.title }
        #expect(titles == ["Async Sequences in Practice", "Building for Linux", "Harbour at Dawn", "Rain on a Tin Roof",
                           "Strict Concurrency Without Tears"])
        #expect(try await library.store.predictionMode(for: .podcastEpisode) == .onlyPredictSuggestedIntents)
        let suggestion = try #require(try await library.suggestions().first)
        #expect(suggestion.mediaContainer?.identifier == "swift-by-night")
        #expect(suggestion.playShuffled == false && suggestion.repeatMode == PlaybackRepeatMode.none && suggestion.resumePlayback == false)
    }

    @Test func playingDonatesWithTheShowAsGroupAndUnsubscribingDeletesTheGroup() async throws {
        let library = try AudioCastLibrary(directory: try Samples.scratchDirectory())
        _ = try await library.subscribe(Samples.feed("swift-by-night"))
        _ = try await library.subscribe(Samples.feed("field-recordings"))
        let device = try await PlaybackDevice.embedded()
        let outcome = try await library.play(.item("Building for Linux"), on: device.cast)
        #expect(outcome.code == "handleInApp")
        let episodeId = try #require(outcome.startEpisode)
        #expect(outcome.queue == [episodeId])
        let status = try #require(await device.receiverMediaStatus())
        #expect(status["playerState"] == "PLAYING")
        #expect(status["media"]?["contentId"]?.stringValue == "https://media.swiftbynight.example.org/sbn-001.mp3")
        #expect(status["media"]?["metadata"]?["albumName"] == "Swift by Night")

        // Donated, grouped by the show; the heard episode is no longer suggested nor predicted.
        let history = try await library.history()
        #expect(history.map(\.identifier) == [outcome.donation])
        #expect(history.first?.groupIdentifier == "swift-by-night")
        #expect(history.first?.intent.mediaItems.map(\.identifier) == [episodeId])
        #expect(!(try await library.suggestions()).contains { $0.primaryItem?.identifier == episodeId })
        #expect(!(try await library.store.predictions(for: .podcastEpisode)).contains { $0.primaryItem?.identifier == episodeId })
        #expect(try await library.suggestions().count == 4)
        let (_, episodes) = try await library.episodes(of: "Swift by Night")
        #expect(episodes.filter(\.heard).map(\.episode.id) == [episodeId])

        // Play the top suggestion and a whole other show; then replay a donated intent.
        let suggested = try await library.play(.suggested, on: device.cast)
        #expect(suggested.startEpisode != nil && suggested.startEpisode != episodeId)
        let show = try await library.play(.item("field-recordings"), options: PlayOptions(repeatMode: .all), on: device.cast)
        #expect(show.queue.count == 2 && show.repeatMode == "all")
        #expect(await device.receiverMediaStatus()?["repeatMode"] == "REPEAT_ALL")
        let replay = try await library.play(.intent(try #require(outcome.donation)), on: device.cast)
        #expect(replay.startEpisode == episodeId)
        #expect(try await library.history().count == 4)

        // Unsubscribing deletes exactly the show's donations.
        let removed = try await library.unsubscribe("swift-by-night")
        #expect(removed.deletedDonations.count == 3)
        let remaining = try await library.history()
        #expect(remaining.count == 1 && remaining.allSatisfy { $0.groupIdentifier == "field-recordings" })
        #expect(try await library.suggestions().allSatisfy { $0.mediaContainer?.identifier == "field-recordings" })
        await device.close()
    }

    @Test func shuffleRepeatResumeAndSpeedReachTheReceiver() async throws {
        let library = try AudioCastLibrary(directory: try Samples.scratchDirectory())
        _ = try await library.subscribe(Samples.feed("swift-by-night"))
        let episodes = try library.shows()[0].episodes
        try library.recordPosition(episode: episodes[1].id, seconds: 600)
        let device = try await PlaybackDevice.embedded()
        // Resume episode 2 at its stored position, at 1.5×, repeating it.
        let resumed = try await library.play(
            .item(episodes[1].id), options: PlayOptions(repeatMode: .one, resume: true, speed: 1.5), on: device.cast)
        #expect(resumed.startSeconds == 600)
        let status = try #require(await device.receiverMediaStatus())
        #expect((status["currentTime"]?.doubleValue ?? 0) >= 600)
        #expect(status["repeatMode"] == "REPEAT_SINGLE")
        #expect(status["playbackRate"] == 1.5)

        // A shuffled show: reproducible with a seeded generator.
        var first = SeededGenerator(seed: 3)
        let shuffled = try await library.play(.item("swift-by-night"), options: PlayOptions(shuffle: true), on: device.cast, using: &first)
        #expect(Set(shuffled.queue) == Set(episodes.map(\.id)))
        var second = SeededGenerator(seed: 3)
        let again = try await library.play(.item("swift-by-night"), options: PlayOptions(shuffle: true), on: device.cast, using: &second)
        #expect(again.queue == shuffled.queue)
        await device.close()
    }

    @Test func refreshTurnsNewEpisodesIntoSuggestions() async throws {
        let directory = try Samples.scratchDirectory()
        let feed = directory.appendingPathComponent("feed.xml")
        let original = try String(contentsOfFile: Samples.feed("field-recordings"), encoding: .utf8)
        try original.write(to: feed, atomically: true, encoding: .utf8)
        let library = try AudioCastLibrary(directory: directory.appendingPathComponent("library"))
        _ = try await library.subscribe(feed.path)
        #expect(try await library.suggestions().count == 2)

        let newItem = """
            <item><title>A Night Train</title><guid>https://fieldrecordings.example.net/episodes/night-train</guid>
            <enclosure url="https://cdn.fieldrecordings.example.net/night-train.m4a" length="1" type="audio/mp4"/></item>
            </channel>
            """
        try original.replacingOccurrences(of: "</channel>", with: newItem).write(to: feed, atomically: true, encoding: .utf8)
        let results = try await library.refresh()
        #expect(results.count == 1 && results[0].error == nil)
        #expect(results[0].newEpisodes.map(\.title) == ["A Night Train"])
        // Sorted by title: the new episode comes first.
        #expect(try await library.suggestions().map { $0.mediaItems.first?.title } == ["A Night Train", "Harbour at Dawn", "Rain on a Tin Roof"])

        // A feed that became unreadable keeps its show and is reported.
        try "not xml".write(to: feed, atomically: true, encoding: .utf8)
        let broken = try await library.refresh()
        #expect(broken[0].error != nil)
        #expect(try library.shows()[0].episodes.count == 3)
    }

    @Test func showContainerAndBadInput() async throws {
        let library = try AudioCastLibrary(directory: try Samples.scratchDirectory())
        _ = try await library.subscribe(Samples.feed("cast-notes"))
        let episodes = try library.shows()[0].episodes
        #expect(episodes.count == 2)   // the item without an enclosure is skipped
        let display = try await library.showContainer(episodes[1].id)
        #expect(display.container.identifier == "cast-notes")
        #expect(display.highlightedItemIdentifier == episodes[1].id)
        #expect(display.contents.map(\.type) == [.videoPodcastEpisode, .videoPodcastEpisode])

        await #expect { try await library.subscribe("/nonexistent/feed.xml") } throws: { ($0 as? AudioCastError)?.code == .feedUnreadable }
        await #expect { try await library.subscribe("gopher://example.org/feed") } throws: { ($0 as? AudioCastError)?.code == .feedUnreadable }
        let notAFeed = try Samples.scratchDirectory().appendingPathComponent("x.xml")
        try "<html><body/></html>".write(to: notAFeed, atomically: true, encoding: .utf8)
        await #expect { try await library.subscribe(notAFeed.path) } throws: { ($0 as? AudioCastError)?.code == .invalidFeed }
        await #expect { try await library.unsubscribe("nope") } throws: { ($0 as? AudioCastError)?.code == .unknownShow }
        await #expect { try await library.showContainer("nope") } throws: { ($0 as? AudioCastError)?.code == .unknownIntent }
        #expect(try library.shows().count == 1)   // nothing lost

        let device = try await PlaybackDevice.embedded()
        await #expect { try await library.play(.item("nope"), on: device.cast) } throws: { ($0 as? AudioCastError)?.code == .unknownEpisode }
        await #expect { try await library.play(.intent("nope"), on: device.cast) } throws: { ($0 as? AudioCastError)?.code == .unknownIntent }
        await device.close()

        // A damaged library file is reported, not overwritten.
        let directory = try Samples.scratchDirectory()
        try "{".write(to: directory.appendingPathComponent("library.json"), atomically: true, encoding: .utf8)
        let damaged = try AudioCastLibrary(directory: directory)
        #expect { try damaged.shows() } throws: { ($0 as? AudioCastError)?.code == .libraryCorrupt }
        await #expect { try await damaged.subscribe(Samples.feed("cast-notes")) } throws: { ($0 as? AudioCastError)?.code == .libraryCorrupt }
        #expect(try String(contentsOf: directory.appendingPathComponent("library.json"), encoding: .utf8) == "{")
    }
}
