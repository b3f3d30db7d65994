public import CastJSON

/// The kind of content a ``CastMetadata`` describes: the receiver adapts its layout to it.
///
/// The wire value is the `metadataType` integer. Unknown values from a receiver are kept as they are.
/// For a radio stream or any audio, use ``musicTrack`` so receivers show the artwork.
public struct CastMetadataType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `metadataType` integer.
    public var rawValue: Int

    /// Creates a type from its wire value (any integer is kept).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `0`: generic media (title, subtitle, release date).
    public static let generic = CastMetadataType(rawValue: 0)
    /// `1`: a movie (title, subtitle, studio, release date).
    public static let movie = CastMetadataType(rawValue: 1)
    /// `2`: a TV show episode (series title, episode title, season, episode, original air date).
    public static let tvShow = CastMetadataType(rawValue: 2)
    /// `3`: a music track (title, artist, album, album artist, composer, track and disc number, release date).
    public static let musicTrack = CastMetadataType(rawValue: 3)
    /// `4`: a photo (title, artist, location, latitude, longitude, width, height, creation date).
    public static let photo = CastMetadataType(rawValue: 4)
    /// `5`: an audiobook chapter (book title, chapter number, chapter title, subtitle, title).
    public static let audiobookChapter = CastMetadataType(rawValue: 5)
    /// `100`: the first value available for application-defined types (`GCKMediaMetadataTypeUser`).
    public static let user = CastMetadataType(rawValue: 100)

    /// The known name, or the number.
    public var description: String {
        switch rawValue {
        case 0: "generic"
        case 1: "movie"
        case 2: "tvShow"
        case 3: "musicTrack"
        case 4: "photo"
        case 5: "audiobookChapter"
        case 100...: "user(\(rawValue))"
        default: "unknown(\(rawValue))"
        }
    }

    /// Reads the integer (a whole-number double such as `3.0` is accepted).
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not a number that is exactly an `Int`.
    public init(json: JSONValue) throws(JSONError) {
        guard let value = json.exactInt else {
            throw JSONError(code: .typeMismatch, message: "metadataType must be an integer, not \(json.shortDescription)")
        }
        rawValue = value
    }

    /// Decodes the integer (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
