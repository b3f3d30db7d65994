import CastMedia
import CastMediaMetadata
import CastQueue
import Foundation

/// The fixed parts of the mapping: what the configuration decides.
struct MPRISOptions: Sendable {
    var desktopEntry: String?
    var canControl: Bool
    var canQuit: Bool
    var hasTrackList: Bool
    var maxTracks: Int
    var imagePicker: any CastImagePicker
    var imageHints: CastImageHints?

    /// `http` and `https`: a Cast device fetches what it plays itself.
    static let uriSchemes = ["http", "https"]
    /// What the Default Media Receiver plays (Google's supported-media list).
    static let mimeTypes = [
        "application/dash+xml", "application/vnd.apple.mpegurl", "application/vnd.ms-sstr+xml", "application/x-mpegurl",
        "audio/aac", "audio/flac", "audio/mp4", "audio/mpeg", "audio/ogg", "audio/wav", "audio/webm",
        "image/bmp", "image/gif", "image/jpeg", "image/png", "image/webp", "video/mp2t", "video/mp4", "video/webm",
    ]
}

/// Everything MPRIS publishes, computed from a snapshot: the three interfaces' properties and
/// what the methods check against (the current track, the length, the position).
struct MPRISState: Sendable, Equatable {
    enum PlaybackStatus: String, Sendable { case playing = "Playing", paused = "Paused", stopped = "Stopped" }
    enum LoopStatus: String, Sendable, CaseIterable { case none = "None", track = "Track", playlist = "Playlist" }

    var identity: String
    var desktopEntry: String?
    var canControl: Bool
    var canQuit: Bool
    var hasTrackList: Bool

    var playbackStatus: PlaybackStatus
    var loopStatus: LoopStatus
    var shuffle: Bool
    var rate: Double
    var minimumRate: Double
    var maximumRate: Double
    var volume: Double
    var canSetVolume: Bool
    /// The current track's metadata (`a{sv}` entries, values unwrapped).
    var metadata: [String: DBusValue]
    /// The current track's id, or ``MPRISNames/noTrack``.
    var currentTrack: String
    /// The current track's length in microseconds, when known.
    var length: Int64?
    /// The position in microseconds, within `0...length`.
    var position: Int64
    var canGoNext: Bool
    var canGoPrevious: Bool
    var canPlay: Bool
    var canPause: Bool
    var canSeek: Bool
    /// The track ids of the tracklist, in order (at most `maxTracks`, around the current one).
    var tracks: [String]
    /// The queue item id of each track id.
    var itemIds: [String: Int]
    /// The metadata of each track whose media is known.
    var trackMetadata: [String: [String: DBusValue]]

