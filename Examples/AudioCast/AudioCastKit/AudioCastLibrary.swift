import CastIntents
import CastorIntents
import Foundation

/// The AudioCast podcast player's state and commands, shared by the `audiocast` program and its
/// tests: the seed's AudioCastKit.
///
/// A library directory holds two files:
/// - `intents.sqlite` — the media-intent store (`SQLiteIntentStore`): donations, suggestions and
///   prediction modes;
/// - `library.json` — the subscribed shows with their episodes, and stored playback positions
///   (changed under a file lock, written atomically).
///
/// The rules of the Audio Cast sample:
/// - every play is donated, with the show's id as group identifier;
/// - unsubscribing deletes the show's donations (its group);
/// - after subscribing, refreshing and playing, the suggested intents are the episodes not heard
///   yet (never donated), sorted by title, and podcast episodes are predicted only from suggestions
///   (``PredictionMode/onlyPredictSuggestedIntents``), so heard episodes are not offered again.
public final class AudioCastLibrary: Sendable {
    /// The library directory.
    public let directory: URL
    /// The intent store.
    public let store: SQLiteIntentStore
    let catalogFile: CatalogFile

    /// The library directory used when none is given: `$AUDIOCAST_LIBRARY`, else
    /// `$XDG_DATA_HOME/audiocast`, else `~/.local/share/audiocast`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["AUDIOCAST_LIBRARY"], !path.isEmpty { return URL(fileURLWithPath: path, isDirectory: true) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("audiocast", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".local/share/audiocast", isDirectory: true)
    }

    /// Opens (creating if needed) the library in `directory`.
    /// - Throws: ``AudioCastError/Code/storage`` when the directory or the store cannot be opened.
    public init(directory: URL = AudioCastLibrary.defaultDirectory) throws(AudioCastError) {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AudioCastError(code: .storage, message: "Cannot create \(directory.path): \(error.localizedDescription)")
        }
        do {
            store = try SQLiteIntentStore(path: directory.appendingPathComponent("intents.sqlite").path)
        } catch {
            throw AudioCastError(code: .storage, message: "Cannot open the intent store: \(error)", cause: error)
        }
        catalogFile = CatalogFile(directory: directory)
    }

    // MARK: Shows

    /// Subscribes to a feed (a path or a `file://`, `http://` or `https://` URL). Subscribing to a
    /// source already subscribed refreshes that show.
    public func subscribe(_ source: String) async throws(AudioCastError) -> SubscribeResult {
        // Read and parsed once, within the download's deadline.
        let feed = try await FeedReader.feed(from: source)
        let title = feed.title.isEmpty ? source : feed.title
        let result = try catalogFile.update { catalog throws(AudioCastError) -> SubscribeResult in
            if let index = catalog.shows.firstIndex(where: { $0.source == source }) {
                let old = catalog.shows[index]
                let show = try FeedReader.show(from: feed, source: source, id: old.id)
                catalog.shows[index] = show
                let known = Set(old.episodes.map(\.id))
                return SubscribeResult(show: show, isNew: false, newEpisodes: show.episodes.filter { !known.contains($0.id) })
            }
            let show = try FeedReader.show(from: feed, source: source, id: catalog.newShowId(title: title))
            catalog.shows.append(show)
            return SubscribeResult(show: show, isNew: true, newEpisodes: show.episodes)
        }
        try await updateSuggestions()
        return result
    }

    /// Unsubscribes from a show (by id or title) and deletes its donations.
    public func unsubscribe(_ showName: String) async throws(AudioCastError) -> UnsubscribeResult {
        let show = try catalogFile.update { catalog throws(AudioCastError) -> Show in
            guard let show = catalog.show(matching: showName) else { throw Self.unknownShow(showName) }
            catalog.shows.removeAll { $0.id == show.id }
            for episode in show.episodes { catalog.positions[episode.id] = nil }
            return show
        }
        let deleted: [String]
        do {
            // The group identifier used when donating: the show's id.
            deleted = try await store.deleteInteractions(groupIdentifier: show.id)
        } catch {
            throw Self.storeError(error)
        }
        try await updateSuggestions()
        return UnsubscribeResult(show: show, deletedDonations: deleted)
    }

    /// The subscribed shows, in subscription order.
    public func shows() throws(AudioCastError) -> [Show] {
        try catalogFile.read().shows
    }

    /// A show's episodes, each with whether it was heard and where the user stopped.
    public func episodes(of showName: String) async throws(AudioCastError) -> (Show, [EpisodeState]) {
        let catalog = try catalogFile.read()
        guard let show = catalog.show(matching: showName) else { throw Self.unknownShow(showName) }
        let heard = try await heardEpisodeIds()
        return (show, show.episodes.map { episode in
            EpisodeState(episode: episode, heard: heard.contains(episode.id), position: catalog.positions[episode.id])
        })
    }

    /// Re-reads every show's feed; new episodes become suggestions. A feed that cannot be read keeps
    /// its show as it was and is reported in the result.
    public func refresh() async throws(AudioCastError) -> [RefreshResult] {
        var results: [RefreshResult] = []
        for show in try catalogFile.read().shows {
            do throws(AudioCastError) {
                let updated = try FeedReader.show(from: try await FeedReader.feed(from: show.source), source: show.source, id: show.id)
                let new = try catalogFile.update { catalog throws(AudioCastError) -> [Episode] in
                    guard let index = catalog.shows.firstIndex(where: { $0.id == show.id }) else { return [] }
                    let known = Set(catalog.shows[index].episodes.map(\.id))
                    catalog.shows[index] = updated
                    return updated.episodes.filter { !known.contains($0.id) }
                }
                results.append(RefreshResult(showId: show.id, newEpisodes: new, error: nil))
            } catch {
                results.append(RefreshResult(showId: show.id, newEpisodes: [], error: error.description))
            }
        }
        try await updateSuggestions()
        return results
    }

    // MARK: Suggestions and history

    /// Suggests every episode not heard yet, sorted by title (most important first), with podcast
    /// episodes predicted only from suggestions — the seed's `updateSystemUpcomingContentSuggestions()`.
    @discardableResult
    public func updateSuggestions() async throws(AudioCastError) -> [PlayMediaIntent] {
        let catalog = try catalogFile.read()
        let heard = try await heardEpisodeIds()
        var intents: [PlayMediaIntent] = []
        do {
            for show in catalog.shows {
                let container = try show.mediaItem()
                for episode in show.episodes where !heard.contains(episode.id) {
                    intents.append(try PlayMediaIntent(
                        mediaItems: [episode.mediaItem(in: show)], mediaContainer: container, playShuffled: false,
                        repeatMode: PlaybackRepeatMode.none, resumePlayback: false))
                }
            }
        } catch {
            throw AudioCastError(code: .invalidFeed, message: "An episode cannot be suggested: \(error)", cause: error)
        }
        // Most important first: alphabetically by episode title, as the sample does.
        intents.sort {
            ($0.mediaItems.first?.title ?? "").localizedCaseInsensitiveCompare($1.mediaItems.first?.title ?? "") == .orderedAscending
        }
        if intents.count > CastIntentStoreLimits.maximumSuggestionCount {
            intents.removeLast(intents.count - CastIntentStoreLimits.maximumSuggestionCount)
        }
        do {
            try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .podcastEpisode)
            try await store.setPredictionMode(.onlyPredictSuggestedIntents, for: .videoPodcastEpisode)
            try await store.setSuggestedMediaIntents(intents)
        } catch {
            throw Self.storeError(error)
        }
        return intents
    }

    /// The suggested episodes (audio and video), most important first.
    public func suggestions(limit: Int? = nil) async throws(AudioCastError) -> [PlayMediaIntent] {
        do {
            let intents = try await store.suggestedMediaIntents()
            return limit.map { Array(intents.prefix(max(0, $0))) } ?? intents
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The donations, newest first.
    public func history(limit: Int? = nil) async throws(AudioCastError) -> [Interaction] {
        do {
            return try await store.mostRecentInteractions(limit: limit)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// What to display for an id (a donated interaction, an episode or a show) without playing:
    /// the seed's `application(_:continue:restorationHandler:)`.
    public func showContainer(_ id: String) async throws(AudioCastError) -> ContainerDisplay {
        let intent = try await intent(forShowing: id)
        let response = await resolver(catalog: try catalogFile.read()).handleShow(intent)
        switch response {
        case .showContainer(let display): return display
        case .failure(let failure):
            throw AudioCastError(code: .unknownShow, message: failure.description, cause: failure)
        default:
            throw AudioCastError(code: .unknownShow, message: "Nothing to show for '\(id)'.")
        }
    }

    /// Stores where the user stopped in an episode.
    public func recordPosition(episode id: String, seconds: Double) throws(AudioCastError) {
        guard seconds.isFinite, seconds >= 0 else { return }
        try catalogFile.update { catalog throws(AudioCastError) in
            guard catalog.episode(matching: id) != nil else { throw Self.unknownEpisode(id) }
            catalog.positions[id] = seconds
        }
    }

    // MARK: Helpers

    /// Episodes named by a donation (heard at least once).
    func heardEpisodeIds() async throws(AudioCastError) -> Set<String> {
        do {
            return Set(try await store.mostRecentInteractions(limit: nil).flatMap { $0.intent.mediaItems.map(\.identifier) })
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The resolver over a snapshot of the library.
    func resolver(catalog: Catalog) -> MediaIntentResolver {
        MediaIntentResolver(store: store) { identifier in
            if let show = catalog.shows.first(where: { $0.id == identifier }) {
                return MediaLibraryEntry(item: try show.mediaItem(), contents: try show.episodes.map { try $0.mediaItem(in: show) })
            }
            if case let (show, episode)? = catalog.episode(matching: identifier), episode.id == identifier {
                return MediaLibraryEntry(item: try episode.mediaItem(in: show))
            }
            return nil
        }
    }

    private func intent(forShowing id: String) async throws(AudioCastError) -> PlayMediaIntent {
        let donated: Interaction?
        do {
            donated = try await store.interaction(identifier: id)
        } catch {
            throw Self.storeError(error)
        }
        if let donated { return donated.intent }
        let catalog = try catalogFile.read()
        do {
            if case let (show, episode)? = catalog.episode(matching: id) {
                return try PlayMediaIntent(mediaItems: [episode.mediaItem(in: show)])
            }
            if let show = catalog.show(matching: id) {
                return try PlayMediaIntent(mediaContainer: show.mediaItem())
            }
        } catch {
            throw AudioCastError(code: .invalidFeed, message: "'\(id)' cannot be shown: \(error)", cause: error)
        }
        throw AudioCastError(code: .unknownIntent, message: "No donation, episode or show has the id '\(id)'.")
    }

    static func unknownShow(_ name: String) -> AudioCastError {
        AudioCastError(code: .unknownShow, message: "No subscribed show has the id or title '\(name)'; see `audiocast shows`.")
    }

    static func unknownEpisode(_ name: String) -> AudioCastError {
        AudioCastError(code: .unknownEpisode, message: "No episode or show has the id or title '\(name)'; see `audiocast episodes SHOW`.")
    }

    static func storeError(_ error: CastIntentsError) -> AudioCastError {
        AudioCastError(code: .storage, message: "The intent store failed: \(error)", cause: error)
    }
}

/// The result of ``AudioCastLibrary/subscribe(_:)``.
public struct SubscribeResult: Sendable, Hashable, Codable {
    /// The show.
    public var show: Show
    /// Whether it was not subscribed before.
    public var isNew: Bool
    /// Episodes not known before.
    public var newEpisodes: [Episode]
}

/// The result of ``AudioCastLibrary/unsubscribe(_:)``.
public struct UnsubscribeResult: Sendable, Hashable, Codable {
    /// The removed show.
    public var show: Show
    /// The identifiers of its deleted donations.
    public var deletedDonations: [String]
}

/// One show's outcome of ``AudioCastLibrary/refresh()``.
public struct RefreshResult: Sendable, Hashable, Codable {
    /// The show.
    public var showId: String
    /// Episodes the feed has now that were not known.
    public var newEpisodes: [Episode]
    /// Why the feed could not be read, if it could not (the show is kept as it was).
    public var error: String?
}

/// An episode with what the user did with it.
public struct EpisodeState: Sendable, Hashable, Codable {
    /// The episode.
    public var episode: Episode
    /// Whether it was played (donated) at least once.
    public var heard: Bool
    /// Where the user stopped, in seconds.
    public var position: Double?
}
