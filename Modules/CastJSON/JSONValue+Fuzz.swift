import Foundation

/// libFuzzer entry point: parses `bytes` with Castor's JSON parser and with Foundation's
/// `JSONSerialization` (fragments allowed), and traps when they disagree: one accepts what the other
/// rejects, or they read different values. Whatever parses is also written by ``JSONValue/serialized()``
/// and must read back, by both parsers, as the same value.
///
/// The differences between the two are decided, not ignored (see the Fuzzing article in the Castor catalogue):
/// - Encodings: Castor reads UTF-8 only (RFC 8259 §8.1); Foundation also detects UTF-16 and UTF-32 from a
///   byte-order mark or from NUL bytes among the first four. Such inputs must be rejected by Castor and are not compared.
/// - A leading UTF-8 byte-order mark is skipped by both.
/// - Foundation on Linux drops a raw U+FEFF at the start of a string or key and after each escape sequence; Castor
///   keeps it, as `JSONDecoder` does. Strings and keys are compared without U+FEFF.
/// - Duplicate keys: the last value wins in both.
/// - Numbers: Castor keeps a `Double` (correctly rounded); Foundation keeps 64-bit integers exactly and larger
///   or longer numbers as `Decimal` (38 digits). Integers and doubles must be equal as `Double`s; a `Decimal`
///   must be within 1e-9 of Castor's value, relatively. Numbers beyond `Double`'s range are rejected by both,
///   except that Foundation never converts (so never rejects) a value shadowed by a later duplicate key.
/// - Strings are compared scalar by scalar (not by Swift's canonical equivalence); keys are looked up as
///   `Dictionary` does, so keys that are canonically equivalent are one key in both.
@_spi(Fuzzing) public func fuzzJSON(_ bytes: [UInt8]) {
    if let disagreement = JSONDifferential.disagreement(bytes) { fatalError(disagreement) }
}

