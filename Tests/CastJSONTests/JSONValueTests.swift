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
}
