/// MPEG audio (MP3, and layers I and II): a Xing/Info or VBRI header's frame count, else, for a
/// constant bitrate, the audio length divided by the bitrate.
enum MP3DurationProbe {
    /// One MPEG audio frame header.
    struct FrameHeader: Sendable, Hashable {
        /// 1 for MPEG-1, 2 for MPEG-2, 25 for MPEG-2.5.
        var version: Int
        var layer: Int
        var bitrate: Int
        var sampleRate: Int
        var isMono: Bool
        var frameLength: Int

        var samplesPerFrame: Int {
            switch layer {
            case 1: 384
            case 2: 1152
            default: version == 1 ? 1152 : 576
            }
        }

        /// Parses four header bytes; `nil` for anything that is not a valid header.
        init?(_ bytes: ArraySlice<UInt8>, at offset: Int) {
            guard let word = bytes.uint(bigEndianAt: offset, width: 4) else { return nil }
            guard word >> 21 == 0x7FF else { return nil }
            let versionBits = Int(word >> 19) & 3
            let layerBits = Int(word >> 17) & 3
            let bitrateIndex = Int(word >> 12) & 0xF
            let rateIndex = Int(word >> 10) & 3
            let padding = Int(word >> 9) & 1
            guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
            version = [25, 0, 2, 1][versionBits]
            layer = 4 - layerBits
            let table: [Int]
            switch (version == 1, layer) {
            case (true, 1): table = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
            case (true, 2): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
            case (true, _): table = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            case (false, 1): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
            case (false, _): table = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            }
            bitrate = table[bitrateIndex] * 1000
            let rates = version == 1 ? [44_100, 48_000, 32_000] : version == 2 ? [22_050, 24_000, 16_000] : [11_025, 12_000, 8_000]
            sampleRate = rates[rateIndex]
            isMono = (word >> 6) & 3 == 3
            if layer == 1 {
                frameLength = (12 * bitrate / sampleRate + padding) * 4
            } else {
                let factor = layer == 3 && version != 1 ? 72 : 144
                frameLength = factor * bitrate / sampleRate + padding
            }
        }
    }

    /// How far past the tags the first frame is looked for.
    static let searchLimit = 8192

    /// `nil` when the bytes do not start (after ID3v2 tags) with two consecutive MPEG audio frames.
    static func probe(_ data: ProbeBytes) -> MediaProbeResult? {
        let bytes = data.prefix[...]
        let tags = id3v2Length(bytes)
        guard tags < bytes.count else { return nil }
        var offset = tags
        var found: FrameHeader?
        while offset < min(bytes.count, tags + searchLimit) {
            // A frame right after the tags needs one confirming frame; one found past junk needs two.
            if let header = FrameHeader(bytes, at: offset), isConfirmed(header, bytes, at: offset),
                offset == tags || isConfirmed(header, bytes, at: offset + header.frameLength)
            {
                found = header
                break
            }
            offset += 1
        }
        guard let header = found else { return nil }
        // Xing/Info sits after the side information; VBRI 32 bytes after the header.
        let sideInfo = header.version == 1 ? (header.isMono ? 17 : 32) : (header.isMono ? 9 : 17)
        let xing = offset + 4 + sideInfo
        if bytes.matches("Xing", at: xing) || bytes.matches("Info", at: xing) {
            if let flags = bytes.uint(bigEndianAt: xing + 4, width: 4), flags & 1 == 1,
                let frames = bytes.uint(bigEndianAt: xing + 8, width: 4), frames > 0
            {
                return seconds(Double(frames) * Double(header.samplesPerFrame) / Double(header.sampleRate))
            }
        }
        if bytes.matches("VBRI", at: offset + 36), let frames = bytes.uint(bigEndianAt: offset + 36 + 14, width: 4), frames > 0 {
            return seconds(Double(frames) * Double(header.samplesPerFrame) / Double(header.sampleRate))
        }
        guard let total = data.totalLength, total > offset else { return .unknown }
        // ID3v1 (128 bytes) at the end is not audio; the probe cannot see it, so the estimate keeps it.
        return seconds(Double(total - offset) * 8 / Double(header.bitrate))
    }

    private static func seconds(_ value: Double) -> MediaProbeResult {
        plausibleSeconds(value).map(MediaProbeResult.found) ?? .unknown
    }

    /// A header counts when the next frame starts with a header of the same stream (or the bytes end first).
    private static func isConfirmed(_ header: FrameHeader, _ bytes: ArraySlice<UInt8>, at offset: Int) -> Bool {
        let next = offset + header.frameLength
        guard header.frameLength > 4 else { return false }
        guard next + 4 <= bytes.count else { return next >= bytes.count }
        guard let following = FrameHeader(bytes, at: next) else { return false }
        return following.version == header.version && following.layer == header.layer
            && following.sampleRate == header.sampleRate
    }

    /// The length of the ID3v2 tags at the start (0 when there are none).
    static func id3v2Length(_ bytes: ArraySlice<UInt8>) -> Int {
        var offset = 0
        for _ in 0..<4 {
            guard bytes.matches("ID3", at: offset), let flags = bytes.uint(bigEndianAt: offset + 5, width: 1),
                let size = bytes.uint(bigEndianAt: offset + 6, width: 4), size & 0x8080_8080 == 0
            else { break }
            let length = Int((size >> 24) & 0x7F) << 21 | Int((size >> 16) & 0x7F) << 14 | Int((size >> 8) & 0x7F) << 7 | Int(size & 0x7F)
            offset += 10 + length + (flags & 0x10 != 0 ? 10 : 0)
        }
        return offset
    }
}