/// The comparison rules of ``fuzzJSON(_:)``.
enum JSONDifferential {
    /// How Castor's and Foundation's readings of `bytes` disagree, or `nil` when they agree.
    static func disagreement(_ bytes: [UInt8]) -> String? {
        let ours = Result { () throws(JSONError) in try JSONParser.parse(bytes) }
        if foundationReadsAsUTF16OrUTF32(bytes) {
            if case .success(let value) = ours { return "Castor accepted text Foundation reads as UTF-16/32: \(value)" }
            return nil
        }
        let reference = Result { try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) }
        switch (ours, reference) {
        case (.success(let value), .success(let object)):
            if let difference = compare(value, object) { return "Castor and JSONSerialization read different values: \(difference)" }
            // The writer: what Castor sends must read back as the same value, by Castor and by Foundation.
            let text = value.serializedData()
            guard let again = try? JSONParser.parse(text), again == value else {
                return "\(value) was written as \(String(decoding: text, as: UTF8.self)), which reads back differently"
            }
            guard let written = try? JSONSerialization.jsonObject(with: text, options: [.fragmentsAllowed]) else {
                return "JSONSerialization rejects what Castor wrote: \(String(decoding: text, as: UTF8.self))"
            }
            if let difference = compare(value, written) { return "JSONSerialization reads what Castor wrote differently: \(difference)" }
            return nil
        case (.failure, .failure):
            return nil
        case (.success(let value), .failure(let error)):
            return "Castor accepted \(value); JSONSerialization rejected it: \(error)"
        case (.failure(let error), .success(let object)):
            // Foundation converts a number only when it builds the value: one shadowed by a later duplicate key
            // is never converted, so `{"a":1e400,"a":2}` reads as `["a": 2]`. Castor rejects every number it
            // cannot represent, wherever it is. The inputs agree if they do once that number is `0`.
            if let shadowed = withUnrepresentableNumberZeroed(bytes, error) { return disagreement(shadowed) }
            return "Castor rejected what JSONSerialization reads as \(object): \(error)"
        }
    }

    /// `bytes` with the number that `error` reports as not representable (`Number 1e400 is not representable at
    /// byte N`, N its end) replaced by `0`, or `nil` when `error` is about something else.
    static func withUnrepresentableNumberZeroed(_ bytes: [UInt8], _ error: JSONError) -> [UInt8]? {
        let message = error.message
        guard let number = message.range(of: "Number "), let rest = message.range(of: " is not representable at byte "),
              number.upperBound <= rest.lowerBound, let end = Int(message[rest.upperBound...]) else { return nil }
        let text = Array(message[number.upperBound..<rest.lowerBound].utf8)
        let start = end - text.count
        guard start >= 0, end <= bytes.count, Array(bytes[start..<end]) == text else { return nil }
        return Array(bytes[..<start]) + [UInt8(ascii: "0")] + Array(bytes[end...])
    }

    /// The first difference between Castor's value and Foundation's object.
    static func compare(_ value: JSONValue, _ object: Any) -> String? {
        difference(value, object, path: "$")
    }

    /// A string as compared: `JSONSerialization` on Linux drops a raw U+FEFF at the start of a string and after
    /// each escape sequence (`JSONDecoder` keeps them, as Castor does), so strings and keys are compared without
    /// U+FEFF.
    static func comparable(_ string: String) -> String {
        string.unicodeScalars.contains("\u{FEFF}") ? String(String.UnicodeScalarView(string.unicodeScalars.filter { $0 != "\u{FEFF}" })) : string
    }

    /// Whether Foundation's encoding detection picks UTF-16 or UTF-32 for `bytes`.
    static func foundationReadsAsUTF16OrUTF32(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(4).contains(0)
    }

    /// A description of the first difference between Castor's value and Foundation's object, or `nil`.
    static func difference(_ value: JSONValue, _ object: Any, path: String) -> String? {
        switch value {
        case .null:
            return object is NSNull ? nil : "\(path): null against \(object)"
        case .bool(let bool):
            guard let number = object as? NSNumber, isBoolean(number) else { return "\(path): \(bool) against \(object)" }
            return number.boolValue == bool ? nil : "\(path): \(bool) against \(number)"
        case .number(let double):
            guard let number = object as? NSNumber, !isBoolean(number) else { return "\(path): \(double) against \(object)" }
            if let decimal = number as? NSDecimalNumber {
                let theirs = decimal.doubleValue
                let tolerance = 1e-9 * max(abs(double), abs(theirs))
                return abs(double - theirs) <= tolerance ? nil : "\(path): \(double) against Decimal \(decimal)"
            }
            return number.doubleValue == double ? nil : "\(path): \(double) against \(number) (\(String(cString: number.objCType)))"
        case .string(let string):
            guard let theirs = object as? String else { return "\(path): \(string.debugDescription) against \(object)" }
            return Array(comparable(string).unicodeScalars) == Array(comparable(theirs).unicodeScalars)
                ? nil : "\(path): \(string.debugDescription) against \(theirs.debugDescription)"
        case .array(let elements):
            guard let theirs = object as? [Any] else { return "\(path): array against \(object)" }
            guard elements.count == theirs.count else { return "\(path): \(elements.count) elements against \(theirs.count)" }
            for (index, element) in elements.enumerated() {
                if let difference = difference(element, theirs[index], path: "\(path)[\(index)]") { return difference }
            }
            return nil
        case .object(let members):
            guard let theirs = object as? [String: Any] else { return "\(path): object against \(object)" }
            // Keys as compared; when dropping U+FEFF merges two keys, the member Foundation kept depends on the
            // order of the text, which the values no longer have: such an object is not compared further.
            var ours: [String: JSONValue] = [:]
            var others: [String: Any] = [:]
            for (key, member) in members where ours.updateValue(member, forKey: comparable(key)) != nil { return nil }
            for (key, member) in theirs where others.updateValue(member, forKey: comparable(key)) != nil { return nil }
            guard ours.count == others.count else { return "\(path): \(members.count) members against \(theirs.count)" }
            for (key, member) in ours {
                guard let other = others[key] else { return "\(path): member \(key.debugDescription) missing in Foundation's" }
                if let difference = difference(member, other, path: "\(path).\(key)") { return difference }
            }
            return nil
        }
    }

    /// Foundation gives `true` and `false` as NSNumbers of type `c` (a number is never `c`).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
