/// Why a codec probe stopped before it had an answer.
enum ProbeStop: Error, Sendable, Hashable {
    /// The bytes it needs lie outside what was fetched: fetch this range of the same resource, then
    /// probe again.
    case needs(ClosedRange<Int>)
    /// The bytes are not what the probe reads (or lie past the end of the resource).
    case unreadable
}

/// Reads structures at absolute offsets of a resource from the windows the fetcher has (``ProbeBytes``):
/// every read is checked against the windows first, and a read outside them throws the range to
/// fetch, never past the resource's end and never more than ``MediaDurationProbe/followUpLimit``.
struct ProbeReader: Sendable {
    let data: ProbeBytes
    /// How many bytes a follow-up request asks for at least (a structure's neighbours come with it).
    var window = 8192

    init(_ data: ProbeBytes, window: Int = 8192) {
        self.data = data
        self.window = window
    }

    /// `count` bytes at `offset`.
    func bytes(at offset: Int, count: Int) throws(ProbeStop) -> ArraySlice<UInt8> {
        guard offset >= 0, count >= 0, count <= MediaDurationProbe.followUpLimit else { throw .unreadable }
        if let bytes = data.bytes(at: offset, count: count) { return bytes }
        throw need(offset, count)
    }

    /// Up to `count` bytes at `offset`: fewer when the window holding `offset` (or the resource)
    /// ends first; throws only when no byte at `offset` was fetched.
    func available(at offset: Int, count: Int) throws(ProbeStop) -> ArraySlice<UInt8> {
        guard offset >= 0, count >= 0 else { throw .unreadable }
        if let tail = data.tail(from: offset) { return tail.prefix(count) }
        throw need(offset, min(count, MediaDurationProbe.followUpLimit))
    }

    /// A big-endian unsigned integer of `width` bytes at `offset`.
    func uint(at offset: Int, width: Int) throws(ProbeStop) -> UInt64 {
        let bytes = try bytes(at: offset, count: width)
        guard let value = bytes.uint(bigEndianAt: 0, width: width) else { throw .unreadable }
        return value
    }

    /// The range to ask for so that `count` bytes at `offset` arrive; unreadable past the end.
    private func need(_ offset: Int, _ count: Int) -> ProbeStop {
        var end = offset + max(count, window) - 1
        if let total = data.totalLength {
            guard offset + count <= total else { return .unreadable }
            end = min(end, total - 1)
        }
        end = min(end, offset + MediaDurationProbe.followUpLimit - 1)
        return .needs(offset...end)
    }
}

/// Reads a bit string most-significant bit first, with the exponential-Golomb codes of H.264 and
/// HEVC parameter sets. Reading past the end throws; a code longer than 32 bits is refused.
struct BitReader: Sendable {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

    var bitsLeft: Int { bytes.count * 8 - position }

    /// `count` bits (at most 32) as an unsigned number.
    mutating func bits(_ count: Int) throws(ProbeStop) -> UInt32 {
        guard count >= 0, count <= 32, count <= bitsLeft else { throw .unreadable }
        var value: UInt32 = 0
        for _ in 0..<count {
            let bit = (bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
            value = value << 1 | UInt32(bit)
            position += 1
        }
        return value
    }

    mutating func flag() throws(ProbeStop) -> Bool { try bits(1) == 1 }

    mutating func skip(_ count: Int) throws(ProbeStop) {
        guard count >= 0, count <= bitsLeft else { throw .unreadable }
        position += count
    }

    /// An unsigned exponential-Golomb code (`ue(v)`).
    mutating func unsignedGolomb() throws(ProbeStop) -> UInt32 {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros <= 31 else { throw .unreadable }
        }
        guard zeros > 0 else { return 0 }
        return (UInt32(1) << UInt32(zeros)) - 1 + (try bits(zeros))
    }

    /// A signed exponential-Golomb code (`se(v)`).
    mutating func signedGolomb() throws(ProbeStop) -> Int {
        let code = Int(try unsignedGolomb())
        return code & 1 == 1 ? (code + 1) / 2 : -(code / 2)
    }
}

/// The payload of a NAL unit without its emulation-prevention bytes (`00 00 03` → `00 00`), at most
/// `limit` bytes of it.
func removingEmulationPrevention(_ nal: ArraySlice<UInt8>, limit: Int = 1024) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(min(nal.count, limit))
    var zeros = 0
    for byte in nal {
        if output.count >= limit { break }
        if zeros >= 2, byte == 3 {
            zeros = 0
            continue
        }
        output.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    return output
}

/// The NAL units of an Annex B byte stream (`00 00 01` or `00 00 00 01` before each), at most
/// `limit` of them.
func annexBUnits(_ bytes: ArraySlice<UInt8>, limit: Int = 64) -> [ArraySlice<UInt8>] {
    var starts: [Int] = []
    var index = bytes.startIndex
    while index + 2 < bytes.endIndex, starts.count <= limit {
        if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
            starts.append(index + 3)
            index += 3
        } else {
            index += 1
        }
    }
    var units: [ArraySlice<UInt8>] = []
    for (number, start) in starts.enumerated() where number < limit {
        var end = number + 1 < starts.count ? starts[number + 1] - 3 : bytes.endIndex
        while end > start, bytes[end - 1] == 0 { end -= 1 }  // the next start code's leading zero
        if end > start { units.append(bytes[start..<end]) }
    }
    return units
}
