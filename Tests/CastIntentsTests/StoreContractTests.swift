import CastIntents
import Foundation
import Testing

/// The behaviour every ``CastIntentStore`` must have; run against both implementations.
@Suite("Store contract")
struct StoreContractTests {
    @Test(arguments: StoreKind.allCases)
    func donateAndQueryMostRecent(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        #expect(try await store.interactionCount() == 0)
        #expect(try await store.mostRecentInteractions().isEmpty)
        let a = try Fixture.interaction("a", episode: 1, at: 100)
        let b = try Fixture.interaction("b", episode: 2, at: 300)
        let c = try Fixture.interaction("c", episode: 3, at: 200)
        let d = try Fixture.interaction("d", episode: 4, at: 300)  // same date as b, donated later
        for interaction in [a, b, c, d] { try await store.donate(interaction) }
        #expect(try await store.interactionCount() == 4)
        #expect(try await store.mostRecentInteractions() == [d, b, c, a])
        #expect(try await store.mostRecentInteractions(limit: 2) == [d, b])
        #expect(try await store.mostRecentInteractions(limit: 0) == [])
        #expect(try await store.interaction(identifier: "c") == c)
        #expect(try await store.interaction(identifier: "zzz") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func storedValuesRoundTripExactly(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let intent = try PlayMediaIntent(
            mediaItems: [Fixture.episode(1), MediaItem(identifier: "future", title: "ünïcødé 🎙", type: MediaItemType(rawValue: "hologram"))],
            mediaContainer: Fixture.show(1), playShuffled: true, repeatMode: PlaybackRepeatMode(rawValue: "everything"),
            resumePlayback: true, playbackSpeed: 1.1)
        let interaction = try Interaction(
            intent: intent, date: Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7), identifier: "exact",
            groupIdentifier: "group/with spaces")
        try await store.donate(interaction)
        #expect(try await store.interaction(identifier: "exact") == interaction)
        #expect(try await store.mostRecentInteractions() == [interaction])
    }

    @Test(arguments: StoreKind.allCases)
    func duplicateAndInvalidDonationsAreRejected(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let first = try Fixture.interaction("same", episode: 1, at: 1)
        try await store.donate(first)
        let again = try Fixture.interaction("same", episode: 2, at: 2)
        #expect(await castIntentsError { try await store.donate(again) }?.code == .duplicateInteraction)
        let empty = try Interaction(intent: PlayMediaIntent(), identifier: "empty")
        #expect(await castIntentsError { try await store.donate(empty) }?.code == .emptyIntent)
        let nan = try Interaction(intent: Fixture.playEpisode(1), date: Date(timeIntervalSinceReferenceDate: .nan))
        #expect(await castIntentsError { try await store.donate(nan) }?.code == .invalidDate)
        #expect(try await store.mostRecentInteractions() == [first])
    }

    @Test(arguments: StoreKind.allCases)
    func invalidQueryArgumentsAreTypedErrors(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        #expect(await castIntentsError { _ = try await store.mostRecentInteractions(limit: -1) }?.code == .invalidLimit)
        #expect(await castIntentsError { _ = try await store.interactions(groupIdentifier: "g", limit: -5) }?.code == .invalidLimit)
        #expect(await castIntentsError { _ = try await store.mostFrequentMediaItems(ofType: nil, limit: -1) }?.code == .invalidLimit)
        #expect(await castIntentsError { _ = try await store.predictions(for: .song, limit: -1) }?.code == .invalidLimit)
        #expect(await castIntentsError { _ = try await store.interaction(identifier: "") }?.code == .emptyIdentifier)
        #expect(await castIntentsError { _ = try await store.deleteInteractions(groupIdentifier: "") }?.code == .emptyIdentifier)
        #expect(await castIntentsError { _ = try await store.deleteInteractions(identifiers: ["ok", ""]) }?.code == .emptyIdentifier)
        #expect(await castIntentsError { _ = try await store.interactions(containerIdentifier: "", limit: nil) }?.code == .emptyIdentifier)
        #expect(
            await castIntentsError { try await store.setPredictionMode(.default, for: MediaItemType(rawValue: "bad type")) }?.code
                == .invalidMediaItemType)
        #expect(
            await castIntentsError { try await store.setPredictionMode(PredictionMode(rawValue: ""), for: .song) }?.code
                == .invalidPredictionMode)
        #expect(
            await castIntentsError { _ = try await store.predictions(for: MediaItemType(rawValue: "")) }?.code
                == .invalidMediaItemType)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteByGroup(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let donations = try [
            Fixture.interaction("1a", episode: 1, show: 1, at: 10),
            Fixture.interaction("2a", episode: 1, show: 2, at: 20),
            Fixture.interaction("1b", episode: 2, show: 1, at: 5),
            Fixture.interaction("loose", episode: 3, show: 1, at: 30).withoutGroup(),
        ]
        for donation in donations { try await store.donate(donation) }
        #expect(try await store.interactions(groupIdentifier: "show-1", limit: nil).map(\.identifier) == ["1a", "1b"])
        #expect(try await store.deleteInteractions(groupIdentifier: "show-1") == ["1a", "1b"])
        #expect(try await store.deleteInteractions(groupIdentifier: "show-1") == [])
        #expect(try await store.deleteInteractions(groupIdentifier: "unknown") == [])
        #expect(try await store.mostRecentInteractions().map(\.identifier) == ["loose", "2a"])
    }

    @Test(arguments: StoreKind.allCases)
    func deleteByIdentifiersAndAll(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        for index in 0..<1_200 {
            try await store.donate(Fixture.interaction("i\(index)", episode: index % 5, at: Double(index)))
        }
        // More identifiers than one SQL statement binds, with duplicates and unknown ones.
        let doomed = (0..<1_200).filter { $0 % 2 == 0 }.map { "i\($0)" }.reversed() + ["i0", "nope"]
        let deleted = try await store.deleteInteractions(identifiers: Array(doomed))
        #expect(deleted == (0..<1_200).filter { $0 % 2 == 0 }.map { "i\($0)" })
        #expect(try await store.interactionCount() == 600)
        #expect(try await store.deleteInteractions(identifiers: []) == [])
        #expect(try await store.deleteInteractions(identifiers: ["i0"]) == [])
        let rest = try await store.deleteAllInteractions()
        #expect(rest == (0..<1_200).filter { $0 % 2 == 1 }.map { "i\($0)" })
        #expect(try await store.interactionCount() == 0)
        #expect(try await store.deleteAllInteractions() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func interactionsForAContainer(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let viaContainer = try Interaction(
            intent: PlayMediaIntent(mediaContainer: Fixture.show(1)), date: Date(timeIntervalSinceReferenceDate: 1),
            identifier: "container")
        let viaItem = try Interaction(
            intent: PlayMediaIntent(mediaItems: [Fixture.episode(4, show: 1)]), date: Date(timeIntervalSinceReferenceDate: 2),
            identifier: "item")
        let other = try Fixture.interaction("other", episode: 1, show: 2, at: 3)
        // The explicit container wins over the item's own container reference.
        let explicit = try Interaction(
            intent: PlayMediaIntent(mediaItems: [Fixture.episode(9, show: 1)], mediaContainer: Fixture.show(2)),
            date: Date(timeIntervalSinceReferenceDate: 4), identifier: "explicit")
        for interaction in [viaContainer, viaItem, other, explicit] { try await store.donate(interaction) }
        #expect(try await store.interactions(containerIdentifier: "show-1", limit: nil).map(\.identifier) == ["item", "container"])
        #expect(try await store.interactions(containerIdentifier: "show-2", limit: 1).map(\.identifier) == ["explicit"])
        #expect(try await store.interactions(containerIdentifier: "show-9", limit: nil).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func mostFrequentMediaItems(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        // episode 1: 3 plays; episode 2: 2 plays (latest at 50); episode 3: 2 plays (latest at 60);
        // a movie: 4 plays.
        let plays: [(String, Int, Double)] = [
            ("p1", 1, 10), ("p2", 2, 50), ("p3", 1, 20), ("p4", 3, 60), ("p5", 2, 15), ("p6", 3, 5), ("p7", 1, 1),
        ]
        for (identifier, episode, at) in plays {
            try await store.donate(Fixture.interaction(identifier, episode: episode, at: at))
        }
        let movie = try MediaItem(identifier: "movie-1", title: "A Film", type: .movie)
        for index in 0..<4 {
            try await store.donate(
                Interaction(
                    intent: PlayMediaIntent(mediaItems: [movie]), date: Date(timeIntervalSinceReferenceDate: Double(index)),
                    identifier: "m\(index)"))
        }
        let episodes = try await store.mostFrequentMediaItems(ofType: .podcastEpisode, limit: nil)
        #expect(episodes.map(\.mediaItem.identifier) == ["episode-1-1", "episode-1-3", "episode-1-2"])
        #expect(episodes.map(\.donationCount) == [3, 2, 2])
        #expect(episodes.map(\.latestInteraction.identifier) == ["p3", "p4", "p2"])
        let all = try await store.mostFrequentMediaItems(ofType: nil, limit: 2)
        #expect(all.map(\.mediaItem) == [movie, try Fixture.episode(1)])
        #expect(try await store.mostFrequentMediaItems(ofType: .song, limit: nil).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func suggestionsAreOrderedAndValidated(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        #expect(try await store.suggestedMediaIntents().isEmpty)
        let suggestions = try [3, 1, 2].map { try Fixture.playEpisode($0) }
        try await store.setSuggestedMediaIntents(suggestions)
        #expect(try await store.suggestedMediaIntents() == suggestions)

        #expect(
            await castIntentsError { try await store.setSuggestedMediaIntents([suggestions[0], suggestions[0]]) }?.code
                == .duplicateSuggestion)
        #expect(
            await castIntentsError { try await store.setSuggestedMediaIntents([suggestions[0], PlayMediaIntent()]) }?.code
                == .emptyIntent)
        let tooMany = try (0...CastIntentStoreLimits.maximumSuggestionCount).map { try Fixture.playEpisode($0) }
        #expect(await castIntentsError { try await store.setSuggestedMediaIntents(tooMany) }?.code == .tooManySuggestions)
        #expect(try await store.suggestedMediaIntents() == suggestions, "a rejected list keeps the previous one")

        let maximum = Array(tooMany.dropLast())
        try await store.setSuggestedMediaIntents(maximum)
        #expect(try await store.suggestedMediaIntents() == maximum)
        try await store.setSuggestedMediaIntents([])
        #expect(try await store.suggestedMediaIntents().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func predictionModesDefaultAndPersistPerType(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        #expect(try await store.predictionMode(for: .podcastEpisode) == .default)
        try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .podcastEpisode)
        #expect(try await store.predictionMode(for: .podcastEpisode) == .onlyPredictSuggestedIntents)
        #expect(try await store.predictionMode(for: .song) == .default)
        try await store.setPredictionMode(.default, for: .podcastEpisode)
        #expect(try await store.predictionMode(for: .podcastEpisode) == .default)
        let future = PredictionMode(rawValue: "onlyFavourites")
        try await store.setPredictionMode(future, for: .song)
        #expect(try await store.predictionMode(for: .song) == future)
    }

    @Test(arguments: StoreKind.allCases)
    func predictionsFollowTheMode(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        // History: episode 1 heard three times, episode 2 twice, episode 5 once; a song once.
        var at = 0.0
        for (episode, times) in [(1, 3), (2, 2), (5, 1)] {
            for play in 0..<times {
                at += 1
                try await store.donate(Fixture.interaction("e\(episode)-\(play)", episode: episode, at: at))
            }
        }
        let song = try MediaItem(identifier: "song-1", title: "Song", type: .song)
        try await store.donate(Interaction(intent: PlayMediaIntent(mediaItems: [song]), identifier: "song"))
        // New episodes 7 and 8 are suggested, and episode 2 is suggested again; a show is suggested too.
        let suggestions = try [
            Fixture.playEpisode(8), Fixture.playEpisode(2), PlayMediaIntent(mediaContainer: Fixture.show(4)),
            Fixture.playEpisode(7),
        ]
        try await store.setSuggestedMediaIntents(suggestions)

        // Default mode: suggestions of the type first, then the history by frequency without repeats.
        let defaultPredictions = try await store.predictions(for: .podcastEpisode)
        #expect(
            defaultPredictions.compactMap(\.primaryItem?.identifier)
                == ["episode-1-8", "episode-1-2", "episode-1-7", "episode-1-1", "episode-1-5"])
        #expect(defaultPredictions[3] == (try await store.interaction(identifier: "e1-2"))?.intent)
        #expect(try await store.predictions(for: .podcastEpisode, limit: 4).count == 4)
        #expect(try await store.predictions(for: .podcastEpisode, limit: 0).isEmpty)
        #expect(try await store.predictions(for: .song).map(\.primaryItem) == [song])
        #expect(try await store.predictions(for: .podcastShow).map(\.primaryItem?.identifier) == ["show-4"])

        // Only suggested: heard episodes are not offered unless the app suggests them.
        try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .podcastEpisode)
        #expect(
            try await store.predictions(for: .podcastEpisode).compactMap(\.primaryItem?.identifier)
                == ["episode-1-8", "episode-1-2", "episode-1-7"])
        #expect(try await store.predictions(for: .song).map(\.primaryItem) == [song], "other types keep their mode")

        // A mode this version does not know is read conservatively, as only-suggested.
        try await store.setPredictionMode(PredictionMode(rawValue: "onlyFavourites"), for: .song)
        #expect(try await store.predictions(for: .song).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func everyChangeIsPublishedInOrder(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let early = store.changes()
        let a = try Fixture.interaction("a", episode: 1, show: 1, at: 1)
        let b = try Fixture.interaction("b", episode: 2, show: 2, at: 2)
        let c = try Fixture.interaction("c", episode: 3, show: 1, at: 3)
        try await store.donate(a)
        let late = store.changes()
        try await store.donate(b)
        try await store.donate(c)
        _ = await castIntentsError { try await store.donate(a) }  // rejected: no change
        try await store.deleteInteractions(groupIdentifier: "show-1")
        try await store.deleteInteractions(groupIdentifier: "show-1")  // nothing left: no change
        let suggestions = try [Fixture.playEpisode(9)]
        try await store.setSuggestedMediaIntents(suggestions)
        _ = await castIntentsError { try await store.setSuggestedMediaIntents([PlayMediaIntent()]) }
        try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .podcastEpisode)
        try await store.deleteInteractions(identifiers: ["b", "unknown"])
        try await store.deleteAllInteractions()  // empty store: no change

        let expectedAfterA: [IntentStoreChange] = [
            .donated(b), .donated(c), .deleted(identifiers: ["a", "c"]), .suggestionsChanged(suggestions),
            .predictionModeChanged(type: .podcastEpisode, mode: .onlyPredictSuggestedIntents),
            .deleted(identifiers: ["b"]),
        ]
        #expect(try await changesBeforeSentinel(early, store: store) == [.donated(a)] + expectedAfterA)
        let lateChanges = try await changesBeforeSentinel(late, store: store)
        // `late` also saw the first sentinel.
        #expect(Array(lateChanges.prefix(expectedAfterA.count)) == expectedAfterA)
        #expect(lateChanges.count == expectedAfterA.count + 1)
    }

    @Test(arguments: StoreKind.allCases)
    func changeSequencesFinishWhenTheStoreIsReleased(kind: StoreKind) async throws {
        var store: (any CastIntentStore)? = try kind.makeStore()
        let stream = try #require(store).changes()
        try await store?.donate(Fixture.interaction("last", episode: 1, at: 1))
        store = nil
        var received: [IntentStoreChange] = []
        for await change in stream { received.append(change) }  // ends only if the stream finished
        #expect(received.count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentWritersAndReadersLoseAndDuplicateNothing(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let writers = 8
        let perWriter = 40
        let changes = store.changes()
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        try await store.donate(
                            Fixture.interaction(
                                "w\(writer)-\(index)", episode: index % 3, show: writer,
                                at: Double(writer * 1_000 + index)))
                    }
                    return []
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    // Readers: counts only grow, and every read is internally consistent.
                    var seen: [Int] = []
                    for _ in 0..<25 {
                        let count = try await store.interactionCount()
                        let recent = try await store.mostRecentInteractions(limit: 50)
                        #expect(Set(recent.map(\.identifier)).count == recent.count)
                        _ = try await store.mostFrequentMediaItems(ofType: .podcastEpisode, limit: 5)
                        seen.append(count)
                    }
                    return seen
                }
            }
            for try await counts in group {
                #expect(counts == counts.sorted(), "a reader saw the number of donations shrink")
            }
        }
        let expected = Set((0..<writers).flatMap { writer in (0..<perWriter).map { "w\(writer)-\($0)" } })
        let stored = try await store.mostRecentInteractions().map(\.identifier)
        #expect(stored.count == writers * perWriter)
        #expect(Set(stored) == expected)
        #expect(try await store.interactionCount() == writers * perWriter)
        for writer in 0..<writers {
            #expect(try await store.interactions(groupIdentifier: "show-\(writer)", limit: nil).count == perWriter)
        }
        let published = try await changesBeforeSentinel(changes, store: store)
        let donated = published.compactMap { change -> String? in
            if case .donated(let interaction) = change { return interaction.identifier }
            return nil
        }
        #expect(donated.count == writers * perWriter)
        #expect(Set(donated) == expected)
        // Each writer's donations were published in the order it made them.
        for writer in 0..<writers {
            let own = donated.filter { $0.hasPrefix("w\(writer)-") }
            #expect(own == (0..<perWriter).map { "w\(writer)-\($0)" })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentDuplicateDonationsStoreExactlyOne(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let interaction = try Fixture.interaction("contested", episode: 1, at: 1)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    do {
                        try await store.donate(interaction)
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await store.interactionCount() == 1)
    }
}

extension Interaction {
    func withoutGroup() throws -> Interaction {
        try Interaction(intent: intent, date: date, identifier: identifier, groupIdentifier: nil)
    }
}
