import Foundation
import Testing

@testable import CastJSON
import CastTestSupport

/// The hand-written parser and the tree decoder must agree with Foundation's `JSONDecoder`.
@Suite struct JSONParserTests {
    /// The previous reading of a text: Foundation's `JSONDecoder` driving `JSONValue`'s `Decodable` conformance.
    static func foundation(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(arguments: [
        #"{"type":"MEDIA_STATUS","requestId":12,"status":[{"mediaSessionId":1,"currentTime":12.5,"playerState":"PLAYING"}]}"#,
        #"  [1, -2, 3.25, -0.5e-3, 1E+2, 0, true, false, null, "", "a\"b\\c\/d\b\f\n\r\t"]  "#,
        #""\u00e9\u4e2d\ud83d\ude00 é中😀""#,
        #"{"a":{"b":{"c":[[],{}]}},"a2":[{"x":1},{"x":2}]}"#,
        "12345678901234", "-0", "\"plain\"", "null", "true",
        "[1,]", #"{"a":1,}"#, "[ [ ] , ]",
    ])
    func parsesLikeFoundation(_ text: String) throws {
        let ours = try JSONValue(parsing: text)
        let expected = try #require(Self.foundation(text))
        #expect(ours == expected)
    }

    @Test(arguments: [
        "", " ", "{", "}", "[,]", "{,}", "[1,,]", "{'a':1}", "[1 2]", "{\"a\" 1}", "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nul", "[1]x", "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"tab\tinside\"", "NaN", "[1,2", "{\"a\":}", "/* comment */ 1",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: JSONError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.code == .malformed)
            #expect(error.message.contains("at byte"))
        }
        #expect(Self.foundation(text) == nil, "Foundation accepts \(text) too")
    }

    @Test func rejectsNumbersOutOfRange() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: "1e400") }
        #expect(throws: JSONError.self) { try JSONValue(parsing: "[-1e999]") }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xFF, 0xFE, 0x22]
        #expect(throws: JSONError.self) { try JSONValue(parsing: Data(bytes)) }
    }

    @Test func limitsNestingDepth() throws {
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        _ = try JSONValue(parsing: fine)
        let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue(parsing: tooDeep) }
    }

    /// Random values survive serialization and parsing (seeded, so failures reproduce).
    @Test func roundTripsRandomValues() throws {
        var generator = SeededGenerator(seed: 0xCA57)
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, &generator)
            #expect(try JSONValue(parsing: value.serialized()) == value)
        }
    }

    static func randomValue(depth: Int, _ generator: inout SeededGenerator) -> JSONValue {
        let pick = Int(generator.next() % (depth > 3 ? 4 : 6))
        switch pick {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2:
            let integer = Double(Int64(bitPattern: generator.next()) % 1_000_000_000)
            return .number(generator.next() % 2 == 0 ? integer : integer / 1024)
        case 3:
            let alphabet = Array("aZ09 \"\\/\n\té中😀\u{1}")
            return .string(String((0..<Int(generator.next() % 12)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
        case 4: return .array((0..<Int(generator.next() % 5)).map { _ in randomValue(depth: depth + 1, &generator) })
        default:
            var object: [String: JSONValue] = [:]
            for index in 0..<Int(generator.next() % 5) { object["k\(index)"] = randomValue(depth: depth + 1, &generator) }
            return .object(object)
        }
    }

    // MARK: Tree decoding

    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var small: UInt8?
        var flag: Bool
        var url: URL
        var blob: Data
        var tags: [String]
        var nested: [Inner]
        var extra: JSONValue?
        var missing: String?
        struct Inner: Codable, Equatable { var id: Int64; var when: Date }
    }

    static let sample: JSONValue = [
        "name": "bunny", "count": 3, "ratio": 0.5, "small": 200, "flag": true, "url": "http://127.0.0.1:9/a/b.mp4?c=1",
        "blob": "aGVsbG8=", "tags": ["a", "b"], "nested": [["id": 1, "when": 1000.5], ["id": 2, "when": 0]],
        "extra": ["free": [1, "x", nil]],
    ]

    @Test func treeDecodingMatchesJSONDecoder() throws {
        let tree = try Self.sample.decode(as: Sample.self)
        let text = try JSONDecoder().decode(Sample.self, from: Self.sample.serializedData())
        #expect(tree == text)
        #expect(tree.url.absoluteString == "http://127.0.0.1:9/a/b.mp4?c=1")
        #expect(tree.blob == Data("hello".utf8))
        #expect(tree.extra == ["free": [1, "x", nil]])
    }

    @Test(arguments: [
        ("count", JSONValue.number(1.5)), ("count", .string("3")), ("small", .number(300)), ("flag", .number(1)),
        ("name", .null), ("tags", .object([:])), ("nested", .array([.number(1)])), ("blob", .string("%%%")),
    ] as [(String, JSONValue)])
    func treeDecodingRejectsWhatJSONDecoderRejects(key: String, value: JSONValue) {
        var json = Self.sample
        json[key] = value
        #expect(throws: JSONError.self) { try json.decode(as: Sample.self) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Sample.self, from: json.serializedData()) }
    }

    @Test func missingRequiredKeyIsATypeMismatch() {
        var json = Self.sample
        json["count"] = Optional<JSONValue>.none
        do {
            _ = try json.decode(as: Sample.self)
            Issue.record("decoded without a required key")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.message.contains("count"))
        }
    }

    @Test func customDecoderSettingsStillApply() throws {
        struct Snake: Decodable { var mediaSessionId: Int }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let value = try JSONValue(parsing: #"{"media_session_id": 7}"#).decode(as: Snake.self, decoder: decoder)
        #expect(value.mediaSessionId == 7)
    }
}
