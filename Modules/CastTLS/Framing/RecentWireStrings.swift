import CastJSON
import Foundation

/// The source ids, destination ids and namespaces a connection's frames carried lately, each with
/// the string made from it.
///
/// A connection's messages repeat a handful of them (`sender-0`, a receiver app's transport id, the
/// media namespace), and a string field that is byte for byte one of them takes that string instead
/// of validating, allocating and copying a new one: for a MEDIA_STATUS, two allocations and three
/// UTF-8 validations fewer. Only short fields are kept; the cache never grows past ``capacity``.
struct RecentWireStrings: Sendable {
    /// How many strings a decoder keeps (the oldest goes first).
    static let capacity = 6
    /// Longer fields are not kept: ids and namespaces are short, and comparing costs what it saves.
    static let longest = 128

    private var bytes: [[UInt8]] = []
    private var strings: [String] = []
    private var next = 0
    /// Whether strings are kept (`false`: each field is validated and made anew).
    let keeps: Bool

    /// A cache; `keeps: false` makes one that remembers nothing (a single message's decode).
    init(keeps: Bool = true) {
        self.keeps = keeps
    }

    /// The string of the UTF-8 in `field`, or `nil` when it is not valid UTF-8. A platform namespace is
    /// its one shared constant (see `CastWireStrings`), whether or not this cache keeps strings.
    mutating func string(_ field: UnsafeRawBufferPointer) -> String? {
        guard keeps, field.count <= Self.longest, let start = field.baseAddress else {
            return CastWireStrings.known(field) ?? UTF8Text.string(validating: field)
        }
        for index in bytes.indices where bytes[index].count == field.count {
            let same = bytes[index].withUnsafeBytes { memcmp($0.baseAddress!, start, field.count) == 0 }
            if same { return strings[index] }
        }
        guard let string = CastWireStrings.known(field) ?? UTF8Text.string(validating: field) else { return nil }
        if bytes.count < Self.capacity {
            if bytes.isEmpty {
                bytes.reserveCapacity(Self.capacity)
                strings.reserveCapacity(Self.capacity)
            }
            bytes.append(Array(field))
            strings.append(string)
        } else {
            bytes[next] = Array(field)
            strings[next] = string
            next = (next + 1) % Self.capacity
        }
        return string
    }
}