    init(_ snapshot: MPRISSnapshot, options: MPRISOptions) {
        identity = snapshot.identity
        desktopEntry = options.desktopEntry
        canControl = options.canControl
        canQuit = options.canQuit
        hasTrackList = options.hasTrackList
        let status = snapshot.status
        let control = options.canControl

        if let status, status.playerState != .idle {
            playbackStatus = snapshot.shouldPlay ? .playing : .paused
        } else {
            playbackStatus = .stopped
        }
        if snapshot.isShuffled {
            loopStatus = .playlist
        } else {
            switch snapshot.repeatMode {
            case .off: loopStatus = .none
            case .one: loopStatus = .track
            case .all: loopStatus = .playlist
            }
        }
        shuffle = snapshot.isShuffled
        minimumRate = min(1, snapshot.rateRange.lowerBound)
        maximumRate = max(1, snapshot.rateRange.upperBound)
        rate = snapshot.rate.isFinite && snapshot.rate > 0 ? min(maximumRate, max(minimumRate, snapshot.rate)) : 1
        let level = snapshot.volume.map { $0.isFinite ? min(1, max(0, $0)) : 0 } ?? 0
        volume = snapshot.isMuted ? 0 : level
        canSetVolume = control && snapshot.canSetVolume && snapshot.volume != nil

        let sessionId = status?.mediaSessionId
        let media = status?.media ?? snapshot.items.first { $0.id == snapshot.currentItemId }?.media
        if status != nil, media != nil || snapshot.currentItemId != nil {
            currentTrack = Self.trackId(session: sessionId, item: snapshot.currentItemId ?? status?.currentItemId)
            metadata = Self.metadata(media, trackId: currentTrack, options: options)
        } else {
            currentTrack = MPRISNames.noTrack
            metadata = [:]
        }
        length = metadata["mpris:length"]?.int64Value
        position = Self.micros(snapshot.position ?? .zero, within: length)

        let commands = status?.supportedMediaCommands ?? []
        let hasTrack = currentTrack != MPRISNames.noTrack
        canPlay = control && hasTrack
        canPause = control && hasTrack && commands.contains(.pause)
        canSeek = control && hasTrack && commands.contains(.seek) && snapshot.seekableRange != nil
        canGoNext = control && hasTrack && snapshot.canGoNext
        canGoPrevious = control && hasTrack && snapshot.canGoPrevious

        let window = Self.window(of: snapshot.items, around: snapshot.currentItemId, limit: options.maxTracks)
        tracks = window.map { Self.trackId(session: sessionId, item: $0.id) }
        itemIds = Dictionary(zip(tracks, window.map(\.id)), uniquingKeysWith: { first, _ in first })
        var known: [String: [String: DBusValue]] = [:]
        for (track, item) in zip(tracks, window) {
            let itemMedia = item.id == snapshot.currentItemId ? (status?.media ?? item.media) : item.media
            known[track] = Self.metadata(itemMedia, trackId: track, options: options)
        }
        trackMetadata = known
    }

    // MARK: Interfaces

    /// `org.mpris.MediaPlayer2`.
    var rootProperties: [String: DBusValue] {
        var properties: [String: DBusValue] = [
            "CanQuit": .bool(canQuit),
            "CanRaise": .bool(false),
            "HasTrackList": .bool(hasTrackList),
            "Identity": .string(identity),
            "SupportedUriSchemes": .strings(MPRISOptions.uriSchemes),
            "SupportedMimeTypes": .strings(MPRISOptions.mimeTypes),
        ]
        properties["DesktopEntry"] = desktopEntry.map(DBusValue.string)
        return properties
    }

    /// `org.mpris.MediaPlayer2.Player`.
    var playerProperties: [String: DBusValue] {
        [
            "PlaybackStatus": .string(playbackStatus.rawValue),
            "LoopStatus": .string(loopStatus.rawValue),
            "Rate": .double(rate),
            "Shuffle": .bool(shuffle),
            "Metadata": .vardict(metadata),
            "Volume": .double(volume),
            "Position": .int64(position),
            "MinimumRate": .double(minimumRate),
            "MaximumRate": .double(maximumRate),
            "CanGoNext": .bool(canGoNext),
            "CanGoPrevious": .bool(canGoPrevious),
            "CanPlay": .bool(canPlay),
            "CanPause": .bool(canPause),
            "CanSeek": .bool(canSeek),
            "CanControl": .bool(canControl),
        ]
    }

    /// `org.mpris.MediaPlayer2.TrackList`.
    var trackListProperties: [String: DBusValue] {
        ["Tracks": .objectPaths(tracks), "CanEditTracks": .bool(canControl)]
    }

    /// The properties of `interface`, or `nil` for an interface this object does not have.
    func properties(of interface: String) -> [String: DBusValue]? {
        switch interface {
        case MPRISNames.root: rootProperties
        case MPRISNames.player: playerProperties
        case MPRISNames.trackList where hasTrackList: trackListProperties
        default: nil
        }
    }

    // MARK: Helpers

