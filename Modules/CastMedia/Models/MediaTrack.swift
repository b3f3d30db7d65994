public import CastJSON
public import CastMediaMetadata
public import Foundation

/// One track of a media item: a text, audio or video stream (`GCKMediaTrack`).
///
/// ```swift
/// let captions = MediaTrack.text(id: 1, subtype: .subtitles, contentId: "https://host/en.vtt",
///                                contentType: "text/vtt", name: "English", language: "en-US")
/// ```
public struct MediaTrack: Sendable, Hashable, Codable, Identifiable {
    /// The kind of a track (`type`).
    public struct Kind: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Subtitles, captions and other timed text.
        public static let text = Kind(rawValue: "TEXT")
        /// An audio stream.
        public static let audio = Kind(rawValue: "AUDIO")
        /// A video stream.
        public static let video = Kind(rawValue: "VIDEO")
    }

    /// The role of a text track (`subtype`).
    public struct TextSubtype: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Translation of the dialogue (needs a language).
        public static let subtitles = TextSubtype(rawValue: "SUBTITLES")
        /// Transcription for the deaf and hard of hearing.
        public static let captions = TextSubtype(rawValue: "CAPTIONS")
        /// Descriptions of the video.
        public static let descriptions = TextSubtype(rawValue: "DESCRIPTIONS")
        /// Chapter titles.
        public static let chapters = TextSubtype(rawValue: "CHAPTERS")
        /// Metadata for scripts.
        public static let metadata = TextSubtype(rawValue: "METADATA")
    }

    /// The track id, unique within the media (`trackId`).
    public var trackId: Int
    /// The kind of track.
    public var type: Kind
    /// The role of a text track.
    public var subtype: TextSubtype?
    /// The URL or id of the track content (`trackContentId`).
    public var contentId: String?
    /// The MIME type of the track content (`trackContentType`), such as `text/vtt`.
    public var contentType: String?
    /// The name shown to users.
    public var name: String?
    /// The RFC 5646 language tag, such as `en-US` (required for subtitles).
    public var language: String?
    /// Application data.
    public var customData: CastCustomData?
    /// Whether the track is carried in the media stream itself.
    public var isInband: Bool?
    /// The roles of the track (DASH `Role` values).
    public var roles: [String]?

    /// The track id.
    public var id: Int { trackId }

    /// Creates a track.
    public init(trackId: Int, type: Kind, subtype: TextSubtype? = nil, contentId: String? = nil,
                contentType: String? = nil, name: String? = nil, language: String? = nil,
                customData: CastCustomData? = nil, isInband: Bool? = nil, roles: [String]? = nil) {
        self.trackId = trackId
        self.type = type
        self.subtype = subtype
        self.contentId = contentId
        self.contentType = contentType
        self.name = name
        self.language = language
        self.customData = customData
        self.isInband = isInband
        self.roles = roles
    }

    /// A text track (subtitles, captions…).
    public static func text(id: Int, subtype: TextSubtype = .subtitles, contentId: String, contentType: String = "text/vtt",
                            name: String? = nil, language: String?) -> MediaTrack {
        MediaTrack(trackId: id, type: .text, subtype: subtype, contentId: contentId, contentType: contentType,
                   name: name, language: language)
    }

    /// An audio track.
    public static func audio(id: Int, name: String? = nil, language: String? = nil, contentId: String? = nil) -> MediaTrack {
        MediaTrack(trackId: id, type: .audio, contentId: contentId, name: name, language: language)
    }

    /// A video track.
    public static func video(id: Int, name: String? = nil, contentId: String? = nil) -> MediaTrack {
        MediaTrack(trackId: id, type: .video, contentId: contentId, name: name)
    }

    /// The language code alone (`en` for `en-US`), when a language is set.
    public var languageCode: String? {
        language.flatMap { $0.split(separator: "-").first.map(String.init) }
    }

    /// The name to show: the track's name, else the language's name in `locale`, else the language tag.
    public func displayName(locale: Locale = .current) -> String? {
        if let name, !name.isEmpty { return name }
        guard let language else { return nil }
        return locale.localizedString(forIdentifier: language) ?? language
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case trackId, type, subtype, trackContentId, trackContentType, name, language, customData, isInband, roles
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads a track; `trackId` is required, a missing type reads as TEXT, other members of the wrong type
    /// read as absent.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or `trackId` is not an integer.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "MediaTrack")
        trackId = try reader.requiredInt(.trackId)
        type = reader.enumeration(.type) ?? .text
        subtype = reader.enumeration(.subtype)
        contentId = reader.string(.trackContentId)
        contentType = reader.string(.trackContentType)
        name = reader.string(.name)
        language = reader.string(.language)
        customData = reader[.customData].map(CastCustomData.init)
        isInband = reader.bool(.isInband)
        roles = reader.strings(.roles)
    }

    /// Decodes a track (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the track with the wire names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(trackId, forKey: .trackId)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(subtype, forKey: .subtype)
        try container.encodeIfPresent(contentId, forKey: .trackContentId)
        try container.encodeIfPresent(contentType, forKey: .trackContentType)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(language, forKey: .language)
        try container.encodeIfPresent(customData, forKey: .customData)
        try container.encodeIfPresent(isInband, forKey: .isInband)
        try container.encodeIfPresent(roles, forKey: .roles)
    }
}
