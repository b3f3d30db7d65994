public import CastJSON
public import CastMediaMetadata

/// What to play: a URL or id, its type, metadata and tracks (`GCKMediaInformation`, the `media` object).
///
/// ```swift
/// var media = MediaInformation(contentId: "https://host/a.mp4", contentType: "video/mp4")
/// media.metadata = CastMetadata(title: "Big Buck Bunny", metadataType: .movie)
/// ```
/// Fields Castor does not model (ad breaks, user action states…) are kept in ``additionalFields``.
public struct MediaInformation: Sendable, Hashable, Codable {
    /// The content id, usually its URL (`contentId`).
    public var contentId: String
    /// The real URL when ``contentId`` is not one (`contentUrl`).
    public var contentUrl: String?
    /// The MIME type (`contentType`).
    public var contentType: String
    /// How the media is delivered.
    public var streamType: StreamType
    /// The duration in seconds, when known.
    public var duration: Double?
    /// Title, artwork and the rest.
    public var metadata: CastMetadata?
    /// The text, audio and video tracks.
    public var tracks: [MediaTrack]?
    /// The style of text tracks.
    public var textTrackStyle: TextTrackStyle?
    /// Application data.
    public var customData: CastCustomData?
    /// The format of HLS audio segments.
    public var hlsSegmentFormat: HLSSegmentFormat?
    /// The format of HLS video segments.
    public var hlsVideoSegmentFormat: HLSVideoSegmentFormat?
    /// A deep-link entity (`entity`).
    public var entity: String?
    /// Audio, video or image.
    public var mediaCategory: MediaCategory?
    /// For live streams, the start as seconds since the epoch (`startAbsoluteTime`).
    public var startAbsoluteTime: Double?
    /// Every other member of the `media` object, kept for round trips.
    public var additionalFields: [String: JSONValue]

    /// Creates media information.
    public init(contentId: String, contentUrl: String? = nil, contentType: String, streamType: StreamType = .buffered,
                duration: Double? = nil, metadata: CastMetadata? = nil, tracks: [MediaTrack]? = nil,
                textTrackStyle: TextTrackStyle? = nil, customData: CastCustomData? = nil,
                hlsSegmentFormat: HLSSegmentFormat? = nil, hlsVideoSegmentFormat: HLSVideoSegmentFormat? = nil,
                entity: String? = nil, mediaCategory: MediaCategory? = nil, startAbsoluteTime: Double? = nil,
                additionalFields: [String: JSONValue] = [:]) {
        self.contentId = contentId
        self.contentUrl = contentUrl
        self.contentType = contentType
        self.streamType = streamType
        self.duration = duration
        self.metadata = metadata
        self.tracks = tracks
        self.textTrackStyle = textTrackStyle
        self.customData = customData
        self.hlsSegmentFormat = hlsSegmentFormat
        self.hlsVideoSegmentFormat = hlsVideoSegmentFormat
        self.entity = entity
        self.mediaCategory = mediaCategory
        self.startAbsoluteTime = startAbsoluteTime
        self.additionalFields = additionalFields
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case contentId, contentUrl, contentType, streamType, duration, metadata, tracks, textTrackStyle, customData,
            hlsSegmentFormat, hlsVideoSegmentFormat, entity, mediaCategory, startAbsoluteTime
        static let table = JSONKeyTable(CodingKeys.self)
    }

    private static let knownKeys = Set(CodingKeys.table.names)

    /// Reads the `media` object. Missing `contentId`/`contentType` read as empty strings, a missing
    /// `streamType` as BUFFERED, so a receiver's sparse status never fails; a member of the wrong type reads
    /// as absent (for `tracks`, one unreadable track drops the list). Unknown members go to ``additionalFields``.
    /// - Throws: `JSONError` (`typeMismatch`) only when the value is not an object.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "MediaInformation", keepingUnknown: true)
        contentId = reader.string(.contentId) ?? ""
        contentUrl = reader.string(.contentUrl)
        contentType = reader.string(.contentType) ?? ""
        streamType = reader.enumeration(.streamType) ?? .buffered
        duration = reader.double(.duration)
        metadata = reader.model(.metadata, CastMetadata.init(json:))
        tracks = reader.models(.tracks, MediaTrack.init(json:))
        textTrackStyle = reader.model(.textTrackStyle, TextTrackStyle.init(json:))
        customData = reader[.customData].map(CastCustomData.init)
        hlsSegmentFormat = reader.enumeration(.hlsSegmentFormat)
        hlsVideoSegmentFormat = reader.enumeration(.hlsVideoSegmentFormat)
        entity = reader.string(.entity)
        mediaCategory = reader.enumeration(.mediaCategory)
        startAbsoluteTime = reader.double(.startAbsoluteTime)
        additionalFields = reader.unknownMembers
    }

    /// Decodes the `media` object (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the `media` object with the wire names.
    public func encode(to encoder: any Encoder) throws {
        try encodeUnknown(additionalFields.filter { !Self.knownKeys.contains($0.key) }, to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(contentId, forKey: .contentId)
        try container.encodeIfPresent(contentUrl, forKey: .contentUrl)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(streamType, forKey: .streamType)
        try container.encodeIfPresent(duration, forKey: .duration)
        try container.encodeIfPresent(metadata, forKey: .metadata)
        try container.encodeIfPresent(tracks, forKey: .tracks)
        try container.encodeIfPresent(textTrackStyle, forKey: .textTrackStyle)
        try container.encodeIfPresent(customData, forKey: .customData)
        try container.encodeIfPresent(hlsSegmentFormat, forKey: .hlsSegmentFormat)
        try container.encodeIfPresent(hlsVideoSegmentFormat, forKey: .hlsVideoSegmentFormat)
        try container.encodeIfPresent(entity, forKey: .entity)
        try container.encodeIfPresent(mediaCategory, forKey: .mediaCategory)
        try container.encodeIfPresent(startAbsoluteTime, forKey: .startAbsoluteTime)
    }
}
