import CastTestSupport
import Foundation
import Testing

@_spi(JSONReading) @testable import CastJSON

/// The pull reader accepts exactly what the tree parser accepts, and reads the same values.
@Suite struct JSONPullReaderTests {
    static let texts: [String] = [
        #"{"type":"MEDIA_STATUS","requestId":12,"status":[{"mediaSessionId":1,"currentTime":12.5,"playerState":"PLAYING"}]}"#,
        #"  [1, -2, 3.25, -0.5e-3, 1E+2, 0, true, false, null, "", "a\"b\\c\/d\b\f\n\r\t"]  "#,
        #""\u00e9\u4e2d\ud83d\ude00 é中😀""#, #"{"a":{"b":{"c":[[],{}]}},"a2":[{"x":1},{"x":2}]}"#,
        "12345678901234", "-0", "\"plain\"", "null", "true", "[1,]", #"{"a":1,}"#, "[ [ ] , ]",
        #"{"k\u00e9y":1,"k\"q":2,"ключ":3}"#,
        // Malformed (the parser's rejection list).
        "", " ", "{", "}", "[,]", "{,}", "[1,,]", "{'a':1}", "[1 2]", "{\"a\" 1}", "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nul", "[1]x", "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"tab\tinside\"", "NaN", "[1,2", "{\"a\":}", "/* comment */ 1", "1e400", "[-1e999]", "{\"a\":1,,}",
        "{\"a\":1}}", "[1]]", "{\"a\"}", "{1:2}",
    ]

    @Test(arguments: texts)
    func skipAndReadAgreeWithTheParser(_ text: String) {
        let parsed = Result { () throws(JSONError) -> JSONValue in try JSONValue(parsing: text) }
        let skipped = Result { () throws(JSONError) in try JSONPullReader.read(text.utf8) { reader throws(JSONError) in try reader.skipValue() } }
        let read = Result { () throws(JSONError) -> JSONValue in
            try JSONPullReader.read(text.utf8) { reader throws(JSONError) in try reader.readValue() }
        }
        switch parsed {
        case .success(let value):
            #expect((try? skipped.get()) != nil, "skipping rejected \(text)")
            #expect((try? read.get()) == value)
        case .failure(let error):
            #expect(error.code == .malformed)
            #expect((try? skipped.get()) == nil, "skipping accepted \(text)")
            if case .failure(let readError) = read { #expect(readError.code == .malformed) } else { Issue.record("read accepted \(text)") }
        }
    }

    @Test func invalidUTF8IsRejectedWhenSkipped() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            let bytes = Array(#"{"a":""#.utf8) + bad + Array(#""}"#.utf8)
            #expect(throws: JSONError.self) { try JSONPullReader.read(bytes) { reader throws(JSONError) in try reader.skipValue() } }
            let key = Array(#"{""#.utf8) + bad + Array(#"":1}"#.utf8)
            #expect(throws: JSONError.self) { try JSONPullReader.read(key) { reader throws(JSONError) in try reader.skipValue() } }
        }
    }

    @Test func nestingIsBoundedLikeTheParser() {
        let fine = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect((try? JSONPullReader.read(fine.utf8) { reader throws(JSONError) in try reader.skipValue() }) != nil)
        #expect(throws: JSONError.self) { try JSONPullReader.read(tooDeep.utf8) { reader throws(JSONError) in try reader.skipValue() } }
        #expect(throws: JSONError.self) { try JSONValue(parsing: tooDeep) }
    }

    /// Members read one by one, with keys matched against a key set and lenient typed reads.
    @Test func readsMembersAndLenientValues() throws {
        let text = #"{"type":"PING","requestId":7.0,"n\u0061me":"x","list":[1,2,"3"],"ids":[4,5],"flag":true,"skip":{"a":[null]},}"#
        let keys = JSONKeySet(["type", "requestId", "name", "list", "ids", "flag"])
        var seen: [String: String] = [:]
        try JSONPullReader.read(text.utf8) { reader throws(JSONError) in
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch keys.index(of: key) {
                case 0: seen["type"] = try reader.lenientString()
                case 1: seen["requestId"] = try reader.lenientInt().map(String.init)
                case 2: seen["name"] = try reader.lenientString()
                case 3: seen["list"] = try reader.lenientInts().map { "\($0)" } ?? "nil"
                case 4: seen["ids"] = try reader.lenientInts().map { "\($0)" }
                case 5: seen["flag"] = try reader.lenientBool().map { "\($0)" }
                default:
                    seen[key.string] = "skipped"
                    try reader.skipValue()
                }
                more = try reader.endMember()
            }
        }
        #expect(seen == ["type": "PING", "requestId": "7", "name": "x", "list": "nil", "ids": "[4, 5]", "flag": "true", "skip": "skipped"])
    }

