import CastJSON

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

/// The members of one JSON object, read by a hand-written decoder.
///
/// The lenient accessors (``string(_:)``, ``int(_:)``…) return `nil` for a missing member, `null` or a value
/// of another type; the `strict` ones return `nil` for a missing member or `null` and throw for another
/// type (the behaviour of a synthesized `Decodable` with optional properties).
package struct JSONObjectReader {
    /// The members.
    package let members: [String: JSONValue]
    /// The type being decoded, for error messages.
    package let typeName: StaticString

    /// Reads `json`, which must be an object.
    /// - Throws: `JSONError` (`typeMismatch`) for any other value.
    package init(_ json: JSONValue, decoding typeName: StaticString) throws(JSONError) {
        guard case .object(let members) = json else {
            throw JSONError(code: .typeMismatch, message: "\(typeName) must be a JSON object, not \(json.shortDescription)")
        }
        self.members = members
        self.typeName = typeName
    }

    /// The member `key`; `nil` when missing or `null`.
    package subscript(key: String) -> JSONValue? {
        switch members[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    /// The string member `key`; `nil` when missing or not a string.
    package func string(_ key: String) -> String? {
        if case .string(let value)? = members[key] { return value }
        return nil
    }

    /// The number member `key`; `nil` when missing or not a number.
    package func double(_ key: String) -> Double? {
        if case .number(let value)? = members[key] { return value }
        return nil
    }

    /// The integer member `key`; `nil` when missing or not an exact integer.
    package func int(_ key: String) -> Int? {
        members[key]?.exactInt
    }

    /// The Boolean member `key`; `nil` when missing or not a Boolean.
    package func bool(_ key: String) -> Bool? {
        if case .bool(let value)? = members[key] { return value }
        return nil
    }

    /// The array of integers `key`; `nil` when missing, not an array, or when any element is not an exact integer.
    package func ints(_ key: String) -> [Int]? {
        guard case .array(let elements)? = members[key] else { return nil }
        var result: [Int] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = element.exactInt else { return nil }
            result.append(value)
        }
        return result
    }

    /// The array of strings `key`; `nil` when missing, not an array, or when any element is not a string.
    package func strings(_ key: String) -> [String]? {
        guard case .array(let elements)? = members[key] else { return nil }
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
    package func requiredInt(_ key: String) throws(JSONError) -> Int {
        guard let value = members[key]?.exactInt else { throw mismatch(key, expected: "an integer") }
        return value
    }

    /// The number member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type.
    package func strictDouble(_ key: String) throws(JSONError) -> Double? {
        guard let value = self[key] else { return nil }
        guard case .number(let number) = value else { throw mismatch(key, expected: "a number") }
        return number
    }

    /// The integer member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type or an inexact number.
    package func strictInt(_ key: String) throws(JSONError) -> Int? {
        guard let value = self[key] else { return nil }
        guard let integer = value.exactInt else { throw mismatch(key, expected: "an integer") }
        return integer
    }

    /// The Boolean member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type.
    package func strictBool(_ key: String) throws(JSONError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case .bool(let bool) = value else { throw mismatch(key, expected: "a Boolean") }
        return bool
    }

    /// The string member `key`; `nil` when missing or `null`.
    /// - Throws: `JSONError` (`typeMismatch`) for another type.
    package func strictString(_ key: String) throws(JSONError) -> String? {
        guard let value = self[key] else { return nil }
        guard case .string(let string) = value else { throw mismatch(key, expected: "a string") }
        return string
    }

    /// The members whose names are not in `known`, for round-tripping fields a model does not have.
    package func unknownMembers(known: Set<String>) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, value) in members where !known.contains(key) { result[key] = value }
        return result
    }

    /// The error for member `key` not being what was expected.
    package func mismatch(_ key: String, expected: String) -> JSONError {
        let found = members[key].map(\.shortDescription) ?? "missing"
        return JSONError(code: .typeMismatch, message: "\(typeName).\(key) must be \(expected), not \(found)")
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
