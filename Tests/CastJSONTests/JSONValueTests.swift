import CastJSON
import Foundation
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test func parsesAndSerializesRoundTrip() throws {
        let text = #"{"a":[1,2.5,"x",true,null],"b":{"c":-3}}"#
        let value = try JSONValue(parsing: text)
        #expect(value["a"]?[1]?.doubleValue == 2.5)
        #expect(value["b"]?["c"]?.intValue == -3)
        #expect(value.serialized() == text)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func malformedTextIsATypedError() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: "{\"a\":") }
        do {
            _ = try JSONValue(parsing: "{nope}")
            Issue.record("parsed garbage")
        } catch {
            #expect(error.code == .malformed)
        }
    }

    @Test func codableBridge() throws {
        struct Point: Codable, Equatable { var x: Int; var label: String }
        let json = try JSONValue(encoding: Point(x: 4, label: "p"))
        #expect(json == ["x": 4, "label": "p"])
        #expect(try json.decode(as: Point.self) == Point(x: 4, label: "p"))
        do {
            _ = try JSONValue.string("no").decode(as: Point.self)
            Issue.record("decoded a string as a struct")
        } catch {
            #expect(error.code == .typeMismatch)
        }
    }

    @Test func integersStayIntegers() {
        let value: JSONValue = ["requestId": 7, "level": 0.5]
        #expect(value.serialized() == #"{"level":0.5,"requestId":7}"#)
        #expect(JSONValue.number(7.5).intValue == nil)
    }

    @Test func subscriptSetterEditsObjects() {
        var value: JSONValue = ["type": "PING"]
        value["requestId"] = 3
        value["type"] = nil
        #expect(value == ["requestId": 3])
    }

    /// Found by FuzzMediaStatus (issue 22): a malformed number deep inside arrays, decoded through `JSONDecoder`,
    /// made `JSONValue(from:)` retry every other type at every level after the nested failure (time cubic in the
    /// depth: 470 ms for the 1.2 KB input under AddressSanitizer, 1.2 s for 160 levels optimized). The nested error
    /// now propagates unchanged: its coding path reaches the bad number instead of being replaced at the top.
    @Test func aNestedDecodingErrorPropagates() throws {
        let depth = 160
        let text = String(repeating: "[[0,", count: depth) + "077" + String(repeating: "]]", count: depth)
        do {
            _ = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            Issue.record("decoded a malformed number")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.count == 2 * depth)
        }
        #expect(throws: JSONError.self) { try JSONValue(parsing: text) }
        // Well-formed values still decode, every type through its container or as a scalar.
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[1,true,null,"s",{"b":[]}],"c":{}}"#.utf8))
        #expect(value == ["a": [1, true, .null, "s", ["b": []]], "c": [:]])
    }
}
