/// Matroska and WebM: `Segment` → `Info` → `Duration` (a float in `TimecodeScale` nanosecond units).
enum MatroskaDurationProbe {
    static let ebmlHeader: UInt64 = 0x1A45_DFA3
    static let segment: UInt64 = 0x1853_8067
    static let info: UInt64 = 0x1549_A966
    static let cluster: UInt64 = 0x1F43_B675
    static let timecodeScale: UInt64 = 0x2A_D7B1
    static let duration: UInt64 = 0x4489
    /// The most elements walked at one level.
    static let maximumElements = 512

    static func looksLikeMatroska(_ prefix: [UInt8]) -> Bool {
        prefix.uint(bigEndianAt: 0, width: 4) == ebmlHeader
    }

    static func probe(_ bytes: [UInt8]) -> MediaProbeResult {
        let all = bytes[...]
        var offset = 0
        // Top level: the EBML header, then the Segment.
        for _ in 0..<4 {
            guard let (id, idLength) = elementID(all, at: offset),
                let (size, sizeLength) = elementSize(all, at: offset + idLength)
            else { return .unknown }
            let body = offset + idLength + sizeLength
            if id == segment { return segmentInfo(all, from: body, end: size.map { body + $0 } ?? all.count) }
            guard let size else { return .unknown }
            offset = body + size
        }
        return .unknown
    }

    private static func segmentInfo(_ bytes: ArraySlice<UInt8>, from start: Int, end: Int) -> MediaProbeResult {
        var offset = start
        for _ in 0..<maximumElements where offset < end {
            guard let (id, idLength) = elementID(bytes, at: offset),
                let (size, sizeLength) = elementSize(bytes, at: offset + idLength)
            else { return .unknown }
            let body = offset + idLength + sizeLength
            if id == info {
                guard let size else { return .unknown }
                return readInfo(bytes, from: body, end: min(body + size, bytes.count))
            }
            if id == cluster { return .unknown }  // media data began before any Info
            guard let size else { return .unknown }
            offset = body + size
        }
        return .unknown
    }

    private static func readInfo(_ bytes: ArraySlice<UInt8>, from start: Int, end: Int) -> MediaProbeResult {
        var scale: UInt64 = 1_000_000
        var rawDuration: Double?
        var offset = start
        for _ in 0..<maximumElements where offset < end {
            guard let (id, idLength) = elementID(bytes, at: offset),
                let (size, sizeLength) = elementSize(bytes, at: offset + idLength), let size
            else { return .unknown }
            let body = offset + idLength + sizeLength
            if id == timecodeScale, (1...8).contains(size), let value = bytes.uint(bigEndianAt: body, width: size), value > 0 {
                scale = value
            } else if id == duration {
                if size == 4, let bits = bytes.uint(bigEndianAt: body, width: 4) {
                    rawDuration = Double(Float(bitPattern: UInt32(bits)))
                } else if size == 8, let bits = bytes.uint(bigEndianAt: body, width: 8) {
                    rawDuration = Double(bitPattern: bits)
                }
            }
            offset = body + size
        }
        guard let rawDuration, let seconds = plausibleSeconds(rawDuration * Double(scale) / 1e9) else { return .unknown }
        return .found(seconds)
    }

    /// An element id (1 to 4 bytes, marker bits kept) and its length.
    static func elementID(_ bytes: ArraySlice<UInt8>, at offset: Int) -> (UInt64, Int)? {
        guard let first = bytes.uint(bigEndianAt: offset, width: 1), first != 0 else { return nil }
        let length = first.leadingZeroBitCount - 56 + 1
        guard length <= 4, let id = bytes.uint(bigEndianAt: offset, width: length) else { return nil }
        return (id, length)
    }

    /// An element size (a 1-to-8-byte variable-length integer; all value bits set means unknown) and its length.
    static func elementSize(_ bytes: ArraySlice<UInt8>, at offset: Int) -> (Int?, Int)? {
        guard let first = bytes.uint(bigEndianAt: offset, width: 1), first != 0 else { return nil }
        let length = first.leadingZeroBitCount - 56 + 1
        guard let raw = bytes.uint(bigEndianAt: offset, width: length) else { return nil }
        let valueBits = 7 * length
        let value = raw & ((1 << UInt64(valueBits)) - 1)
        if value == (1 << UInt64(valueBits)) - 1 { return (nil, length) }
        guard value <= UInt64(Int32.max) else { return nil }
        return (Int(value), length)
    }
}
