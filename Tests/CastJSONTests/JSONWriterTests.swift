@testable import CastJSON
import CastTestSupport
import Foundation
import Testing

/// The hand-written writer behind `serialized()`.
@Suite struct JSONWriterTests {
    @Test func writesCompactSortedText() throws {
        let value: JSONValue = ["type": "SEEK", "requestId": 7, "currentTime": 12.5, "b": [true, false, nil], "a": ["z": 1, "y": "/"]]
        #expect(value.serialized() == #"{"a":{"y":"/","z":1},"b":[true,false,null],"currentTime":12.5,"requestId":7,"type":"SEEK"}"#)
    }

    @Test func escapesWhatJSONRequires() throws {
        let text = "quote \" backslash \\ nl \n cr \r tab \t bs \u{8} ff \u{C} nul \u{0} us \u{1F} é ✓ 😀"
        let written = JSONValue.string(text).serialized()
        #expect(written == #""quote \" backslash \\ nl \n cr \r tab \t bs \b ff \f nul \u0000 us \u001f é ✓ 😀""#)
        #expect(try JSONValue(parsing: written) == .string(text))
    }

    @Test(arguments: [
        (0.0, "0"), (-3.0, "-3"), (1_700_000_000_123, "1700000000123"), (0.1, "0.1"), (-2.5, "-2.5"),
        (1e-7, "1e-07"), (9_007_199_254_740_992, "9007199254740992.0"), (.infinity, "null"), (.nan, "null"),
    ])
    func writesNumbers(_ number: Double, _ text: String) {
        #expect(JSONValue.number(number).serialized() == text)
    }

