import CastIntents
import Foundation
import Testing

/// A small library: show 1 with three episodes, an empty show 2, a film, a playlist mixing a music
/// video and a song, and an item of a type this version does not know.
struct TestLibrary: Sendable {
    let entries: [String: MediaLibraryEntry]

    init() throws {
        let show1 = try Fixture.show(1)
        let episodes = try (1...3).map { try Fixture.episode($0, show: 1) }
        let show2 = try Fixture.show(2)
        let film = try MediaItem(identifier: "film", title: "A Film", type: .movie)
        let video = try MediaItem(identifier: "clip", title: "Clip", type: .musicVideo, containerIdentifier: "mix")
        let song = try MediaItem(identifier: "song", title: "Song", type: .song, containerIdentifier: "mix")
        let mix = try MediaItem(identifier: "mix", title: "Mix", type: .playlist)
        let holo = try MediaItem(identifier: "holo", title: "Hologram", type: MediaItemType(rawValue: "hologram"))
        var entries: [String: MediaLibraryEntry] = [:]
        entries[show1.identifier] = MediaLibraryEntry(item: show1, contents: episodes)
        for episode in episodes { entries[episode.identifier] = MediaLibraryEntry(item: episode) }
        entries[show2.identifier] = MediaLibraryEntry(item: show2)
        entries[film.identifier] = MediaLibraryEntry(item: film)
        entries[mix.identifier] = MediaLibraryEntry(item: mix, contents: [song, video])
        entries[song.identifier] = MediaLibraryEntry(item: song)
        entries[video.identifier] = MediaLibraryEntry(item: video)
        entries[holo.identifier] = MediaLibraryEntry(item: holo)
        self.entries = entries
    }

    func resolver(store: any CastIntentStore) -> MediaIntentResolver {
        let entries = self.entries
        return MediaIntentResolver(store: store) { identifier in entries[identifier] }
    }
}

struct LibraryOffline: Error {}

@Suite("Play and show requests")
struct MediaIntentResolverTests {
    let library: TestLibrary
    init() throws { library = try TestLibrary() }

    @Test(arguments: StoreKind.allCases)
    func audioIsHandledInTheBackground(kind: StoreKind) async throws {
        let resolver = library.resolver(store: try kind.makeStore())
        let intent = try PlayMediaIntent(
            mediaItems: [Fixture.episode(2)], mediaContainer: Fixture.show(1), playShuffled: true, repeatMode: .all,
            playbackSpeed: 1.5)
        let response = await resolver.handlePlay(intent)
        #expect(response.code == .handleInApp)
        let request = try #require(response.playRequest)
        #expect(request.items == [try Fixture.episode(2)])
        #expect(request.container == (try Fixture.show(1)))
        #expect(request.mediaKind == .audio)
        #expect(request.playShuffled)
        #expect(request.repeatMode == .all)
        #expect(!request.resumePlayback)
        #expect(request.playbackSpeed == 1.5)
        #expect(request.startIndex == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func videoContinuesInTheForeground(kind: StoreKind) async throws {
        let resolver = library.resolver(store: try kind.makeStore())
        let film = try MediaItem(identifier: "film", type: .movie)
        let response = await resolver.handlePlay(try PlayMediaIntent(mediaItems: [film]))
        #expect(response.code == .continueInApp)
        #expect(response.playRequest?.items.map(\.title) == ["A Film"], "the library's fresh item is used")
        #expect(response.playRequest?.mediaKind == .video)
        // A playlist with one music video among songs is video too.
        let mix = try MediaItem(identifier: "mix", type: .playlist)
        let mixed = await resolver.handlePlay(try PlayMediaIntent(mediaContainer: mix))
        #expect(mixed.code == .continueInApp)
        #expect(mixed.playRequest?.items.map(\.identifier) == ["song", "clip"])
    }

    @Test(arguments: StoreKind.allCases)
    func aContainerPlaysItsContentsAndResumesFromHistory(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let resolver = library.resolver(store: store)
        let show = try MediaItem(identifier: "show-1", type: .podcastShow)
        let fromStart = await resolver.handlePlay(try PlayMediaIntent(mediaContainer: show))
        #expect(fromStart.playRequest?.items.map(\.identifier) == ["episode-1-1", "episode-1-2", "episode-1-3"])
        #expect(fromStart.playRequest?.startIndex == 0)
        #expect(fromStart.playRequest?.container?.title == "Show 1")

        try await store.donate(Fixture.interaction("older", episode: 3, at: 1))
        try await store.donate(Fixture.interaction("newer", episode: 2, at: 2))
        let resumed = await resolver.handlePlay(try PlayMediaIntent(mediaContainer: show, resumePlayback: true))
        #expect(resumed.playRequest?.startIndex == 1)
        #expect(resumed.playRequest?.resumePlayback == true)
        let notResumed = await resolver.handlePlay(try PlayMediaIntent(mediaContainer: show, resumePlayback: false))
        #expect(notResumed.playRequest?.startIndex == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func anEmptyIntentResumesTheMostRecentDonation(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let resolver = library.resolver(store: store)
        let nothing = await resolver.handlePlay(try PlayMediaIntent())
        guard case .failure(let failure) = nothing else {
            Issue.record("expected a failure, got \(nothing)")
            return
        }
        #expect(failure.code == .nothingToPlay)

        try await store.donate(Fixture.interaction("first", episode: 1, at: 1))
        let last = try Interaction(
            intent: PlayMediaIntent(mediaItems: [Fixture.episode(3)], repeatMode: .one, playbackSpeed: 2),
            date: Date(timeIntervalSinceReferenceDate: 2), identifier: "last")
        try await store.donate(last)
        let response = await resolver.handlePlay(try PlayMediaIntent(playbackSpeed: 0.5))
        #expect(response.code == .handleInApp)
        #expect(response.playRequest?.items.map(\.identifier) == ["episode-1-3"])
        #expect(response.playRequest?.repeatMode == .one)
        #expect(response.playRequest?.playbackSpeed == 0.5, "the request's own option wins")
        #expect(response.playRequest?.container?.identifier == "show-1")
    }

