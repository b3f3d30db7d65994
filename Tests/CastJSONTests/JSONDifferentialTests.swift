import Foundation
import Testing

@testable import CastJSON

/// Castor's JSON parser against Foundation's `JSONSerialization`, rule by rule: the differences the FuzzJSON
/// target allows are decided here, and the inputs it found are kept.
@Suite struct JSONDifferentialTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        "[1,]", #"{"a":1,"a":2}"#, #"{"a":1,}"#, "-0", "1e-400", "9007199254740993", "18446744073709551615",
        "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890", "12345678901234567890.5",
        #""\u0000""#, #"["\ud83d\ude00", "é"]"#, " \t\r\n1\n",
        String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
    ])
    func agreesWithJSONSerialization(_ text: String) throws {
        #expect(JSONDifferential.disagreement(Self.bytes(text)) == nil)
        _ = try JSONValue(parsing: text)
    }

    @Test(arguments: [
        "1e400", "-1e400", "[01]", "1.", ".5", "\"\t\"", "[1 2]", "[,]", "{,}", "[1,,2]", #""\ud800""#, #""\udc00x""#,
        String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
    ])
    func bothReject(_ text: String) {
        #expect(JSONDifferential.disagreement(Self.bytes(text)) == nil)
        #expect(throws: JSONError.self) { try JSONValue(parsing: text) }
    }

    /// Found by FuzzJSON (issue 22): a key starting with a raw U+FEFF. `JSONSerialization` on Linux drops it
    /// (`"\u{FEFF}type"` reads as `"type"`); `JSONDecoder` and Castor keep the string as written.
    @Test func aLeadingU_FEFFInAStringIsKept() throws {
        let found: [UInt8] = [0x7B, 0x22, 0xEF, 0xBB, 0xBF] + Self.bytes(#"type":"RECEIVER_STATUS"}"#)
        #expect(try JSONValue(parsing: Data(found)) == ["\u{FEFF}type": "RECEIVER_STATUS"])
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(found)) as? [String: String])
        #expect(foundation == ["type": "RECEIVER_STATUS"])
        #expect(try JSONDecoder().decode([String: String].self, from: Data(found)) == ["\u{FEFF}type": "RECEIVER_STATUS"])
        #expect(JSONDifferential.disagreement(found) == nil)
        #expect(JSONDifferential.disagreement(Self.bytes(#"["\ufeffescaped", "x\#u{FEFF}"]"#)) == nil)
        // Found by the campaign, minimized: Foundation also drops a raw U+FEFF right after an escape sequence.
        let afterEscape: [UInt8] = [0x22, 0x5C, 0x62, 0xEF, 0xBB, 0xBF, 0x22]  // "\b<U+FEFF>"
        #expect(try JSONValue(parsing: Data(afterEscape)) == .string("\u{8}\u{FEFF}"))
        #expect(try JSONSerialization.jsonObject(with: Data(afterEscape), options: .fragmentsAllowed) as? String == "\u{8}")
        #expect(try JSONDecoder().decode(String.self, from: Data(afterEscape)) == "\u{8}\u{FEFF}")
        #expect(JSONDifferential.disagreement(afterEscape) == nil)
        #expect(JSONDifferential.disagreement(Self.bytes(#"{"\#u{FEFF}a":1,"a":2}"#)) == nil)
        // A real difference is still one.
        #expect(JSONDifferential.compare(.string("\u{FEFF}a"), "b") != nil)
    }

    /// Found by the FuzzJSON campaign of 2026-11-23 (minimized from 429 bytes): `JSONSerialization` on Linux converts
    /// a number only when it builds the value, so an out-of-range number shadowed by a later duplicate key is
    /// never converted and never rejected. Castor rejects it, as it rejects every number it cannot represent.
    @Test func anUnrepresentableNumberShadowedByADuplicateKey() throws {
        let found = Self.bytes(#"[{"dup":1e309,"dup":2}]"#)
        #expect(try JSONSerialization.jsonObject(with: Data(found)) as? [[String: Int]] == [["dup": 2]])
        #expect(throws: JSONError.self) { try JSONValue(parsing: Data(found)) }
        #expect(JSONDifferential.disagreement(found) == nil)
        #expect(JSONDifferential.disagreement(Self.bytes(#"{"a":-1e400,"b":{"a":1e999,"a":[]},"a":1}"#)) == nil)
        // Not shadowed: Foundation rejects it too.
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(#"{"dup":2,"dup":1e309}"#.utf8)) }
        #expect(JSONDifferential.disagreement(Self.bytes(#"{"dup":2,"dup":1e309}"#)) == nil)
        // Zeroing only ever removes that one difference: a number Foundation did read is still compared.
        let error = JSONError(code: .malformed, message: "Invalid JSON: Number 1e309 is not representable at byte 13")
        #expect(JSONDifferential.withUnrepresentableNumberZeroed(found, error) == Self.bytes(#"[{"dup":0,"dup":2}]"#))
        #expect(JSONDifferential.withUnrepresentableNumberZeroed(found, JSONError(code: .malformed, message: "Invalid JSON: Expected a digit at byte 3")) == nil)
    }

    /// Found while building the FuzzJSON differential (issue 22): a UTF-8 byte-order mark before the value. RFC 8259 §8.1 lets a parser ignore
    /// it; `JSONSerialization` and `JSONDecoder` do, and so does Castor now (it rejected the text before).
    @Test func aLeadingByteOrderMarkIsSkipped() throws {
        let text: [UInt8] = [0xEF, 0xBB, 0xBF] + Self.bytes(#"{"a":[1]}"#)
        #expect(try JSONValue(parsing: Data(text)) == ["a": [1]])
        #expect(try JSONDecoder().decode([String: [Int]].self, from: Data(text)) == ["a": [1]])
        #expect(JSONDifferential.disagreement(text) == nil)
        #expect(throws: JSONError.self) { try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF])) }
        #expect(throws: JSONError.self) { try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x31])) }
    }

    /// Deliberate difference: Castor reads UTF-8 only (RFC 8259 §8.1); Foundation also reads UTF-16 and UTF-32,
    /// detected from a byte-order mark or from NUL bytes among the first four.
    @Test func utf16AndUTF32AreRejected() throws {
        let utf16LE: [UInt8] = [0xFF, 0xFE, 0x5B, 0x00, 0x31, 0x00, 0x5D, 0x00]
        #expect(try JSONSerialization.jsonObject(with: Data(utf16LE)) as? [Int] == [1])
        #expect(throws: JSONError.self) { try JSONValue(parsing: Data(utf16LE)) }
        #expect(JSONDifferential.foundationReadsAsUTF16OrUTF32(utf16LE))
        #expect(JSONDifferential.foundationReadsAsUTF16OrUTF32([0x31, 0x00]))
        #expect(JSONDifferential.disagreement(utf16LE) == nil)
        #expect(JSONDifferential.disagreement([0x00, 0x31]) == nil)
    }

    /// Numbers: Foundation keeps 64-bit integers exactly and longer numbers as Decimal; Castor keeps the nearest
    /// Double, which is what both compare as.
    @Test func numbersCompareAsDoubles() throws {
        #expect(try JSONValue(parsing: "9007199254740993") == .number(9_007_199_254_740_992))
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data("9007199254740993".utf8), options: .fragmentsAllowed) as? NSNumber)
        #expect(foundation.int64Value == 9_007_199_254_740_993)
        #expect(JSONDifferential.compare(.number(9_007_199_254_740_992), foundation) == nil)
        #expect(JSONDifferential.compare(.number(1), NSNumber(value: true)) != nil)
        #expect(JSONDifferential.compare(.bool(true), NSNumber(value: 1)) != nil)
    }
}
