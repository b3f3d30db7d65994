package import CastJSON

// The hand-written model decoders of CastMetadata and CastMedia read a parsed `JSONValue` tree with these
// helpers instead of going through Codable: no generic dispatch over `Decodable`, no coding paths, no
// existential errors. The rules match `JSONDecoder`'s defaults, so `init(json:)` and the Codable path
// (which delegates to it) give the same results: a string only from a string, a `Double` only from a
// number, an `Int` only from a number it represents exactly, a `Bool` only from `true`/`false`.

extension JSONValue {
    /// The number as an `Int` when it represents one exactly (`JSONDecoder`'s rule for integers).
    package var exactInt: Int? {
        guard case .number(let number) = self else { return nil }
        return Int(exactly: number)
    }
}

/// The members a model reads: an `Int`-backed enumeration whose case names (or coding-key string values)
/// are the wire names, in order. A model's `CodingKeys` can be one, so encoding and decoding share the names.
///
/// ```swift
/// private enum CodingKeys: Int, CodingKey, JSONMemberKey {
///     case url, width, height
///     static let table = JSONKeyTable(CodingKeys.self)
/// }
/// ```
package protocol JSONMemberKey: RawRepresentable, CaseIterable where RawValue == Int {
    /// The wire names, indexed by raw value.
    static var table: JSONKeyTable { get }
}

/// The wire names of a ``JSONMemberKey``, with their UTF-8 lengths so matching a member name costs an
/// integer comparison per candidate and one string comparison, not a hash.
package struct JSONKeyTable: Sendable {
    /// The names, indexed by raw value.
    package let names: [String]
    private let lengths: [Int]

    /// The table of `Key`: its case names, in raw-value order (which must be 0, 1, 2…).
    package init<Key: JSONMemberKey>(_ type: Key.Type) {
        var names: [String] = []
        for (index, key) in Key.allCases.enumerated() {
            precondition(key.rawValue == index, "\(Key.self) raw values must be 0, 1, 2…")
            names.append((key as? any CodingKey)?.stringValue ?? String(describing: key))
        }
        self.names = names
        lengths = names.map(\.utf8.count)
    }

    /// The position of `name`; `nil` when it is not in the table.
    package func index(of name: String) -> Int? {
        let length = name.utf8.count
        for index in lengths.indices where lengths[index] == length && names[index] == name { return index }
        return nil
    }
}

