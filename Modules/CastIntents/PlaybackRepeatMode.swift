/// How a play request repeats: not at all, the current item, or the whole queue.
///
/// Extensible like ``MediaItemType``: an unknown well-formed raw value read from a newer database
/// is preserved; players treat a mode they do not know as ``none``.
public struct PlaybackRepeatMode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable name stored in databases and JSON.
    public let rawValue: String
    /// Wraps a raw value without checking it.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a raw value after checking it is well formed.
    /// - Throws: ``CastIntentsError/Code/invalidRepeatMode``.
    public init(validating rawValue: String) throws(CastIntentsError) {
        guard Validation.token(rawValue) else {
            throw CastIntentsError(code: .invalidRepeatMode, message: "'\(rawValue.prefix(80))' is not a repeat mode name.")
        }
        self.rawValue = rawValue
    }

    /// Play once, no repetition.
    public static let none = PlaybackRepeatMode(rawValue: "none")
    /// Repeat the current item.
    public static let one = PlaybackRepeatMode(rawValue: "one")
    /// Repeat the whole queue.
    public static let all = PlaybackRepeatMode(rawValue: "all")

    /// Whether this version knows the mode.
    public var isKnown: Bool { self == .none || self == .one || self == .all }

    /// Decodes a mode, accepting any well-formed raw value.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(validating: raw) } catch {
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
