import CastIntents
import CastMediaMetadata
import Castor
import CastorIntents
import Foundation

/// What `audiocast play` plays.
public enum PlayTarget: Sendable, Hashable {
    /// An episode (by id or title), or a whole show (by id or title).
    case item(String)
    /// The first suggestion (the first prediction for podcast episodes).
    case suggested
    /// A donated interaction, played again.
    case intent(String)
}

/// The options of a play request; `nil` leaves an option as the intent has it.
public struct PlayOptions: Sendable, Hashable {
    /// Shuffle the queue.
    public var shuffle: Bool?
    /// Repeat mode.
    public var repeatMode: PlaybackRepeatMode?
    /// Resume where the user stopped.
    public var resume: Bool?
    /// Playback speed (0.25...4; devices play 0.5...2).
    public var speed: Double?

    /// Creates options.
    public init(shuffle: Bool? = nil, repeatMode: PlaybackRepeatMode? = nil, resume: Bool? = nil, speed: Double? = nil) {
        self.shuffle = shuffle
        self.repeatMode = repeatMode
        self.resume = resume
        self.speed = speed
    }
}

/// What a play did: the response code, the queue on the device, and the donation made.
public struct PlayOutcome: Sendable, Hashable, Codable {
    /// `handleInApp` (audio) or `continueInApp` (video).
    public var code: String
    /// `loadedQueue` or `continuedQueue`.
    public var action: String
    /// The episode ids loaded, in queue order.
    public var queue: [String]
    /// The episode playback started with.
    public var startEpisode: String?
    /// Where playback started in it, in seconds.
    public var startSeconds: Double?
    /// The queue's repeat mode on the device (`off`, `one`, `all`).
    public var repeatMode: String?
    /// The playback speed asked of the device.
    public var playbackSpeed: Double?
    /// The identifier of the donated interaction.
    public var donation: String?
    /// Episodes left out because they could not be played.
    public var unavailable: [String]
}

extension AudioCastLibrary {
    /// The assets of the library: each episode's enclosure with its Cast metadata, and its stored position.
    func assets(catalog: Catalog) -> MediaAssetMapping {
        MediaAssetMapping { item in
            guard case let (show, episode)? = catalog.episode(matching: item.identifier), episode.id == item.identifier,
                let url = URL(string: episode.url), let podcastEpisode = episode.podcastEpisode
            else { return nil }
            return .url(url, configuration: CastAssetURLConfiguration(mimeType: episode.mimeType, duration: episode.duration),
                        metadata: podcastEpisode.metadata(in: show.feed))
        } resumePosition: { item in
            catalog.positions[item.identifier].map { .milliseconds(Int64(($0 * 1000).rounded())) }
        }
    }

    /// Plays a target on the session of `cast` and donates the play (group: the show).
    ///
    /// The request goes the seed's way: an intent, resolved by a `MediaIntentResolver` against the
    /// library and the donation history, played by `CastIntentPlayer` on the device. A successful
    /// play is donated and the suggestions are updated (the episode is heard now).
    /// - Throws: ``AudioCastError/Code/playbackFailed`` with the handler's or the device's reason.
    public func play(
        _ target: PlayTarget, options: PlayOptions = PlayOptions(), on cast: Cast,
        using generator: inout some RandomNumberGenerator
    ) async throws(AudioCastError) -> PlayOutcome {
        let catalog = try catalogFile.read()
        let intent = try await intent(for: target, options: options, catalog: catalog)
        let response = await resolver(catalog: catalog).handlePlay(intent)
        let bridge = CastIntentPlayer(cast: cast, assets: assets(catalog: catalog))
        let playback = await bridge.play(response, for: intent, using: &generator)
        if let failure = playback.failure {
            throw AudioCastError(
                code: failure.code == .deviceUnavailable ? .deviceUnavailable : .playbackFailed,
                message: failure.description, cause: playback.castError ?? failure)
        }
        var donationId: String?
        if playback.action == .loadedQueue, var request = playback.request {
            // Donate what actually started: the queue as loaded (shuffled or not) and its start item.
            request.items = playback.queue
            request.startIndex = playback.startIndex
            do {
                let interaction = try request.donation()
                try await store.donate(interaction)
                donationId = interaction.identifier
            } catch {
                throw Self.storeError(error)
            }
            try await updateSuggestions()
        }
        return PlayOutcome(
            code: playback.code.description, action: playback.action.description, queue: playback.queue.map(\.identifier),
            startEpisode: playback.startItem?.identifier,
            startSeconds: playback.startTime.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 },
            repeatMode: playback.repeatMode?.rawValue, playbackSpeed: playback.playbackSpeed, donation: donationId,
            unavailable: playback.unavailableItemIdentifiers)
    }

    /// Plays with the system's random generator.
    public func play(_ target: PlayTarget, options: PlayOptions = PlayOptions(), on cast: Cast) async throws(AudioCastError) -> PlayOutcome {
        var generator = SystemRandomNumberGenerator()
        return try await play(target, options: options, on: cast, using: &generator)
    }

    /// Records where the device is in the current episode as that episode's position.
    /// - Returns: the episode id and the position in seconds, if the device plays an episode of the library.
    @discardableResult
    public func recordPosition(from player: CastPlayer) throws(AudioCastError) -> (episode: String, seconds: Double)? {
        guard let asset = player.currentAsset, case .url(let url, _) = asset.kind, let time = player.time() else { return nil }
        guard case let (_, episode)? = try catalogFile.read().episode(withURL: url.absoluteString) else { return nil }
        let seconds = Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
        try recordPosition(episode: episode.id, seconds: seconds)
        return (episode.id, seconds)
    }

    private func intent(for target: PlayTarget, options: PlayOptions, catalog: Catalog) async throws(AudioCastError) -> PlayMediaIntent {
        var base: PlayMediaIntent
        switch target {
        case .item(let name):
            do {
                if case let (show, episode)? = catalog.episode(matching: name) {
                    base = try PlayMediaIntent(mediaItems: [episode.mediaItem(in: show)], mediaContainer: show.mediaItem())
                } else if let show = catalog.show(matching: name) {
                    base = try PlayMediaIntent(mediaContainer: show.mediaItem())
                } else {
                    throw Self.unknownEpisode(name)
                }
            } catch let error as AudioCastError {
                throw error
            } catch {
                throw AudioCastError(code: .invalidFeed, message: "'\(name)' cannot be played: \(error)", cause: error)
            }
        case .suggested:
            guard let first = try await suggestions(limit: 1).first else {
                throw AudioCastError(code: .nothingSuggested, message: "There is no suggestion: every episode was heard, or no show is subscribed.")
            }
            base = first
        case .intent(let id):
            let donated: Interaction?
            do { donated = try await store.interaction(identifier: id) } catch { throw Self.storeError(error) }
            guard let donated else {
                throw AudioCastError(code: .unknownIntent, message: "No donation has the id '\(id)'; see `audiocast history`.")
            }
            base = donated.intent
        }
        do {
            return try PlayMediaIntent(
                mediaItems: base.mediaItems, mediaContainer: base.mediaContainer, playShuffled: options.shuffle ?? base.playShuffled,
                repeatMode: options.repeatMode ?? base.repeatMode, resumePlayback: options.resume ?? base.resumePlayback,
                playbackSpeed: options.speed ?? base.playbackSpeed)
        } catch {
            throw AudioCastError(code: .playbackFailed, message: "Invalid play options: \(error)", cause: error)
        }
    }
}
