public import CastJSON
public import Foundation

/// Application data exchanged with a receiver app, as typed JSON (`customData`).
///
/// ```swift
/// struct Analytics: Codable { var campaign: String }
/// let data = try CastCustomData(encoding: Analytics(campaign: "spring"))
/// let back = try data.decoded(as: Analytics.self)
/// ```
///
/// Keep it small: it travels in the same message as the request, and a Cast message is limited to
/// 64 KiB (see ``CastMessageSize``).
public struct CastCustomData: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The JSON value.
    public var json: JSONValue

    /// Wraps a JSON value; any value is valid custom data.
    public init(_ json: JSONValue) {
        self.json = json
    }

    /// Encodes any `Encodable` value as custom data.
    /// - Throws: `JSONError` (`unencodable`).
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws(JSONError) {
        self.json = try JSONValue(encoding: value, encoder: encoder)
    }

    /// Decodes the custom data as any `Decodable` type.
    /// - Throws: `JSONError` (`typeMismatch`) when the shape differs.
    public func decoded<T: Decodable>(as type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws(JSONError) -> T {
        try json.decode(as: type, decoder: decoder)
    }

    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        get { json[key] }
        set { json[key] = newValue }
    }

    /// Decodes any JSON value (the same as ``init(_:)``, which is the hand-written decoder: it cannot fail).
    public init(from decoder: any Decoder) throws {
        self.init(try JSONValue(from: decoder))
    }

    /// Encodes the JSON value.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// The compact JSON text.
    public var description: String { json.serialized() }
}

extension CastCustomData: ExpressibleByDictionaryLiteral {
    /// Creates an object.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.json = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension Encodable {
    /// This value as ``CastCustomData``.
    /// - Throws: `JSONError` (`unencodable`).
    public func encodedAsCustomData(using encoder: JSONEncoder = JSONEncoder()) throws(JSONError) -> CastCustomData {
        try CastCustomData(encoding: self, encoder: encoder)
    }
}
