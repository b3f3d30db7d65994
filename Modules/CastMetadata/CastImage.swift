import Foundation

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

    private enum CodingKeys: String, CodingKey { case url, width, height }

    /// Decodes `{url, width?, height?}`; a size that is not a whole number is ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .url)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: "Invalid image URL '\(text)'")
        }
        self.url = url
        width = (try? container.decodeIfPresent(Int.self, forKey: .width)) ?? nil
        height = (try? container.decodeIfPresent(Int.self, forKey: .height)) ?? nil
    }

    /// Encodes `{url, width?, height?}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url.absoluteString, forKey: .url)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
    }
}
