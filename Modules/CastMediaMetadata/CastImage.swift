public import CastJSON
public import Foundation

/// One artwork image: a URL and, optionally, its size in pixels.
///
/// Wire form: `{"url": "...", "width": 480, "height": 360}`.
public struct CastImage: Sendable, Hashable, Codable {
    /// Where the image is. Receivers load only `http` and `https` URLs.
    public var url: URL
    /// The width in pixels, when known.
    public var width: Int?
    /// The height in pixels, when known.
    public var height: Int?

    /// Creates an image.
    public init(url: URL, width: Int? = nil, height: Int? = nil) {
        self.url = url
        self.width = width
        self.height = height
    }

    /// Creates an image from an optional URL, so `CastImage(url: URL(string: text))` reads naturally;
    /// `nil` when the URL is `nil`.
    public init?(url: URL?, width: Int? = nil, height: Int? = nil) {
        guard let url else { return nil }
        self.init(url: url, width: width, height: height)
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case url, width, height
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads `{url, width?, height?}`; a size that is not a whole number is ignored.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or `url` is not a valid URL string.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "CastImage")
        guard let text = reader.string(.url) else { throw reader.mismatch(.url, expected: "a URL string") }
        guard let url = URL(string: text) else {
            throw JSONError(code: .typeMismatch, message: "Invalid image URL '\(text)'")
        }
        self.url = url
        width = reader.int(.width)
        height = reader.int(.height)
    }

    /// Decodes `{url, width?, height?}` (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes `{url, width?, height?}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url.absoluteString, forKey: .url)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
    }
}
