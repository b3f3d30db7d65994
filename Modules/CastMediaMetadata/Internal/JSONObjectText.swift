@_spi(JSONReading) import CastJSON
import Foundation

/// A JSON object kept as its text (UTF-8 bytes) and read only when asked: a member by name with a pull
/// reader (no tree for the others), or the whole object as a dictionary.
///
/// Made only from bytes a reader has already read as one object (see ``init(checked:)``), so reading them
/// again cannot fail and gives what the tree parser gives: a repeated member has its last value.
struct JSONObjectText: Sendable, Hashable {
    /// The object's bytes, `{` to `}`.
    let bytes: [UInt8]

    /// Keeps a copy of `bytes`, which must be one valid JSON object (as checked by a `JSONPullReader`, which
    /// accepts exactly what the tree parser accepts).
    init(checked bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Every member, as the tree parser reads them.
    func members() -> [String: JSONValue] {
        // Cannot fail: the bytes were read as an object when this value was made.
        (try? JSONPullReader.read(bytes) { reader throws(JSONError) in try reader.readValue() })?.objectValue ?? [:]
    }

    /// The value of the member `name` (its last occurrence); `nil` when there is none.
    func value(of name: String) -> JSONValue? {
        var name = name
        return name.withUTF8 { name in
            try? JSONPullReader.readPrefix(bytes) { reader throws(JSONError) -> JSONValue? in
                var value: JSONValue?
                var more = try reader.beginObject()
                while more {
                    let matches = try reader.readKey().withUTF8 { key in
                        key.count == name.count && (key.count == 0 || memcmp(key.baseAddress!, name.baseAddress!, key.count) == 0)
                    }
                    if matches {
                        value = try reader.readValue()
                    } else {
                        try reader.skipValue()
                    }
                    more = try reader.endMember()
                }
                return value
            }
        }
    }
}
