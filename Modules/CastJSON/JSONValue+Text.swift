import Foundation

/// Why a text or a value could not be turned into JSON.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable { case malformed, notAnObject, typeMismatch, unencodable }
        private let base: Base
        /// The text is not valid JSON.
        public static let malformed = Code(base: .malformed)
        /// The text is valid JSON but not an object where an object is required.
        public static let notAnObject = Code(base: .notAnObject)
        /// The JSON does not have the shape of the requested type.
        public static let typeMismatch = Code(base: .typeMismatch)
        /// The value could not be encoded as JSON (for example a NaN).
        public static let unencodable = Code(base: .unencodable)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

extension JSONValue {
    /// Parses JSON text.
    /// - Throws: ``JSONError`` with code ``JSONError/Code/malformed`` when the text is not JSON.
    public init(parsing text: String) throws(JSONError) {
        // Straight from the string's UTF-8 storage: no copy into a `Data` first.
        self = try JSONParser.parse(text.utf8)
    }

    /// Why `text` is not JSON, in words (``JSONError/message``: what was found and at which byte, such
    /// as nesting deeper than the parser's limit); `nil` when it is JSON. For error messages of callers
    /// that read a payload without keeping the parser's error.
    package static func parseFailure(of text: String) -> String? {
        do {
            _ = try JSONValue(parsing: text)
            return nil
        } catch {
            return error.message
        }
    }

    /// Parses JSON bytes (UTF-8).
    /// - Throws: ``JSONError`` with code ``JSONError/Code/malformed`` when the bytes are not JSON.
    public init(parsing data: Data) throws(JSONError) {
        self = try JSONParser.parse(data)
    }

    /// Encodes any `Encodable` as a JSON value.
    /// - Throws: ``JSONError`` with code ``JSONError/Code/unencodable``.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws(JSONError) {
        if let json = value as? JSONValue {
            self = json
            return
        }
        do {
            self = try JSONParser.parse(try encoder.encode(value))
        } catch {
            throw JSONError(code: .unencodable, message: "Cannot encode \(type(of: value)): \(Self.summary(of: error))")
        }
    }

    /// Decodes this value as a `Decodable` type.
    /// - Throws: ``JSONError`` with code ``JSONError/Code/typeMismatch`` when the shape differs.
    public func decode<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(JSONError) -> T {
        do {
            // Default settings: walk the tree (no text round trip); otherwise honour the decoder's strategies.
            if decoder.hasDefaultSettings { return try JSONTreeDecoder.decode(T.self, from: self, path: []) }
            return try decoder.decode(T.self, from: serializedData())
        } catch {
            throw JSONError(code: .typeMismatch, message: "Cannot decode \(T.self): \(Self.summary(of: error))")
        }
    }

    /// The compact JSON text of this value, with sorted keys so equal values give equal text.
    public func serialized() -> String {
        var output = JSONOutput(capacity: 256)
        write(into: &output)
        return output.string
    }

    /// The compact JSON text of this object with its member `key` set to `value`: what
    /// `var copy = self; copy[key] = value; return copy.serialized()` returns, without copying the
    /// members (a sender adds the `requestId` to every request it sends this way).
    package func serialized(setting key: String, to value: JSONValue) -> String {
        guard case .object(let members) = self else {
            var copy = self
            copy[key] = value
            return copy.serialized()
        }
        var output = JSONOutput(capacity: 256)
        Self.write(members: members, setting: key, to: value, into: &output)
        return output.string
    }

    /// The compact JSON bytes of this value, with sorted keys.
    public func serializedData() -> Data {
        var output = JSONOutput(capacity: 256)
        write(into: &output)
        return output.withBytes { Data($0) }
    }

    static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.debugDescription + Self.path(context.codingPath)
        case DecodingError.keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)'" + Self.path(context.codingPath)
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type)" + Self.path(context.codingPath)
        case DecodingError.valueNotFound(let type, let context):
            return "null where \(type) was expected" + Self.path(context.codingPath)
        case EncodingError.invalidValue(_, let context):
            return context.debugDescription
        default:
            return "\(error)"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "" : " at " + codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { serialized() }
}
