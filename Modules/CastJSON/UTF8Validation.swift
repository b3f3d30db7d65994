/// Strings from UTF-8 bytes that must be valid (JSON text, protobuf `string` fields).
///
/// Most Cast text is ASCII. An ASCII check eight bytes at a time is far cheaper than the
/// standard library's generic `String(validating:as:)`, which is used only when a byte is not ASCII.
package enum UTF8Text {
    /// The string, or `nil` when `bytes` is not valid UTF-8.
    @inlinable
    package static func string(validating bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The string, or `nil` when `bytes` is not valid UTF-8.
    @inlinable
    package static func string(validating bytes: UnsafeRawBufferPointer) -> String? {
        string(validating: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether every byte is below 0x80.
    @inlinable
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        var high: UInt64 = 0
        let raw = UnsafeRawPointer(base)
        while index + 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            high |= UInt64(base[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
