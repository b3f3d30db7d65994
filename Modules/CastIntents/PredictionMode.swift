/// How a store predicts content of one media-item type (the Linux `INUpcomingMediaPredictionMode`).
///
/// - ``default``: suggested intents first, then the donation history (see
///   ``CastIntentStore/predictions(for:limit:)`` for the exact rule).
/// - ``onlyPredictSuggestedIntents``: only the suggested intents, so that content the user already
///   heard (a podcast episode) is never offered again unless the app suggests it.
public struct PredictionMode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable name stored in databases.
    public let rawValue: String
    /// Wraps a raw value without checking it.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a raw value after checking it is well formed.
    /// - Throws: ``CastIntentsError/Code/invalidPredictionMode``.
    public init(validating rawValue: String) throws(CastIntentsError) {
        guard Validation.token(rawValue) else {
            throw CastIntentsError(code: .invalidPredictionMode, message: "'\(rawValue.prefix(80))' is not a prediction mode name.")
        }
        self.rawValue = rawValue
    }

    /// Suggestions, then the donation history.
    public static let `default` = PredictionMode(rawValue: "default")
    /// Only the suggested intents.
    public static let onlyPredictSuggestedIntents = PredictionMode(rawValue: "onlyPredictSuggestedIntents")

    /// Whether this version knows the mode. A store treats an unknown mode read from a newer
    /// database as ``onlyPredictSuggestedIntents`` (the conservative choice: it never offers
    /// content the app did not suggest) and reports it unchanged from
    /// ``CastIntentStore/predictionMode(for:)``.
    public var isKnown: Bool { self == .default || self == .onlyPredictSuggestedIntents }

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
