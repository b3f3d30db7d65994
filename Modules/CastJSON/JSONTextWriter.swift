/// Writes compact JSON text member by member, for a message whose shape is known in advance: what
/// ``JSONValue/serialized()`` would write for the same value, without building the tree first.
///
/// The caller writes an object's members in sorted key order (the order `serialized()` uses), so the
/// text is the same byte for byte; subtrees go through the tree writer, and ``raw(_:)`` splices text
/// written earlier (a cached fragment) in place of a value.
package struct JSONTextWriter: Sendable {
    /// The text so far, as UTF-8.
    package private(set) var bytes: [UInt8] = []
    /// One bit per open object or array: set once it has a member (the next one needs a comma).
    private var hasMember: UInt64 = 0
    private var depth = 0

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written, as a string.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Opens an object (as a value).
    package mutating func beginObject() { open(UInt8(ascii: "{")) }

    /// Closes the innermost object.
    package mutating func endObject() { close(UInt8(ascii: "}")) }

    /// Opens an array (as a value).
    package mutating func beginArray() { open(UInt8(ascii: "[")) }

    /// Closes the innermost array.
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts the member `key` of the innermost object; its value is written next.
    package mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts the next element of the innermost array.
    package mutating func element() {
        separate()
    }

    /// Writes a value as ``JSONValue/serialized()`` does.
    package mutating func value(_ value: JSONValue) {
        value.write(into: &bytes)
    }

    /// Writes a number as ``JSONValue/serialized()`` does (integral numbers without a fraction).
    package mutating func number(_ value: Double) {
        JSONValue.write(number: value, into: &bytes)
    }

    /// Writes a string, escaped as ``JSONValue/serialized()`` does.
    package mutating func string(_ value: String) {
        JSONValue.write(string: value, into: &bytes)
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        JSONValue.bool(value).write(into: &bytes)
    }

    /// Splices `text`, a whole JSON value written earlier by this writer or by `serialized()`.
    package mutating func raw(_ text: [UInt8]) {
        bytes.append(contentsOf: text)
    }

    private mutating func open(_ bracket: UInt8) {
        precondition(depth < 64, "JSONTextWriter nests at most 64 levels")
        bytes.append(bracket)
        hasMember &= ~(1 << UInt64(depth))
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        bytes.append(bracket)
    }

    private mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth - 1)
        if hasMember & bit != 0 { bytes.append(UInt8(ascii: ",")) }
        hasMember |= bit
    }
}
