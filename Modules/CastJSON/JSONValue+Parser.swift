import Foundation

/// A strict RFC 8259 parser straight into ``JSONValue``.
///
/// `JSONDecoder` decoding a `JSONValue` has to guess each value's type by trying Bool, Double, String,
/// array and object in turn, and every wrong guess throws: a 5 KB MEDIA_STATUS took milliseconds.
/// This parser reads each value once. It accepts exactly what `JSONDecoder` accepts by default (any
/// top-level value, a leading UTF-8 byte-order mark, a trailing comma after the last member or element,
/// no comments, valid UTF-8, finite numbers) and nests at most
/// ``maxDepth`` levels deep.
@usableFromInline
struct JSONParser {
    /// The deepest nesting accepted, like `JSONDecoder`'s limit; deeper input is malformed.
    @usableFromInline static let maxDepth = 512

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    @usableFromInline var depth = 0
    /// The deepest level entered (since the pull reader's last ``JSONPullReader/mark()``).
    @usableFromInline var deepest = 0
    private var memberKeys: [String] = []
    private var memberValues: [JSONValue] = []

    @usableFromInline
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON document.
    static func parse(_ data: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError>? = data.withContiguousStorageIfAvailable { buffer in
            Result<JSONValue, JSONError>(catching: { () throws(JSONError) -> JSONValue in try parse(buffer: buffer) })
        }
        if let result { return try result.get() }
        let copy = Array(data)
        return try copy.withUnsafeBufferPointer { buffer throws(JSONError) -> JSONValue in try parse(buffer: buffer) }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var parser = JSONParser(buffer)
        parser.skipByteOrderMark()
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("Unexpected text after the JSON value") }
        return value
    }

    // MARK: Values

    @usableFromInline
    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("Unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("Unexpected character '\(Self.printable(bytes[index]))'")
        }
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1  // {
        // Members collect on a stack shared by every nesting level, so each object's dictionary is
        // allocated once at its final size instead of growing and rehashing.
        let first = memberKeys.count
        defer {
            memberKeys.removeSubrange(first...)
            memberValues.removeSubrange(first...)
        }
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "}"), memberKeys.count > first {  // a trailing comma, as JSONDecoder allows
                index += 1
                depth -= 1
                return .object(makeObject(from: first))
            }
            guard peek() == UInt8(ascii: "\"") else { throw error("Expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("Expected ':' after a key") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            memberKeys.append(key)
            memberValues.append(value)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(makeObject(from: first))
            default: throw error("Expected ',' or '}' in an object")
            }
        }
    }

    /// The members from `first` on as a dictionary; a repeated key keeps its last value.
    private func makeObject(from first: Int) -> [String: JSONValue] {
        // `reserveCapacity` is specialized here; `init(minimumCapacity:)` is not (it looks up metadata).
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(memberKeys.count - first)
        for index in first..<memberKeys.count { object[memberKeys[index]] = memberValues[index] }
        return object
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1  // [
        var array: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]"), !array.isEmpty {  // a trailing comma, as JSONDecoder allows
                index += 1
                depth -= 1
                return .array(array)
            }
            array.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(array)
            default: throw error("Expected ',' or ']' in an array")
            }
        }
    }

    @inlinable
    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > deepest { deepest = depth }
        guard depth <= Self.maxDepth else { throw error("Nested deeper than \(Self.maxDepth) levels") }
    }

    // MARK: Strings

    @usableFromInline
    mutating func parseString() throws(JSONError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes. Eight bytes at a time up to the first quote, backslash, control character
        // or non-ASCII byte; non-ASCII bytes are noted (the string is then validated) and passed.
        var high = false
        let count = bytes.count
        let base = bytes.baseAddress.map(UnsafeRawPointer.init)
        while index < count {
            if let base, index + 8 <= count {
                let special = Self.specialBytes(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if special == 0 {
                    index += 8
                    continue
                }
                index += special.trailingZeroBitCount >> 3
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let range = start..<index
                let string = high ? try makeString(range) : UTF8Text.string(ascii: UnsafeBufferPointer(rebasing: bytes[range]))
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte >= 0x80 {
                high = true
            } else if byte < 0x20 {
                throw error("Unescaped control character in a string")
            }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try makeString(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("Unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default: throw error("Invalid escape '\\\(Self.printable(escape))'")
                }
            default:
                guard byte >= 0x20 else { throw error("Unescaped control character in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw error("Unterminated string")
    }

    /// Reads past a string (at its opening quote) with the checks of ``parseString()``, without making it:
    /// a plain ASCII string is only scanned; any other goes through ``parseString()``.
    @usableFromInline
    mutating func skipString() throws(JSONError) {
        let start = index
        index += 1
        let count = bytes.count
        let base = bytes.baseAddress.map(UnsafeRawPointer.init)
        while index < count {
            if let base, index + 8 <= count {
                let special = Self.specialBytes(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if special == 0 {
                    index += 8
                    continue
                }
                index += special.trailingZeroBitCount >> 3
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return
            }
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        index = start
        _ = try parseString()
    }

    /// Reads `XXXX` (after `\u`), and a second `\uXXXX` for a surrogate pair; returns the UTF-8 bytes.
    private mutating func parseUnicodeEscape() throws(JSONError) -> [UInt8] {
        let first = try parseHex4()
        var scalarValue = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("Unpaired high surrogate in a \\u escape")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("Invalid low surrogate in a \\u escape") }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw error("Unpaired low surrogate in a \\u escape")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw error("Invalid \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func parseHex4() throws(JSONError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("Truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("Invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func makeString(_ range: Range<Int>) throws(JSONError) -> String {
        guard let string = UTF8Text.string(validating: UnsafeBufferPointer(rebasing: bytes[range])) else {
            throw error("Invalid UTF-8 in a string")
        }
        return string
    }

    private func makeString(_ utf8: [UInt8]) throws(JSONError) -> String {
        let string = utf8.withUnsafeBufferPointer { UTF8Text.string(validating: $0) }
        guard let string else { throw error("Invalid UTF-8 in a string") }
        return string
    }

    // MARK: Numbers and literals

    @usableFromInline
    mutating func parseNumber() throws(JSONError) -> Double {
        let start = index
        let negative = peek() == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw error("Expected a digit") }
        // Digits accumulate into `mantissa` while it is exact (at most 15 digits) for the fast path.
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), Self.isDigit(next) { throw error("Leading zero in a number") }
        } else {
            while let byte = peek(), Self.isDigit(byte) {
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw error("Expected a digit after '.'") }
            while let byte = peek(), Self.isDigit(byte) {
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                if mantissa != 0 { digits += 1 }
                scale -= 1
                index += 1
            }
        }
        var hasExponent = false
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), Self.isDigit(digit) else { throw error("Expected a digit in an exponent") }
            skipDigits()
        }
        // Exact: a mantissa below 10^15 < 2^53 and a power of ten up to 10^22 are both exact doubles,
        // and one correctly rounded division or multiplication gives the correctly rounded result.
        if !hasExponent, digits <= 15, -scale <= 22 {
            let magnitude = scale == 0 ? Double(mantissa) : Double(mantissa) / Self.powersOfTen[-scale]
            return negative ? -magnitude : magnitude
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("Number \(text) is not representable")
        }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    @usableFromInline
    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("Unexpected end of input") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw error("Invalid literal")
        }
        index += count
    }

    // MARK: Helpers

    @inlinable @inline(__always)
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Skips a UTF-8 byte-order mark at the start of the document: it may be ignored (RFC 8259 §8.1), and
    /// JSONDecoder and JSONSerialization skip it.
    @usableFromInline
    mutating func skipByteOrderMark() {
        if index == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    @inlinable @inline(__always)
    mutating func skipWhitespace() {
        // Compact JSON (what Cast peers send) has none: one comparison.
        guard index < bytes.count, bytes[index] <= 0x20 else { return }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The high bit of each byte of `word` that is `"`, `\\`, below 0x20 or above 0x7F, as far as the first
    /// such byte (SWAR tests: a flag above the lowest one may be spurious; only the lowest is read).
    @inlinable
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highs
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    @usableFromInline
    static func printable(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "0x%02X", byte)
    }

    @usableFromInline
    func error(_ message: String) -> JSONError {
        JSONError(code: .malformed, message: "Invalid JSON: \(message) at byte \(index)")
    }
}
