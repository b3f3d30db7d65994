/// Ogg (Vorbis, Opus, FLAC): the last page's granule position, in samples of the codec's rate
/// (Opus: 48 kHz, less the pre-skip). The last page is near the end of the file: the probe asks for
/// the file's tail when the fetched prefix is not the whole file.
enum OggDurationProbe {
    /// How many bytes of the file's end are read to find the last page.
    static let tailLength = 64 * 1024

    static func looksLikeOgg(_ prefix: [UInt8]) -> Bool { prefix.matches("OggS", at: 0) }

    /// A codec's timing: samples per second and samples to subtract.
    struct Timing: Sendable, Hashable {
        var rate: Int
        var preSkip: Int
    }

    static func probe(_ data: ProbeBytes) -> MediaProbeResult {
        let prefix = data.prefix[...]
        guard let segments = prefix.uint(bigEndianAt: 26, width: 1), let serial = prefix.uint(littleEndianAt: 14, width: 4),
            let timing = timing(prefix, packetAt: 27 + Int(segments))
        else { return .unknown }
        let tail: ArraySlice<UInt8>
        if data.prefixIsComplete {
            tail = prefix
        } else {
            guard let total = data.totalLength, total > prefix.count else { return .unknown }
            let start = max(0, total - tailLength)
            guard let window = data.bytes(at: start, count: total - start) else { return .needsBytes(start...(total - 1)) }
            tail = window
        }
        guard let granule = lastGranule(in: tail, serial: serial), granule > UInt64(timing.preSkip),
            let seconds = plausibleSeconds(Double(granule - UInt64(timing.preSkip)) / Double(timing.rate))
        else { return .unknown }
        return .found(seconds)
    }

    /// The codec of the first packet and its timing; `nil` for codecs the probe does not time (Theora).
    static func timing(_ bytes: ArraySlice<UInt8>, packetAt offset: Int) -> Timing? {
        if bytes.matches("\u{01}vorbis", at: offset), let rate = bytes.uint(littleEndianAt: offset + 12, width: 4), rate > 0 {
            return Timing(rate: Int(rate), preSkip: 0)
        }
        if bytes.matches("OpusHead", at: offset), let preSkip = bytes.uint(littleEndianAt: offset + 10, width: 2) {
            return Timing(rate: 48_000, preSkip: Int(preSkip))
        }
        // Ogg FLAC: 0x7F "FLAC", version (2), header count (2), "fLaC", a block header (4), then
        // STREAMINFO (17 bytes in), whose sample rate sits 10 bytes in.
        if bytes.uint(bigEndianAt: offset, width: 1) == 0x7F, bytes.matches("FLAC", at: offset + 1),
            let packed = bytes.uint(bigEndianAt: offset + 17 + 10, width: 8), packed >> 44 > 0
        {
            return Timing(rate: Int(packed >> 44), preSkip: 0)
        }
        return nil
    }

    /// The granule position of the last complete-looking page of `serial` in `bytes`.
    static func lastGranule(in bytes: ArraySlice<UInt8>, serial: UInt64) -> UInt64? {
        var index = bytes.endIndex - 27
        while index >= bytes.startIndex {
            let offset = index - bytes.startIndex
            if bytes[index] == 0x4F, bytes.matches("OggS", at: offset), bytes.uint(bigEndianAt: offset + 4, width: 1) == 0,
                bytes.uint(littleEndianAt: offset + 14, width: 4) == serial,
                let granule = bytes.uint(littleEndianAt: offset + 6, width: 8), granule != .max
            {
                return granule
            }
            index -= 1
        }
        return nil
    }
}
