/// Writes compact JSON text member by member, for a message whose shape is known in advance: what
/// ``JSONValue/serialized()`` would write for the same value, without building the tree first.
///
/// The caller writes an object's members in sorted key order (the order `serialized()` uses), so the
/// text is the same byte for byte; subtrees go through the tree writer, and ``raw(_:)`` splices text
/// written earlier (a cached fragment) in place of a value.
///
/// It cannot be copied: it owns the buffer it writes into (see `JSONOutput`), freed when it ends.
package struct JSONTextWriter: ~Copyable {
    private var output: JSONOutput
    /// One bit per open object or array: set once it has a member (the next one needs a comma).
    private var hasMember: UInt64 = 0
    private var depth = 0

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        output = JSONOutput(capacity: capacity)
    }

    /// The text written, as a string.
    package var text: String { output.string }

    /// The number of bytes written so far: where a fragment read later with ``bytes(from:)`` starts.
    package var count: Int { output.count }

    /// The bytes written from `offset` on: a fragment a later text can splice with ``raw(_:)``.
    package func bytes(from offset: Int) -> [UInt8] {
        output.withBytes { Array($0[offset...]) }
    }

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
        let count = key.utf8CodeUnitCount
        output.reserve(count + 3)
        output.append(UInt8(ascii: "\""))
        output.append(key.utf8Start, count: count)
        output.append(UInt8(ascii: "\""), UInt8(ascii: ":"))
    }

    /// Starts the next element of the innermost array.
    package mutating func element() {
        separate()
    }

    /// Writes a value as ``JSONValue/serialized()`` does.
    package mutating func value(_ value: JSONValue) {
        value.write(into: &output)
    }

    /// Writes a number as ``JSONValue/serialized()`` does (integral numbers without a fraction).
    package mutating func number(_ value: Double) {
        JSONValue.write(number: value, into: &output)
    }

    /// Writes an integer with all its digits: exact over the whole range of `Int` (a `Double`, which
    /// ``number(_:)`` writes, is exact only up to 2^53). Within ±2^53 the same text as ``number(_:)``.
    package mutating func integer(_ value: Int) {
        output.appendInteger(value)
    }

    /// Writes a string, escaped as ``JSONValue/serialized()`` does.
    package mutating func string(_ value: String) {
        JSONValue.write(string: value, into: &output)
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        output.append(value ? "true" : "false")
    }

    /// Splices `text`, JSON written earlier: a whole value (by this writer or by `serialized()`), or a
    /// fragment ``bytes(from:)`` returned that continues the text from where this writer is.
    package mutating func raw(_ text: [UInt8]) {
        output.append(text)
    }

    private mutating func open(_ bracket: UInt8) {
        precondition(depth < 64, "JSONTextWriter nests at most 64 levels")
        output.append(bracket)
        hasMember &= ~(1 << UInt64(depth))
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        output.append(bracket)
    }

    private mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth - 1)
        if hasMember & bit != 0 { output.append(UInt8(ascii: ",")) }
        hasMember |= bit
    }
}