    @Test func agreesWithJSONEncoderOnCastPayloads() throws {
        let fixture = try JSONValue(parsing: #"""
            {"type":"MEDIA_STATUS","requestId":12,"status":[{"mediaSessionId":1,"playbackRate":1,"playerState":"PLAYING",
            "currentTime":61.25,"supportedMediaCommands":12303,"volume":{"level":0.5,"muted":false},
            "media":{"contentId":"http://127.0.0.1:8000/a b.mp4","streamType":"BUFFERED","contentType":"video/mp4",
            "metadata":{"metadataType":1,"title":"Ünïcödé \"quoted\"","images":[{"url":"https://x/y.jpg","width":480}]},
            "duration":596.47,"tracks":[{"trackId":1,"type":"TEXT","language":"en-US"}]},"activeTrackIds":[1]}]}
            """#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let reference = try JSONValue(parsing: try encoder.encode(fixture))
        #expect(try JSONValue(parsing: fixture.serialized()) == reference)
        #expect(fixture.serialized() == String(decoding: try encoder.encode(fixture), as: UTF8.self))
    }

    /// Random trees survive a write and a parse unchanged.
    @Test func randomValuesRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        func randomString() -> String {
            let alphabet = Array("ab\"\\/\n\t\u{1}é✓😀 {}[]:,")
            return String((0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        func randomValue(depth: Int) -> JSONValue {
            switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .number(Bool.random(using: &generator) ? Double(Int.random(in: -1_000_000...1_000_000, using: &generator))
                                                                   : Double.random(in: -1e9...1e9, using: &generator))
            case 3: return .string(randomString())
            case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for _ in 0..<Int.random(in: 0...4, using: &generator) { members[randomString()] = randomValue(depth: depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<500 {
            let value = randomValue(depth: 0)
            #expect(try JSONValue(parsing: value.serialized()) == value)
        }
    }

    /// The writer copies eight bytes at a time while none needs escaping: a character that does, at
    /// any position of a long string (in the first, a middle or the last word, or the tail), is
    /// escaped as the one-at-a-time rule says, and bytes that only look close (DEL, `/`, UTF-8 lead and
    /// continuation bytes with 0x22 or 0x5C in their low bits) are copied.
    @Test func escapesAtEveryPositionOfLongStrings() throws {
        func reference(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\u{8}": out += "\\b"
                case "\u{C}": out += "\\f"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{0}"..."\u{1F}": out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let specials: [String] = ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{7F}", "/", "é", "\u{A2}", "\u{DC}", "✓", "😀"]
        // Every length below eight too (a tail tested as one padded word), and a second special later on
        // (after an escape, the rest is tested again).
        for length in [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 23, 24, 25] {
            for position in 0..<length {
                for special in specials {
                    for second in [nil, length - 1] {
                        var characters = Array(repeating: Character("a"), count: length)
                        characters[position] = Character(special)
                        if let second, second > position { characters[second] = Character("\u{1}") }
                        let text = String(characters)
                        let written = JSONValue.string(text).serialized()
                        #expect(written == reference(text), "\(special.debugDescription) at \(position) of \(length)")
                        #expect(try JSONValue(parsing: written) == .string(text))
                    }
                }
            }
        }
        for text in ["", "a", "type", "SEEK", "requestId", "mediaSessionId"] {
            #expect(JSONValue.string(text).serialized() == "\"\(text)\"")
        }
    }

    /// `serializedSizeBound(upTo:)` is never below the written size, and answers `nil` only above the limit.
    @Test func sizeBoundHoldsForRandomValues() throws {
        var generator = SeededGenerator(seed: 0xB0D)
        for _ in 0..<500 {
            let value = JSONParserTests.randomValue(depth: 0, &generator)
            let size = value.serializedData().count
            let bound = try #require(value.serializedSizeBound(upTo: .max))
            #expect(bound >= size, "bound \(bound) < size \(size) for \(value.serialized())")
            #expect(value.serializedSizeBound(upTo: bound) == bound)
            if bound > 0 { #expect(value.serializedSizeBound(upTo: bound - 1) == nil) }
        }
        #expect(JSONValue.number(-1.7976931348623157e308).serializedSizeBound(upTo: 100)! >= "-1.7976931348623157e+308".utf8.count)
        #expect(JSONValue.string("\u{1}\u{1f}").serializedSizeBound(upTo: 100)! >= #""\u0001\u001f""#.utf8.count)
    }

    /// `JSONOutput` writes integers itself (counting the digits first): every length and both ends.
    @Test func writesEveryIntegerLengthAsSwiftDoes() {
        var values = [0, -0, Int.max, Int.min, Int.max - 1, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        for value in values {
            var output = JSONOutput(capacity: 1)
            output.append(UInt8(ascii: "["))
            output.appendInteger(value)
            output.append(UInt8(ascii: "]"))
            #expect(output.string == "[\(value)]")
        }
    }

    /// Appends of every size past the first capacity keep every byte (the output grows as it goes).
    @Test func outputGrowsWithoutLosingBytes() {
        var output = JSONOutput(capacity: 16)
        var expected: [UInt8] = []
        for size in 0..<300 {
            let chunk = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
            chunk.withUnsafeBufferPointer { output.append($0) }
            expected += chunk
        }
        #expect(output.count == expected.count)
        #expect(output.array == expected)
    }

    /// `serialized(setting:to:)` (how a request gets its `requestId`) writes what setting the member and
    /// serializing writes: the key first, last, between others, replacing one, on an empty object, on
    /// something that is not an object; and the value it was called on is unchanged.
    @Test func settingAMemberWhileWritingMatchesSettingItFirst() {
        // "é" precomposed and "e" + U+0301 are one key (canonically equivalent), as are "K" and the
        // Kelvin sign: the member keeps the dictionary's spelling.
        let keys = ["", "a", "m", "requestId", "type", "zz", "é", "e\u{301}", "A", "\u{212A}", "K"]
        let objects: [JSONValue] = [
            [:], ["type": "SEEK"], ["a": 1, "type": "PLAY", "zz": [true]], ["requestId": 4, "m": nil],
            ["A": "x", "é": 2, "mediaSessionId": 3, "currentTime": 12.5], ["e\u{301}": 1, "K": 2], "not an object", [1, 2],
        ]
        for object in objects {
            for key in keys {
                for value: JSONValue in [7, "text", nil, ["nested": [1]]] {
                    var copy = object
                    copy[key] = value
                    // Byte for byte: `String ==` would call the two spellings of a key equal.
                    #expect(Array(object.serialized(setting: key, to: value).utf8) == Array(copy.serialized().utf8),
                            "\(object) [\(key)] = \(value)")
                }
            }
        }
        let request: JSONValue = ["type": "SEEK", "currentTime": 5]
        _ = request.serialized(setting: "requestId", to: 9)
        #expect(request == ["type": "SEEK", "currentTime": 5])
    }

    /// Members come out in `String` order at every object size, on both sides of the size up to which
    /// their indices are sorted in place, with and without a member set while writing.
    ///
    /// The alphabet leaves out U+212A KELVIN SIGN: with it, Swift's `String <` is not transitive
    /// (`"K_" < "\u{212A}" < "\u{212A}0" < "K_"`, see `stringOrderIsNotTransitiveWithTheKelvinSign`), so no
    /// order of such keys is "the" sorted one, and two sorts of the same keys may differ.
    @Test func membersAreWrittenInKeyOrderAtEverySize() throws {
        // Seeded, so a failure replays; single scalars, so "e" + U+0301 and "é" make equivalent keys.
        var generator = SeededGenerator(seed: 0x5EED_0F_0BEC7)
        let alphabet = ["a", "A", "b", "z", "Z", "0", "_", "e", "é", "\u{301}", "✓", "😀", "K"]
        for size in 0...(JSONValue.smallObjectLimit + 4) {
            for round in 0..<20 {
                var members: [String: JSONValue] = [:]
                // Every third object already has the member set while writing: replaced, not inserted.
                if round % 3 == 0, size > 0 { members["requestId"] = 1 }
                while members.count < size {
                    let key = (0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
                    members[key] = .number(Double(members.count))
                }
                // The reference: the pairs sorted as an array, each written alone.
                let expected = "{" + members.sorted(by: { $0.key < $1.key })
                    .map { JSONValue.string($0.key).serialized() + ":" + $0.value.serialized() }
                    .joined(separator: ",") + "}"
                let object = JSONValue.object(members)
                let keys = members.keys.sorted()
                #expect(Array(object.serialized().utf8) == Array(expected.utf8), "\(size) members: \(keys)")
                var withId = object
                withId["requestId"] = 99
                #expect(Array(object.serialized(setting: "requestId", to: 99).utf8) == Array(withId.serialized().utf8),
                        "\(size) members: \(keys)")
                var visited: [String] = []
                JSONValue.forEachSorted(members) { key, _ in visited.append(key) }
                #expect(visited == keys)
            }
        }
    }

    /// Why the test above leaves the Kelvin sign out: a cycle in `String <` (Swift 6.3's standard library).
    /// Should this start failing, the standard library's order became transitive and the sign can go back
    /// into that test's alphabet.
    @Test func stringOrderIsNotTransitiveWithTheKelvinSign() {
        let ascii = "K_", kelvin = "\u{212A}", kelvinZero = "\u{212A}0"
        withKnownIssue("String < is not transitive for keys mixing U+212A with K") {
            #expect(!(ascii < kelvin && kelvin < kelvinZero && kelvinZero < ascii))
        }
    }

    /// Setting a member of a value held elsewhere leaves that one as it was (the setter changes its
    /// own dictionary in place only when it is the only owner).
    @Test func settingAMemberKeepsValueSemantics() {
        let original: JSONValue = ["type": "LOAD", "autoplay": true]
        var changed = original
        changed["type"] = "QUEUE_LOAD"
        changed["currentTime"] = 3
        #expect(original == ["type": "LOAD", "autoplay": true])
        #expect(changed == ["type": "QUEUE_LOAD", "autoplay": true, "currentTime": 3])
        var notAnObject: JSONValue = [1]
        notAnObject["key"] = 1
        #expect(notAnObject == ["key": 1])
    }
}