    /// A track id: `/org/castor/Track/<media session>_<item>` (an item id alone is reused by a new media session).
    static func trackId(session: Int?, item: Int?) -> String {
        MPRISNames.trackPathPrefix + "\(max(0, session ?? 0))_\(max(0, item ?? 0))"
    }

    /// Microseconds, clamped to `0...length`.
    static func micros(_ duration: Duration, within length: Int64?) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let value = seconds >= Int64.max / 1_000_000 ? Int64.max : seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return min(length ?? .max, max(0, value))
    }

    /// At most `limit` items: a few before the current one and the rest after it.
    static func window(of items: [MPRISSnapshot.Item], around current: Int?, limit: Int) -> ArraySlice<MPRISSnapshot.Item> {
        guard limit > 0 else { return [] }
        guard items.count > limit else { return items[...] }
        let index = current.flatMap { id in items.firstIndex { $0.id == id } } ?? 0
        let start = min(max(0, index - limit / 4), items.count - limit)
        return items[start ..< start + limit]
    }

    /// The `a{sv}` entries for a track: its id always; title, artists, album, art, length and URL when known.
    static func metadata(_ media: MediaInformation?, trackId: String, options: MPRISOptions) -> [String: DBusValue] {
        var entries: [String: DBusValue] = ["mpris:trackid": .objectPath(trackId)]
        guard let media else { return entries }
        if let duration = media.duration, duration.isFinite, duration > 0, media.streamType != .live {
            entries["mpris:length"] = .int64(duration >= Double(Int64.max / 1_000_000) ? .max : Int64(duration * 1_000_000))
        }
        if let url = URL(string: media.contentUrl ?? media.contentId), let scheme = url.scheme?.lowercased(),
           scheme == "http" || scheme == "https" {
            entries["xesam:url"] = .string(url.absoluteString)
        }
        guard let metadata = media.metadata else { return entries }
        if let title = nonEmpty(metadata.title) { entries["xesam:title"] = .string(title) }
        if let artist = nonEmpty(metadata.artist) ?? nonEmpty(metadata.studio) {
            entries["xesam:artist"] = .strings([artist])
        }
        if let album = nonEmpty(metadata.albumName) ?? nonEmpty(metadata.seriesTitle) ?? nonEmpty(metadata.bookTitle) {
            entries["xesam:album"] = .string(album)
        }
        if let albumArtist = nonEmpty(metadata.albumArtist) { entries["xesam:albumArtist"] = .strings([albumArtist]) }
        if let composer = nonEmpty(metadata.composer) { entries["xesam:composer"] = .strings([composer]) }
        if let number = metadata.trackNumber ?? metadata.episode ?? metadata.chapterNumber, let value = Int32(exactly: number) {
            entries["xesam:trackNumber"] = .int32(value)
        }
        if let disc = metadata.discNumber ?? metadata.season, let value = Int32(exactly: disc) {
            entries["xesam:discNumber"] = .int32(value)
        }
        if let date = nonEmpty(metadata.releaseDate) ?? nonEmpty(metadata.originalAirdate) ?? nonEmpty(metadata.creationDateTime) {
            entries["xesam:contentCreated"] = .string(date)
        }
        if let art = metadata.imageUrl(matching: options.imageHints, picker: options.imagePicker) {
            entries["mpris:artUrl"] = .string(art.absoluteString)
        }
        return entries
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return text
    }
}

// MARK: Changes

/// What to emit when the state changes: PropertiesChanged per interface, Seeked, TrackListReplaced.
struct MPRISChanges: Sendable, Equatable {
    /// `(interface, changed properties, invalidated property names)`, one per interface with changes.
    var properties: [(interface: String, changed: [String: DBusValue], invalidated: [String])] = []
    /// The new position when it jumped (a seek, by anyone).
    var seeked: Int64?
    /// The new track list and current track, when the list changed.
    var trackListReplaced: (tracks: [String], current: String)?
    /// Tracks whose metadata changed (fetched, edited) while the list stayed the same.
    var trackMetadataChanged: [(track: String, metadata: [String: DBusValue])] = []

