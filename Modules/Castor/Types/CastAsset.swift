public import CastMedia
public import CastMediaMetadata
public import Foundation

/// Hints the receiver needs to play a URL.
public struct CastAssetURLConfiguration: Sendable, Hashable, Codable {
    /// The MIME type (`video/mp4`, `application/x-mpegurl`...).
    public var mimeType: String
    /// The HLS audio segment format, if any.
    public var hlsAudioSegmentFormat: HLSSegmentFormat?
    /// The HLS video segment format, if any.
    public var hlsVideoSegmentFormat: HLSVideoSegmentFormat?
    /// Whether the stream is live.
    public var isLive: Bool
    /// The stream's duration in seconds, when known (it gives on-demand items a seekable range).
    public var duration: Double?

    /// Creates a configuration.
    public init(mimeType: String, hlsAudioSegmentFormat: HLSSegmentFormat? = nil,
                hlsVideoSegmentFormat: HLSVideoSegmentFormat? = nil, isLive: Bool = false, duration: Double? = nil) {
        self.mimeType = mimeType
        self.hlsAudioSegmentFormat = hlsAudioSegmentFormat
        self.hlsVideoSegmentFormat = hlsVideoSegmentFormat
        self.isLive = isLive
        self.duration = duration
    }
}

/// What to load: an entity, an identifier, or a URL, with metadata and custom data.
///
/// Content identifiers and entities are the recommended sender–receiver contract; URLs need a
/// MIME type so the receiver knows how to play them.
public struct CastAsset: Sendable, Hashable, Codable {
    /// The kinds of asset.
    public enum Kind: Sendable, Hashable, Codable {
        /// A deep-link entity the receiver resolves.
        case entity(String)
        /// A content identifier the receiver resolves.
        case identifier(String)
        /// A URL played as is.
        case url(URL, configuration: CastAssetURLConfiguration)
    }

    /// What the asset is.
    public var kind: Kind
    /// Title and artwork.
    public var metadata: CastMetadata?
    /// Application data for the receiver.
    public var customData: CastCustomData?
    /// The asset's audio, video and text tracks (subtitles), kept so a resume loads them again.
    public var tracks: [MediaTrack]?

    /// An entity asset.
    public static func entity(_ entity: String, metadata: CastMetadata? = nil, customData: CastCustomData? = nil) -> Self {
        Self(kind: .entity(entity), metadata: metadata, customData: customData)
    }

    /// An identifier asset.
    public static func identifier(_ identifier: String, metadata: CastMetadata? = nil, customData: CastCustomData? = nil) -> Self {
        Self(kind: .identifier(identifier), metadata: metadata, customData: customData)
    }

    /// A URL asset.
    public static func url(_ url: URL, configuration: CastAssetURLConfiguration, metadata: CastMetadata? = nil,
                           customData: CastCustomData? = nil) -> Self {
        Self(kind: .url(url, configuration: configuration), metadata: metadata, customData: customData)
    }

    /// Creates an asset.
    public init(kind: Kind, metadata: CastMetadata? = nil, customData: CastCustomData? = nil) {
        self.kind = kind
        self.metadata = metadata
        self.customData = customData
    }

    /// The media information sent to the receiver.
    public var mediaInformation: MediaInformation {
        var media: MediaInformation
        switch kind {
        case .entity(let entity):
            media = MediaInformation(contentId: entity, contentType: "", streamType: .buffered)
            media.entity = entity
        case .identifier(let identifier):
            media = MediaInformation(contentId: identifier, contentType: "", streamType: .buffered)
        case .url(let url, let configuration):
            media = MediaInformation(contentId: url.absoluteString, contentType: configuration.mimeType,
                                     streamType: configuration.isLive ? .live : .buffered)
            media.contentUrl = url.absoluteString
            media.hlsSegmentFormat = configuration.hlsAudioSegmentFormat
            media.hlsVideoSegmentFormat = configuration.hlsVideoSegmentFormat
            media.duration = configuration.duration
        }
        media.metadata = metadata
        media.customData = customData
        media.tracks = tracks
        return media
    }

    /// Reads an asset back from the receiver's media information.
    public init(media: MediaInformation) {
        if let entity = media.entity, !entity.isEmpty {
            kind = .entity(entity)
        } else if let url = URL(string: media.contentUrl ?? media.contentId), url.scheme != nil, !media.contentType.isEmpty {
            kind = .url(url, configuration: CastAssetURLConfiguration(
                mimeType: media.contentType, hlsAudioSegmentFormat: media.hlsSegmentFormat,
                hlsVideoSegmentFormat: media.hlsVideoSegmentFormat, isLive: media.streamType == .live,
                duration: media.duration))
        } else {
            kind = .identifier(media.contentId)
        }
        metadata = media.metadata
        customData = media.customData
        tracks = media.tracks
    }
}