    @Test(arguments: StoreKind.allCases)
    func failures(kind: StoreKind) async throws {
        let resolver = library.resolver(store: try kind.makeStore())
        func failureCode(_ intent: PlayMediaIntent, show: Bool = false) async -> PlayMediaFailure.Code? {
            let response = show ? await resolver.handleShow(intent) : await resolver.handlePlay(intent)
            if case .failure(let failure) = response { return failure.code }
            Issue.record("expected a failure, got \(response)")
            return nil
        }
        let gone = try MediaItem(identifier: "gone", type: .podcastEpisode)
        #expect(await failureCode(try PlayMediaIntent(mediaItems: [gone])) == .itemNotFound)
        #expect(await failureCode(try PlayMediaIntent(mediaContainer: MediaItem(identifier: "gone-show", type: .podcastShow))) == .containerNotFound)
        #expect(await failureCode(try PlayMediaIntent(mediaContainer: Fixture.show(2))) == .emptyContainer)
        #expect(await failureCode(try PlayMediaIntent(mediaItems: [MediaItem(identifier: "holo", type: .song)])) == .unsupportedMediaType)
        #expect(await failureCode(try PlayMediaIntent(mediaItems: [MediaItem(identifier: "film", type: .movie)]), show: true) == .noContainer)
        #expect(await failureCode(try PlayMediaIntent(), show: true) == .noContainer)

        let offline = MediaIntentResolver(store: InMemoryIntentStore()) { _ in throw LibraryOffline() }
        let response = await offline.handlePlay(try Fixture.playEpisode(1))
        if case .failure(let failure) = response {
            #expect(failure.code == .libraryUnavailable)
        } else {
            Issue.record("expected a failure, got \(response)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func missingItemsAreLeftOutAndReported(kind: StoreKind) async throws {
        let resolver = library.resolver(store: try kind.makeStore())
        let gone = try MediaItem(identifier: "gone", type: .podcastEpisode)
        let response = await resolver.handlePlay(try PlayMediaIntent(mediaItems: [gone, Fixture.episode(1)]))
        #expect(response.code == .handleInApp)
        #expect(response.playRequest?.items.map(\.identifier) == ["episode-1-1"])
        #expect(response.playRequest?.unavailableItemIdentifiers == ["gone"])
    }

    @Test(arguments: StoreKind.allCases)
    func showDisplaysTheContainerWithoutPlaying(kind: StoreKind) async throws {
        let store = try kind.makeStore()
        let resolver = library.resolver(store: store)
        let changes = store.changes()
        let response = await resolver.handleShow(try Fixture.playEpisode(2))
        guard case .showContainer(let display) = response else {
            Issue.record("expected showContainer, got \(response)")
            return
        }
        #expect(display.container == (try Fixture.show(1)))
        #expect(display.contents.count == 3)
        #expect(display.highlightedItemIdentifier == "episode-1-2")

        // An item without a container reference in the intent: the library's entry supplies it.
        let bare = try MediaItem(identifier: "episode-1-3", type: .podcastEpisode)
        if case .showContainer(let fromLibrary) = await resolver.handleShow(try PlayMediaIntent(mediaItems: [bare])) {
            #expect(fromLibrary.container.identifier == "show-1")
            #expect(fromLibrary.highlightedItemIdentifier == "episode-1-3")
        } else {
            Issue.record("expected showContainer")
        }
        // An item that is itself a container is shown.
        let mix = try MediaItem(identifier: "mix", type: .playlist)
        if case .showContainer(let playlist) = await resolver.handleShow(try PlayMediaIntent(mediaItems: [mix])) {
            #expect(playlist.container.identifier == "mix")
            #expect(playlist.highlightedItemIdentifier == nil)
        } else {
            Issue.record("expected showContainer")
        }
        // An empty intent shows the container of the latest donation.
        try await store.donate(Fixture.interaction("d", episode: 1, show: 1, at: 1))
        if case .showContainer(let latest) = await resolver.handleShow(try PlayMediaIntent()) {
            #expect(latest.container.identifier == "show-1")
        } else {
            Issue.record("expected showContainer")
        }
        // Showing never changes the store (it does not play, so it donates nothing).
        #expect(try await changesBeforeSentinel(changes, store: store).count == 1)
    }

    @Test func donationOfARequestGroupsByContainer() throws {
        let request = PlayRequest(
            intent: try Fixture.playEpisode(2), container: try Fixture.show(1),
            items: try (1...3).map { try Fixture.episode($0) }, startIndex: 1, repeatMode: .all, playbackSpeed: 1.25,
            mediaKind: .audio)
        let donation = try request.donation(date: Date(timeIntervalSinceReferenceDate: 9), identifier: "x")
        #expect(donation.groupIdentifier == "show-1")
        #expect(donation.intent.mediaItems == [try Fixture.episode(2)])
        #expect(donation.intent.mediaContainer == (try Fixture.show(1)))
        #expect(donation.intent.repeatMode == .all)
        #expect(donation.intent.playbackSpeed == 1.25)
    }
}
