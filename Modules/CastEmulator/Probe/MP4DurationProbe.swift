/// MP4 and QuickTime: the duration is `mvhd` (inside `moov`) `duration / timescale`.
///
/// The top-level boxes are walked by their sizes; when `moov` comes after `mdat` (a file not made
/// for streaming), its position is known from the sizes and the probe asks for the bytes there.
enum MP4DurationProbe {
    /// Top-level box types a file may start with.
    static let leadingBoxes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp"]
    /// The most top-level boxes walked.
    static let maximumBoxes = 256
    /// The bytes asked for at the start of a `moov` that lies outside what was fetched.
    static let moovWindow = 4096

    static func looksLikeMP4(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 8, let type = boxType(prefix[...], at: 4) else { return false }
        return leadingBoxes.contains(type)
    }

    static func probe(_ data: ProbeBytes) -> MediaProbeResult {
        var offset = 0
        for _ in 0..<maximumBoxes {
            if let total = data.totalLength, offset >= total { return .unknown }
            guard let header = data.bytes(at: offset, count: 8) else {
                return ask(data, at: offset)
            }
            let size32 = header.uint(bigEndianAt: 0, width: 4)!
            guard let type = boxType(header, at: 4) else { return .unknown }
            var size = Int(size32)
            var headerLength = 8
            if size32 == 1 {
                guard let large = data.bytes(at: offset + 8, count: 8)?.uint(bigEndianAt: 0, width: 8) else {
                    return ask(data, at: offset)
                }
                guard large <= 1 << 50 else { return .unknown }
                size = Int(large)
                headerLength = 16
            } else if size32 == 0 {
                size = 1 << 50  // runs to the end of the file
            }
            guard size >= headerLength else { return .unknown }
            if type == "moov" {
                guard let body = data.tail(from: offset + headerLength) else { return ask(data, at: offset) }
                let limited = body.prefix(size - headerLength)
                if let result = movieHeader(in: limited) { return result }
                // The window ended inside `moov` before `mvhd`: fetch the start of `moov` once.
                return limited.count < size - headerLength ? ask(data, at: offset) : .unknown
            }
            offset += size
        }
        return .unknown
    }

    /// Asks for the bytes at `offset`, unless they were asked for already (a window starts there).
    private static func ask(_ data: ProbeBytes, at offset: Int) -> MediaProbeResult {
        guard !data.windows.contains(where: { $0.offset == offset && $0.offset != 0 }) else { return .unknown }
        var end = offset + moovWindow - 1
        if let total = data.totalLength {
            guard offset < total else { return .unknown }
            end = min(end, total - 1)
        }
        return .needsBytes(offset...end)
    }

    /// Finds `mvhd` among the children of `moov` and reads its duration.
    private static func movieHeader(in moov: ArraySlice<UInt8>) -> MediaProbeResult? {
        var offset = 0
        for _ in 0..<maximumBoxes {
            guard let size32 = moov.uint(bigEndianAt: offset, width: 4), let type = boxType(moov, at: offset + 4) else {
                return nil
            }
            if type == "mvhd" {
                guard let version = moov.uint(bigEndianAt: offset + 8, width: 1) else { return nil }
                let fields = offset + 12
                let timescale: UInt64?
                let duration: UInt64?
                if version == 1 {
                    timescale = moov.uint(bigEndianAt: fields + 16, width: 4)
                    duration = moov.uint(bigEndianAt: fields + 20, width: 8)
                } else {
                    timescale = moov.uint(bigEndianAt: fields + 8, width: 4)
                    duration = moov.uint(bigEndianAt: fields + 12, width: 4)
                }
                guard let timescale, let duration else { return nil }
                let unknown: UInt64 = version == 1 ? .max : 0xFFFF_FFFF
                guard timescale > 0, duration != unknown,
                    let seconds = plausibleSeconds(Double(duration) / Double(timescale))
                else { return .unknown }
                return .found(seconds)
            }
            guard size32 >= 8 else { return .unknown }
            offset += Int(size32)
        }
        return .unknown
    }

    /// Four printable ASCII characters at `offset`, or `nil`.
    static func boxType(_ bytes: ArraySlice<UInt8>, at offset: Int) -> String? {
        let start = bytes.startIndex + offset
        guard offset >= 0, start + 4 <= bytes.endIndex else { return nil }
        let code = bytes[start..<(start + 4)]
        guard code.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: code, as: UTF8.self)
    }
}
