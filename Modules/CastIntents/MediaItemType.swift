/// The kind of a media item: song, podcast episode, movie, and so on.
///
/// An extensible set: the known kinds are static members, and any other well-formed raw value
/// (ASCII letters, digits, `.`, `_`, `-`; 1 to 64 bytes) is preserved as is, so a database written
/// by a newer version round-trips its types unchanged. Use ``isKnown`` or ``validatedAsKnown()``
/// where only the known kinds make sense.
public struct MediaItemType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable name stored in databases and JSON, for example `"podcastEpisode"`.
    public let rawValue: String

    /// Wraps a raw value without checking it. Prefer ``init(validating:)`` for untrusted text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a raw value after checking that it is a well-formed type name.
    /// - Throws: ``CastIntentsError/Code/invalidMediaItemType``.
    public init(validating rawValue: String) throws(CastIntentsError) {
        guard Validation.token(rawValue) else {
            throw CastIntentsError(
                code: .invalidMediaItemType,
                message: "'\(rawValue.prefix(80))' is not a media-item type name (1-64 ASCII letters, digits, '.', '_', '-').")
        }
        self.rawValue = rawValue
    }

    /// Checks that the raw value is well formed.
    /// - Throws: ``CastIntentsError/Code/invalidMediaItemType``.
    public func validate() throws(CastIntentsError) {
        _ = try MediaItemType(validating: rawValue)
    }

    /// Returns this type if this version knows it.
    /// - Throws: ``CastIntentsError/Code/unknownMediaItemType`` for a well-formed unknown type,
    ///   ``CastIntentsError/Code/invalidMediaItemType`` for a malformed one.
    public func validatedAsKnown() throws(CastIntentsError) -> MediaItemType {
        try validate()
        guard isKnown else {
            throw CastIntentsError(
                code: .unknownMediaItemType, message: "The media-item type '\(rawValue)' is not known to this version.")
        }
        return self
    }

    /// A song or other single music track.
    public static let song = MediaItemType(rawValue: "song")
    /// A music album.
    public static let album = MediaItemType(rawValue: "album")
    /// A performing artist.
    public static let artist = MediaItemType(rawValue: "artist")
    /// A music genre.
    public static let genre = MediaItemType(rawValue: "genre")
    /// A user or editorial playlist of music.
    public static let playlist = MediaItemType(rawValue: "playlist")
    /// A podcast show (the container of episodes).
    public static let podcastShow = MediaItemType(rawValue: "podcastShow")
    /// A podcast episode.
    public static let podcastEpisode = MediaItemType(rawValue: "podcastEpisode")
    /// A playlist of podcast episodes.
    public static let podcastPlaylist = MediaItemType(rawValue: "podcastPlaylist")
    /// A podcast station (a continuous stream of episodes).
    public static let podcastStation = MediaItemType(rawValue: "podcastStation")
    /// A music station (generated continuous music).
    public static let musicStation = MediaItemType(rawValue: "musicStation")
    /// An audiobook.
    public static let audiobook = MediaItemType(rawValue: "audiobook")
    /// A live radio station.
    public static let radioStation = MediaItemType(rawValue: "radioStation")
    /// A news programme or briefing (audio).
    public static let news = MediaItemType(rawValue: "news")
    /// A feature film.
    public static let movie = MediaItemType(rawValue: "movie")
    /// A TV show (the container of episodes).
    public static let tvShow = MediaItemType(rawValue: "tvShow")
    /// A TV episode.
    public static let tvEpisode = MediaItemType(rawValue: "tvEpisode")
    /// A music video.
    public static let musicVideo = MediaItemType(rawValue: "musicVideo")
    /// A video podcast episode.
    public static let videoPodcastEpisode = MediaItemType(rawValue: "videoPodcastEpisode")

    /// Every type this version knows.
    public static let allKnown: [MediaItemType] = [
        .song, .album, .artist, .genre, .playlist, .podcastShow, .podcastEpisode, .podcastPlaylist,
        .podcastStation, .musicStation, .audiobook, .radioStation, .news,
        .movie, .tvShow, .tvEpisode, .musicVideo, .videoPodcastEpisode,
    ]
    private static let videoTypes: Set<MediaItemType> = [.movie, .tvShow, .tvEpisode, .musicVideo, .videoPodcastEpisode]
    private static let knownSet = Set(allKnown)

    /// Whether this version knows the type.
    public var isKnown: Bool { Self.knownSet.contains(self) }

    /// Whether the content is audio, video, or unknown (for a type this version does not know).
    ///
    /// The kind decides how a play request is handled: audio plays in the background
    /// (``PlayMediaIntentResponse/handleInApp(_:)``), video brings the app to the foreground
    /// (``PlayMediaIntentResponse/continueInApp(_:)``).
    public var mediaKind: MediaKind? {
        guard isKnown else { return nil }
        return Self.videoTypes.contains(self) ? .video : .audio
    }

    /// Decodes a type, accepting any well-formed raw value (known or not).
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(validating: raw)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    /// Encodes the raw value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }
}

/// Whether media content is heard or watched.
public struct MediaKind: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Sendable, Hashable { case audio, video }
    private let base: Base
    private init(_ base: Base) { self.base = base }
    /// Audio content: plays in the background.
    public static let audio = MediaKind(.audio)
    /// Video content: plays with the app in the foreground.
    public static let video = MediaKind(.video)
    /// `audio` or `video`.
    public var description: String { base.rawValue }
}
