import CastJSON
import Testing
@testable import CastEmulator

/// The receiver reads a request's members straight from its text into a list (no dictionary); these
/// hold that reading to the tree parser's: the same documents accepted, the same members, a repeated
/// name keeping its last value.
@Suite("Request fields read from the text")
struct RequestFieldsTests {
    /// What the tree parser makes of `text`: its members, or `nil` when it is not one JSON object.
    private func tree(_ text: String) -> [String: JSONValue]? {
        (try? JSONValue(parsing: text))?.objectValue
    }

    private func expectSameAsTree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fields = RequestFields.object(inJSON: text)
        let members = tree(text)
        #expect(fields?.members == members, "\(text)", sourceLocation: sourceLocation)
        for (name, value) in members ?? [:] {
            #expect(fields?[name] == value, "\(name) in \(text)", sourceLocation: sourceLocation)
        }
        #expect(fields?["not a member"] == nil, sourceLocation: sourceLocation)
    }

    @Test func aSeekReadsItsMembers() throws {
        let fields = try #require(RequestFields.object(inJSON: #"{"currentTime":42.5,"mediaSessionId":1,"requestId":7,"type":"SEEK"}"#))
        #expect(fields["type"] == "SEEK")
        #expect(try fields.number("currentTime") == 42.5)
        #expect(try fields.int("requestId") == 7)
        #expect(fields["resumeState"] == nil)
    }

    @Test func aRepeatedNameKeepsItsLastValueAsTheTreeDoes() throws {
        let text = #"{"type":"PLAY","requestId":1,"type":"SEEK","requestId":null}"#
        let fields = try #require(RequestFields.object(inJSON: text))
        #expect(fields["type"] == "SEEK")
        #expect(fields["requestId"] == .null)
        #expect(!fields.has("requestId"))
        expectSameAsTree(text)
    }

    @Test(arguments: [
        #"{}"#, #" { "type" : "GET_STATUS" } "#, "\u{FEFF}{\"type\":\"PING\"}", #"{"a":1,}"#,
        #"{"t\u0079pe":"SEEK","requestId":3}"#, #"{"ключ":"значение","type":"X"}"#,
        #"{"media":{"contentId":"a","metadata":{"images":[{"url":"u"}]}},"customData":null,"type":"LOAD"}"#,
        #"{"type":"SEEK"} x"#, #"{"type":"SEEK""#, #"{"type":}"#, #"{type:"SEEK"}"#, #"[{"type":"SEEK"}]"#,
        #""SEEK""#, "null", "1", "", "{\"a\":\"\u{1}\"}", #"{"a":1}{"b":2}"#, #"{"a":"\ud800"}"#,
        String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600),
    ])
    func acceptsAndReadsWhatTheTreeParserDoes(_ text: String) {
        expectSameAsTree(text)
    }

    @Test func mutatedRequestsReadAsTheTreeReadsThem() {
        let base = Array(#"{"currentTime":10.5,"mediaSessionId":1,"requestId":7,"type":"SEEK","customData":{"k":[1,true,null,"\u00e9"]}}"#.utf8)
        let alphabet = Array(#"{}[]:,"\ 0123456789.eE+-truefalsn"#.utf8) + [0x01, 0xC3, 0xA9, 0xFF]
        var generator = SplitMix64(seed: 0x5EE4)
        for _ in 0..<3000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: index)
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                default: bytes[index] = alphabet.randomElement(using: &generator)!
                }
            }
            expectSameAsTree(String(decoding: bytes, as: UTF8.self))
        }
    }
}