    var isEmpty: Bool { properties.isEmpty && seeked == nil && trackListReplaced == nil && trackMetadataChanged.isEmpty }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.properties.map { "\($0.interface)\($0.changed.sorted { $0.key < $1.key })\($0.invalidated)" }
            == rhs.properties.map { "\($0.interface)\($0.changed.sorted { $0.key < $1.key })\($0.invalidated)" }
            && lhs.seeked == rhs.seeked
            && lhs.trackListReplaced?.tracks == rhs.trackListReplaced?.tracks
            && lhs.trackListReplaced?.current == rhs.trackListReplaced?.current
            && lhs.trackMetadataChanged.map(\.track) == rhs.trackMetadataChanged.map(\.track)
    }

    /// Properties whose changes are not signalled (`EmitsChangedSignal` false in the specification).
    static let silent: Set<String> = ["Position", "CanControl"]
    /// Properties signalled as invalidated without their value (`EmitsChangedSignal` "invalidates").
    static let invalidatedOnly: Set<String> = ["Tracks"]

    /// How far a position may drift from the playback-rate extrapolation before it counts as a jump.
    static let seekTolerance: Duration = .milliseconds(1500)

    /// The changes from `old` to `new`; `oldSnapshot`/`newSnapshot` tell a jump from playback.
    static func between(_ old: MPRISState, _ new: MPRISState, oldSnapshot: MPRISSnapshot, newSnapshot: MPRISSnapshot) -> MPRISChanges {
        var changes = MPRISChanges()
        for interface in [MPRISNames.root, MPRISNames.player, MPRISNames.trackList] {
            let before = old.properties(of: interface) ?? [:]
            guard let after = new.properties(of: interface) else { continue }
            var changed: [String: DBusValue] = [:]
            var invalidated: [String] = []
            for (name, value) in after where before[name] != value && !silent.contains(name) {
                if invalidatedOnly.contains(name) { invalidated.append(name) } else { changed[name] = value }
            }
            if !changed.isEmpty || !invalidated.isEmpty {
                changes.properties.append((interface, changed, invalidated.sorted()))
            }
        }
        if new.hasTrackList {
            if old.tracks != new.tracks {
                changes.trackListReplaced = (new.tracks, new.currentTrack)
            } else {
                for track in new.tracks where old.trackMetadata[track] != new.trackMetadata[track] {
                    changes.trackMetadataChanged.append((track, new.trackMetadata[track] ?? [:]))
                }
            }
        }
        changes.seeked = seekedPosition(old, new, oldSnapshot: oldSnapshot, newSnapshot: newSnapshot)
        return changes
    }

    /// The new position when it moved in a way playback does not explain (MPRIS `Seeked`): on the
    /// same track, away from `old`'s position extrapolated at `old`'s rate by more than ``seekTolerance``.
    /// A new track starting at 0 is not a jump; one starting elsewhere is.
    static func seekedPosition(_ old: MPRISState, _ new: MPRISState, oldSnapshot: MPRISSnapshot, newSnapshot: MPRISSnapshot) -> Int64? {
        guard new.currentTrack != MPRISNames.noTrack, let newPosition = newSnapshot.position else { return nil }
        let tolerance = MPRISState.micros(seekTolerance, within: nil)
        guard old.currentTrack != MPRISNames.noTrack else { return nil }
        guard old.currentTrack == new.currentTrack, let oldPosition = oldSnapshot.position else {
            return new.position > tolerance ? new.position : nil
        }
        let elapsed = max(.zero, newSnapshot.takenAt - oldSnapshot.takenAt)
        let advancing = old.playbackStatus == .playing && oldSnapshot.status?.playerState == .playing
        let expected = oldPosition + (advancing ? elapsed * old.rate : .zero)
        let drift = newPosition > expected ? newPosition - expected : expected - newPosition
        return drift > seekTolerance ? new.position : nil
    }
}