    /// A key set finds every name at its position and nothing else, whichever way the key was read:
    /// names of every length around the eight-byte head, names that share their head and length and
    /// differ only further on, an empty name, escaped and non-ASCII names, and names in objects too short
    /// to read them a word at a time. Checked against a plain search of the list.
    @Test func keySetFindsExactlyItsNames() throws {
        var generator = SeededGenerator(seed: 0x4B45_59)
        let alphabet = Array("ab") + ["é"]
        for round in 0..<200 {
            // Few letters, so names collide in length, head and tail; some repeated (the first position wins).
            var names: [String] = []
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                let length = [0, 1, 7, 8, 9, 15, 16, 17, 3].randomElement(using: &generator)!
                names.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
            }
            let set = JSONKeySet(names)
            var probes = names + ["zz", "", "aaaaaaaaX", "abababab", "abababab" + "a"]
            probes += names.map { $0 + "b" } + names.map { String($0.dropLast()) }
            for probe in probes {
                let expected = names.firstIndex(of: probe)
                // Plain, then escaped (the decoded-name path), then alone in a short object (names of up to
                // three bytes, and the tail of longer ones, are read a byte at a time there).
                let escaped = probe.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
                for text in [#"{"\#(probe)":0,"pad":"........"}"#, #"{"\#(escaped)":0}"#, #"{"\#(probe)":0}"#] {
                    let found: Int? = try JSONPullReader.readPrefix(text.utf8) { reader throws(JSONError) -> Int? in
                        _ = try reader.beginObject()
                        let key = try reader.readKey()
                        #expect(key.string == probe)
                        return set.index(of: key)
                    }
                    #expect(found == expected, "round \(round): \(probe) in \(names)")
                }
            }
        }
    }
}

/// Routing fields read from the text match the tree's.
@Suite struct JSONEnvelopeTests {
    @Test(arguments: JSONPullReaderTests.texts + [
        #"{"type":"MEDIA_STATUS","requestId":4242,"status":[{"mediaSessionId":1}]}"#,
        #"{"responseType":"GET_APP_AVAILABILITY","requestId":3,"availability":{}}"#,
        #"{"type":5,"responseType":"R","requestId":"1"}"#, #"{"type":"A","type":"B","requestId":1,"requestId":2.5}"#,
        #"{"requestId":9007199254740993}"#, #"{"requestId":9007199254740992}"#, #"{"requestId":-0}"#, #"{"requestId":1e300}"#,
        #"{"t\u0079pe":"escaped key","requestId":1}"#, #"{"type":"PING"} trailing"#, #"["type"]"#,
    ])
    func envelopeMatchesTheTree(_ text: String) {
        let json = try? JSONValue(parsing: text)
        let envelope = JSONEnvelope(text.utf8)
        #expect(envelope.type == (json?["type"]?.stringValue ?? json?["responseType"]?.stringValue))
        #expect(envelope.requestId == json?["requestId"]?.intValue)
    }
}

/// The routing reads stop at the member they need: on valid JSON without repeated members they give
/// the tree's values; they do not look past the member.
@Suite struct JSONRoutingReadTests {
    @Test(arguments: [
        #"{"type":"MEDIA_STATUS","requestId":4242,"status":[{"mediaSessionId":1}]}"#,
        #"{"status":[{"media":{"tracks":[{"type":"TEXT"}]}}],"type":"MEDIA_STATUS","requestId":7}"#,
        #"{"responseType":"GET_APP_AVAILABILITY","requestId":3,"availability":{}}"#,
        #"{"requestId":3,"responseType":"R","type":"T"}"#, #"{"type":5,"responseType":"R","requestId":"1"}"#,
        #"{"requestId":9007199254740993}"#, #"{"requestId":-0}"#, #"{"requestId":1e300}"#, #"{"requestId":2.5}"#,
        #"{"t\u0079pe":"escaped key","requestId":1}"#, #"["type"]"#, #""text""#, "{}", "null",
    ])
    func validDocumentsReadAsTheTree(_ text: String) throws {
        let json = try JSONValue(parsing: text)
        #expect(JSONEnvelope.type(in: text.utf8) == (json["type"]?.stringValue ?? json["responseType"]?.stringValue))
        #expect(JSONEnvelope.requestId(in: text.utf8) == json["requestId"]?.intValue)
        // The buffer forms (what a message reads from its own payload) agree with the generic ones.
        var copy = text
        copy.withUTF8 { buffer in
            #expect(JSONEnvelope.type(buffer: buffer) == (json["type"]?.stringValue ?? json["responseType"]?.stringValue))
            #expect(JSONEnvelope.requestId(buffer: buffer) == json["requestId"]?.intValue)
        }
    }

    @Test func theyStopAtTheMember() {
        // Malformed after the member: the member is still read (the message's JSON says it is invalid).
        let text = #"{"type":"MEDIA_STATUS","requestId":12,"status":[oops"#
        #expect(JSONEnvelope.type(in: text.utf8) == "MEDIA_STATUS")
        #expect(JSONEnvelope.requestId(in: text.utf8) == 12)
        // Malformed before it: nothing.
        #expect(JSONEnvelope.type(in: #"{"status":[oops],"type":"X"}"#.utf8) == nil)
        #expect(JSONEnvelope.requestId(in: #"{"a" 1,"requestId":1}"#.utf8) == nil)
        // Not JSON at all, or cut short before the member.
        #expect(JSONEnvelope.type(in: "garbage".utf8) == nil)
        #expect(JSONEnvelope.requestId(in: #"{"type":"A""#.utf8) == nil)
        // The buffer forms stop where the generic ones do.
        for text in [text, #"{"status":[oops],"type":"X"}"#, #"{"a" 1,"requestId":1}"#, "garbage", #"{"type":"A""#] {
            var copy = text
            copy.withUTF8 { buffer in
                #expect(JSONEnvelope.type(buffer: buffer) == JSONEnvelope.type(in: text.utf8))
                #expect(JSONEnvelope.requestId(buffer: buffer) == JSONEnvelope.requestId(in: text.utf8))
            }
        }
    }
}
