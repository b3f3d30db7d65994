import Foundation

/// A `Decoder` that reads a `Decodable` straight from a ``JSONValue`` tree.
///
/// ``JSONValue/decode(as:decoder:)`` used to serialize the tree to text and parse it again with
/// `JSONDecoder`. This decoder walks the tree instead, with `JSONDecoder`'s default behaviour:
/// `URL` from a string, `Data` from base64, `Date` as seconds since 2001 (deferred to `Date`),
/// `Decimal` from a number, integers only from exact in-range numbers, and the same
/// `DecodingError`s. A `JSONValue` being decoded takes its subtree as is.
struct JSONTreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "Expected an object, found \(value.kind)"))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath, debugDescription: "Expected an array, found \(value.kind)"))
        }
        return UnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    // MARK: Scalars shared by the containers

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, path: @autoclosure () -> [any CodingKey]) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        if T.self == String.self { return try string(value, path()) as! T }
        if T.self == Double.self { return try number(value, Double.self, path()) as! T }
        if T.self == Int.self { return try integer(value, Int.self, path()) as! T }
        if T.self == Bool.self { return try bool(value, path()) as! T }
        if T.self == URL.self {
            let text = try string(value, path())
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        if T.self == Data.self {
            guard let data = Data(base64Encoded: try string(value, path())) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Encountered Data is not valid Base64."))
            }
            return data as! T
        }
        if T.self == Decimal.self {
            guard case .number(let number) = value else { throw mismatch(Decimal.self, value, path()) }
            return Decimal(number) as! T
        }
        return try T(from: JSONTreeDecoder(value, codingPath: path()))
    }

    static func string(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path()) }
        return string
    }

    static func bool(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path()) }
        return bool
    }

    static func number<F: BinaryFloatingPoint>(_ value: JSONValue, _ type: F.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> F {
        guard case .number(let number) = value else { throw mismatch(F.self, value, path()) }
        let converted = F(number)
        guard converted.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "Number \(number) does not fit in \(F.self)."))
        }
        return converted
    }

    static func integer<I: FixedWidthInteger>(_ value: JSONValue, _ type: I.Type, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
        guard case .number(let number) = value else { throw mismatch(I.self, value, path()) }
        guard let integer = I(exactly: number) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "Number \(number) does not fit in \(I.self)."))
        }
        return integer
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path(), debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path(), debugDescription: "Expected to decode \(type) but found \(value.kind) instead."))
    }

    // MARK: Containers

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard case .null = try member(key) else { return false }
            return true
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONTreeDecoder.decode(type, from: try member(key), path: codingPath + [key])
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try JSONTreeDecoder.bool(try member(key), codingPath + [key]) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try JSONTreeDecoder.string(try member(key), codingPath + [key]) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try JSONTreeDecoder.number(try member(key), type, codingPath + [key]) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try JSONTreeDecoder.number(try member(key), type, codingPath + [key]) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try JSONTreeDecoder.integer(try member(key), type, codingPath + [key]) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try JSONTreeDecoder(try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONTreeDecoder(try member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            JSONTreeDecoder(object["super"] ?? .null, codingPath: codingPath + [TreeKey("super")])
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONTreeDecoder(object[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let array: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(array: [JSONValue], codingPath: [any CodingKey]) {
            self.array = array
            self.codingPath = codingPath
        }

        var count: Int? { array.count }
        var isAtEnd: Bool { currentIndex >= array.count }

        private var path: [any CodingKey] { codingPath + [TreeKey(index: currentIndex)] }

        private func next(_ type: Any.Type) throws -> JSONValue {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
            }
            return array[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard case .null = try next(Never.self) else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let value = try JSONTreeDecoder.decode(type, from: try next(type), path: path)
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let container = try JSONTreeDecoder(try next([String: Any].self), codingPath: path).container(keyedBy: type)
            currentIndex += 1
            return container
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let container = try JSONTreeDecoder(try next([Any].self), codingPath: path).unkeyedContainer()
            currentIndex += 1
            return container
        }

        mutating func superDecoder() throws -> any Decoder {
            let decoder = JSONTreeDecoder(try next(Any.self), codingPath: path)
            currentIndex += 1
            return decoder
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            if case .null = value { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONTreeDecoder.decode(type, from: value, path: codingPath)
        }

        func decode(_ type: Bool.Type) throws -> Bool { try JSONTreeDecoder.bool(value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try JSONTreeDecoder.string(value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try JSONTreeDecoder.number(value, type, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try JSONTreeDecoder.number(value, type, codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONTreeDecoder.integer(value, type, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONTreeDecoder.integer(value, type, codingPath) }
    }

    /// A coding key for paths in errors.
    struct TreeKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ string: String) { stringValue = string }
        init(index: Int) {
            stringValue = "Index \(index)"
            intValue = index
        }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) {
            stringValue = "\(intValue)"
            self.intValue = intValue
        }
    }
}

extension JSONValue {
    /// The JSON type name, for error messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a bool"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONDecoder {
    /// Whether this decoder has every default setting, so a tree decode gives the same result.
    var hasDefaultSettings: Bool {
        guard case .useDefaultKeys = keyDecodingStrategy, case .deferredToDate = dateDecodingStrategy,
              case .base64 = dataDecodingStrategy, case .throw = nonConformingFloatDecodingStrategy,
              userInfo.isEmpty, !allowsJSON5
        else { return false }
        return true
    }
}