/// The members of one JSON object, read by a hand-written decoder in one pass over the object.
///
/// The lenient accessors (``string(_:)``, ``int(_:)``…) return `nil` for a missing member, `null` or a value
/// of another type; the `strict` ones return `nil` for a missing member or `null` and throw for another
/// type (the behaviour of a synthesized `Decodable` with optional properties).
package struct JSONObjectReader<Key: JSONMemberKey> {
    /// The value of each known member by raw value of its key; `null` when missing.
    @usableFromInline let slots: [JSONValue]
    /// The members not named by `Key` (collected only when asked for).
    package let unknownMembers: [String: JSONValue]
    /// The type being decoded, for error messages.
    @usableFromInline let typeName: StaticString

    /// Reads `json`, which must be an object.
    /// - Parameter keepingUnknown: whether to collect the members `Key` does not name in ``unknownMembers``.
    /// - Throws: `JSONError` (`typeMismatch`) for any other value.
    package init(_ json: JSONValue, decoding typeName: StaticString, keepingUnknown: Bool = false) throws(JSONError) {
        guard case .object(let members) = json else {
            throw JSONError(code: .typeMismatch, message: "\(typeName) must be a JSON object, not \(json.shortDescription)")
        }
        let table = Key.table
        var slots = [JSONValue](repeating: .null, count: table.names.count)
        var unknown: [String: JSONValue] = [:]
        for (name, value) in members {
            if let index = table.index(of: name) {
                slots[index] = value
            } else if keepingUnknown {
                unknown[name] = value
            }
        }
        self.slots = slots
        self.unknownMembers = unknown
        self.typeName = typeName
    }

    /// The member `key`; `nil` when missing or `null`.
    @inlinable package subscript(key: Key) -> JSONValue? {
        let value = slots[key.rawValue]
        if case .null = value { return nil }
        return value
    }

    /// The string member `key`; `nil` when missing or not a string.
    @inlinable package func string(_ key: Key) -> String? {
        if case .string(let value) = slots[key.rawValue] { return value }
        return nil
    }

    /// The number member `key`; `nil` when missing or not a number.
    @inlinable package func double(_ key: Key) -> Double? {
        if case .number(let value) = slots[key.rawValue] { return value }
        return nil
    }

    /// The integer member `key`; `nil` when missing or not an exact integer.
    @inlinable package func int(_ key: Key) -> Int? {
        if case .number(let value) = slots[key.rawValue] { return Int(exactly: value) }
        return nil
    }

    /// The Boolean member `key`; `nil` when missing or not a Boolean.
    @inlinable package func bool(_ key: Key) -> Bool? {
        if case .bool(let value) = slots[key.rawValue] { return value }
        return nil
    }

    /// The array of integers `key`; `nil` when missing, not an array, or when any element is not an exact integer.
    package func ints(_ key: Key) -> [Int]? {
        guard case .array(let elements) = slots[key.rawValue] else { return nil }
        var result: [Int] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = element.exactInt else { return nil }
            result.append(value)
        }
        return result
    }

    /// The array of strings `key`; `nil` when missing, not an array, or when any element is not a string.
    package func strings(_ key: Key) -> [String]? {
        guard case .array(let elements) = slots[key.rawValue] else { return nil }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let value) = element else { return nil }
            result.append(value)
        }
        return result
    }

    /// The integer member `key`, which must be present.
    /// - Throws: `JSONError` (`typeMismatch`) when missing, `null` or not an exact integer.
    package func requiredInt(_ key: Key) throws(JSONError) -> Int {
        guard let value = int(key) else { throw mismatch(key, expected: "an integer") }
        return value
    }

    /// The number member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type.
    package func strictDouble(_ key: Key) throws(JSONError) -> Double? {
        try strict(key, expected: "a number") { $0.doubleValue }
    }

    /// The integer member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type or an inexact number.
    package func strictInt(_ key: Key) throws(JSONError) -> Int? {
        try strict(key, expected: "an integer") { $0.exactInt }
    }

    /// The Boolean member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type.
    package func strictBool(_ key: Key) throws(JSONError) -> Bool? {
        try strict(key, expected: "a Boolean") { $0.boolValue }
    }

    /// The string member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type.
    package func strictString(_ key: Key) throws(JSONError) -> String? {
        try strict(key, expected: "a string") { $0.stringValue }
    }

    /// Member `key` as read by `extract`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`, naming `expected`) when `extract` finds no value.
    private func strict<Value>(_ key: Key, expected: String, _ extract: (JSONValue) -> Value?) throws(JSONError) -> Value? {
        guard let value = self[key] else { return nil }
        guard let extracted = extract(value) else { throw mismatch(key, expected: expected) }
        return extracted
    }

    /// The error for member `key` not being what was expected.
    package func mismatch(_ key: Key, expected: String) -> JSONError {
        JSONError(code: .typeMismatch,
                  message: "\(typeName).\(Key.table.names[key.rawValue]) must be \(expected), not \(slots[key.rawValue].shortDescription)")
    }
}

extension JSONValue {
    /// The value's JSON text, cut to 80 characters, for error messages.
    package var shortDescription: String {
        let text = serialized()
        return text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }
}

/// The `init(from:)` of a model with a hand-written `init(json:)`: reads the value as a ``JSONValue`` from any
/// decoder and hands it over, so there is one decoding implementation per type.
/// - Throws: `DecodingError.dataCorrupted` (with the `JSONError` as underlying error) when `make` fails.
package func decodeThroughJSON<Model>(
    _ decoder: any Decoder, _ make: (JSONValue) throws(JSONError) -> Model
) throws -> Model {
    let json = try JSONValue(from: decoder)
    do {
        return try make(json)
    } catch {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
    }
}
