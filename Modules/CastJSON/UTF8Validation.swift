/// Strings from UTF-8 bytes that must be valid (JSON text, protobuf `string` fields).
///
/// Most Cast text is ASCII, and most of the rest is ASCII with a few accented letters. An ASCII check
/// eight bytes at a time is far cheaper than the standard library's `String(validating:as:)`, which,
/// once it meets one byte above 0x7F, checks every byte of the text one at a time (about 45 000
/// instructions for a 4.8 KB MEDIA_STATUS with two `ç`). So the text is cut into ASCII runs, made
/// with the ASCII fast path, and runs of bytes above 0x7F, each validated on its own, and joined.
/// The result is the same: UTF-8 multi-byte sequences consist only of bytes above 0x7F, so the text
/// is valid exactly when every maximal run of such bytes is.
package enum UTF8Text {
    /// The string of `bytes`, which are all ASCII (the caller checked). Made with
    /// `String(unsafeUninitializedCapacity:initializingUTF8With:)`: a text of up to fifteen bytes (most
    /// member values: `PLAYING`, `video/mp4`, `en-US`) is then copied into a small string and tested
    /// for ASCII in two words, where `String(decoding:as:)` scanned it, then built the small string
    /// byte by byte. Longer text is copied into new storage and scanned once, as before.
    @inlinable
    package static func string(ascii bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return "" }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            buffer.baseAddress!.initialize(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// The string, or `nil` when `bytes` is not valid UTF-8.
    @inlinable
    package static func string(validating bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let firstHigh = firstNonASCII(bytes, from: 0)
        if firstHigh == bytes.count { return String(decoding: bytes, as: UTF8.self) }
        // Short text: joining pieces costs more than checking every byte.
        if bytes.count - firstHigh < piecewiseMinimum {
            return isValid(UnsafeBufferPointer(rebasing: bytes[firstHigh...])) ? String(decoding: bytes, as: UTF8.self) : nil
        }
        return mixedString(bytes, firstNonASCII: firstHigh)
    }

    /// The string, or `nil` when `bytes` is not valid UTF-8.
    @inlinable
    package static func string(validating bytes: UnsafeRawBufferPointer) -> String? {
        string(validating: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether every byte is below 0x80.
    @inlinable
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        firstNonASCII(bytes, from: 0) == bytes.count
    }

    /// The index of the first byte above 0x7F at or after `start`; `bytes.count` when there is none.
    @inlinable
    package static func firstNonASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        var index = start
        let raw = UnsafeRawPointer(base)
        // Thirty-two bytes a round while they are all ASCII (the common case, whole payloads of it), then
        // eight at a time to find the byte: one test per round instead of four.
        let high32: UInt64 = 0x8080_8080_8080_8080
        while index + 32 <= count {
            let words = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
            if words & high32 != 0 { break }
            index += 32
        }
        while index + 8 <= count {
            let high = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080
            if high != 0 { return index + (high.trailingZeroBitCount >> 3) }
            index += 8
        }
        while index < count {
            if base[index] >= 0x80 { return index }
            index += 1
        }
        return count
    }

    /// Whether `bytes` is well-formed UTF-8 (the Unicode Standard's table 3-7: no overlong forms, no
    /// surrogates, nothing past U+10FFFF, no truncated sequence), checked byte by byte. The standard library's
    /// `String(validating:as:)` checks the same, but it is generic and not specialized for callers outside the
    /// standard library: each call looked up type metadata (about 1 000 instructions for one `ç`). Valid bytes
    /// then go to `String(decoding:as:)`, which gives the same string for them.
    @usableFromInline
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The first continuation byte's range depends on the lead byte; the others are 0x80...0xBF.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard count - index >= length else { return false }
            let first = base[index + 1]
            guard first >= low, first <= high else { return false }
            for offset in 2..<length where base[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }

    /// How many runs of non-ASCII bytes are joined piece by piece before the rest is left to the standard
    /// library's validator (text that is mostly non-ASCII gains nothing from the pieces).
    @usableFromInline static let maximumPieces = 16

    /// The shortest text (from its first non-ASCII byte on) made piece by piece.
    @usableFromInline static let piecewiseMinimum = 128

    /// The string of `bytes`, which are not all ASCII (`firstNonASCII` is the first byte above 0x7F), or
    /// `nil` when they are not valid UTF-8.
    @usableFromInline
    static func mixedString(_ bytes: UnsafeBufferPointer<UInt8>, firstNonASCII firstHigh: Int) -> String? {
        let count = bytes.count
        var result = String()
        result.reserveCapacity(count)
        var asciiStart = 0
        var high = firstHigh
        var pieces = 0
        while high < count {
            pieces += 1
            if pieces > maximumPieces {
                let rest = UnsafeBufferPointer(rebasing: bytes[asciiStart...])
                guard isValid(rest) else { return nil }
                result.append(String(decoding: rest, as: UTF8.self))
                return result
            }
            if high > asciiStart {
                result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[asciiStart..<high]), as: UTF8.self))
            }
            var end = high + 1
            while end < count, bytes[end] >= 0x80 { end += 1 }
            let piece = UnsafeBufferPointer(rebasing: bytes[high..<end])
            guard isValid(piece) else { return nil }
            result.append(String(decoding: piece, as: UTF8.self))
            asciiStart = end
            high = firstNonASCII(bytes, from: end)
        }
        if asciiStart < count {
            result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[asciiStart...]), as: UTF8.self))
        }
        return result
    }
}
