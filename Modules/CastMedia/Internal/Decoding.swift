import CastJSON

/// A coding key for any member name.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer {
    /// The value when present and of the right type; `nil` otherwise (tolerant decoding: a receiver's odd
    /// field never fails a whole status).
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}

/// Members of an object that are not among `known`, for round-tripping fields Castor does not model.
func unknownMembers(from decoder: any Decoder, known: Set<String>) -> [String: JSONValue] {
    guard let container = try? decoder.container(keyedBy: AnyCodingKey.self) else { return [:] }
    var result: [String: JSONValue] = [:]
    for key in container.allKeys where !known.contains(key.stringValue) {
        if let value = try? container.decode(JSONValue.self, forKey: key) { result[key.stringValue] = value }
    }
    return result
}

/// Writes `members` next to the modelled fields.
func encodeUnknown(_ members: [String: JSONValue], to encoder: any Encoder) throws {
    guard !members.isEmpty else { return }
    var container = encoder.container(keyedBy: AnyCodingKey.self)
    for (key, value) in members { try container.encode(value, forKey: AnyCodingKey(key)) }
}

/// Decodes a `T` or keeps `nil`, so one bad element does not fail an array.
struct Lenient<T: Decodable>: Decodable {
    let value: T?
    init(from decoder: any Decoder) throws {
        value = try? T(from: decoder)
    }
}
