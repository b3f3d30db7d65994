import Foundation

/// A piece of media content or a container of content: a podcast episode, a show, a playlist, a movie...
///
/// The Linux counterpart of SiriKit's `INMediaItem`. Values are validated when created (and when
/// decoded), so a `MediaItem` that exists is always well formed:
/// - ``identifier``: 1 to ``maximumIdentifierLength`` UTF-8 bytes, no control characters;
/// - ``title``: `nil`, or 1 to ``maximumTitleLength`` characters that are not all white space;
/// - ``type``: a well-formed type name, known or not (see ``MediaItemType``);
/// - ``artworkURL``: an absolute URL with a scheme;
/// - ``containerIdentifier``: like ``identifier``, naming the show, album or playlist holding the item.
public struct MediaItem: Sendable, Hashable, Codable {
    /// The longest identifier accepted, in UTF-8 bytes: 512.
    public static let maximumIdentifierLength = 512
    /// The longest title accepted, in characters (extended grapheme clusters): 1 000.
    ///
    /// Long enough for any real episode or track title, short enough that a suggestion list
    /// of ``CastIntentStoreLimits/maximumSuggestionCount`` intents stays small.
    public static let maximumTitleLength = 1_000

    /// The app's stable identifier of the content.
    public let identifier: String
    /// The title shown to the user.
    public let title: String?
    /// The kind of content.
    public let type: MediaItemType
    /// Where to fetch the artwork.
    public let artworkURL: URL?
    /// The identifier of the container (show, album, playlist) holding this item, if any.
    public let containerIdentifier: String?

    /// Creates a media item.
    /// - Throws: ``CastIntentsError`` with code ``CastIntentsError/Code/emptyIdentifier``,
    ///   ``CastIntentsError/Code/identifierTooLong``, ``CastIntentsError/Code/invalidIdentifier``,
    ///   ``CastIntentsError/Code/emptyTitle``, ``CastIntentsError/Code/titleTooLong``,
    ///   ``CastIntentsError/Code/invalidMediaItemType`` or ``CastIntentsError/Code/invalidArtworkURL``.
    public init(
        identifier: String, title: String? = nil, type: MediaItemType,
        artworkURL: URL? = nil, containerIdentifier: String? = nil
    ) throws(CastIntentsError) {
        try Validation.identifier(identifier, "media item identifier")
        try Validation.title(title)
        try type.validate()
        if let artworkURL {
            guard let scheme = artworkURL.scheme, !scheme.isEmpty, artworkURL.absoluteString.utf8.count <= 8_192 else {
                throw CastIntentsError(
                    code: .invalidArtworkURL,
                    message: "The artwork URL '\(artworkURL.absoluteString.prefix(80))' is not an absolute URL of at most 8192 bytes.")
            }
        }
        if let containerIdentifier {
            try Validation.identifier(containerIdentifier, "container identifier")
        }
        self.identifier = identifier
        self.title = title
        self.type = type
        self.artworkURL = artworkURL
        self.containerIdentifier = containerIdentifier
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, title, type, artworkURL, containerIdentifier
    }

    /// Decodes and validates a media item; invalid values become a `DecodingError` whose
    /// description carries the ``CastIntentsError`` message.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let artwork = try container.decodeIfPresent(String.self, forKey: .artworkURL)
        var url: URL?
        if let artwork {
            guard let parsed = URL(string: artwork) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .artworkURL, in: container, debugDescription: "'\(artwork.prefix(80))' is not a URL.")
            }
            url = parsed
        }
        do {
            try self.init(
                identifier: container.decode(String.self, forKey: .identifier),
                title: container.decodeIfPresent(String.self, forKey: .title),
                type: container.decode(MediaItemType.self, forKey: .type),
                artworkURL: url,
                containerIdentifier: container.decodeIfPresent(String.self, forKey: .containerIdentifier))
        } catch let error as CastIntentsError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the item; absent optional values are omitted.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier, forKey: .identifier)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(artworkURL?.absoluteString, forKey: .artworkURL)
        try container.encodeIfPresent(containerIdentifier, forKey: .containerIdentifier)
    }
}
