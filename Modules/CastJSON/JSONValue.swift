import Foundation

/// A JSON document as a `Sendable` value.
///
/// Cast payloads are JSON objects. Castor keeps what it does not model (custom data,
/// unknown fields, the media a sender loaded) as a `JSONValue`, so nothing a peer sent is lost
/// and an emulated receiver can echo it verbatim.
///
/// ```swift
/// let ping: JSONValue = ["type": "PING"]
/// ping["type"]?.stringValue // "PING"
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number. JSON has one number type; integers up to 2^53 are exact.
    case number(Double)
    /// A string.
    case string(String)
    /// An ordered array.
    case array([JSONValue])
    /// An object. Key order is not significant.
    case object([String: JSONValue])
}

// MARK: - Accessors

extension JSONValue {
    /// The string, when this value is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, when this value is a number.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when this value is a number with no fractional part that fits an `Int`.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded() == value,
            value >= -9_007_199_254_740_992, value <= 9_007_199_254_740_992
        else { return nil }
        return Int(value)
    }

    /// The Boolean, when this value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this value is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this value is `null`.
    public var isNull: Bool { self == .null }

    /// The member named `key` of an object; `nil` for a missing key or a value that is not an object.
    ///
    /// Setting a member of a non-object turns the value into an object holding only that member;
    /// setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            var members: [String: JSONValue] = [:]
            if case .object(let existing) = self {
                // Taken out of `self` first, so the dictionary has one owner and is changed in place
                // (kept in `self` meanwhile, every member set copied the whole dictionary).
                members = existing
                self = .null
            }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates a number from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a number from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an object value. A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// Creates a number from an integer.
    public init(_ value: Int) { self = .number(Double(value)) }
    /// Creates a number.
    public init(_ value: Double) { self = .number(value) }
    /// Creates a string.
    public init(_ value: String) { self = .string(value) }
    /// Creates a Boolean.
    public init(_ value: Bool) { self = .bool(value) }
}
