/// AAC in ADTS frames: each frame holds 1024 samples per raw data block. The frames in the fetched
/// bytes are counted; when the file is longer, their average length scales to the whole file.
enum ADTSDurationProbe {
    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]
    /// The most frames counted.
    static let maximumFrames = 100_000

    struct FrameHeader: Sendable, Hashable {
        var sampleRate: Int
        var frameLength: Int
        var blocks: Int

        init?(_ bytes: ArraySlice<UInt8>, at offset: Int) {
            guard let word = bytes.uint(bigEndianAt: offset, width: 7) else { return nil }
            // 12 sync bits, the MPEG version bit, then two layer bits that are always 0 (MP3 has 1 to 3 there).
            guard word >> 44 == 0xFFF, (word >> 41) & 3 == 0 else { return nil }
            let rateIndex = Int(word >> 34) & 0xF
            guard rateIndex < sampleRates.count else { return nil }
            sampleRate = sampleRates[rateIndex]
            frameLength = Int(word >> 13) & 0x1FFF
            blocks = Int(word & 3) + 1
            let headerLength = word & (1 << 40) != 0 ? 7 : 9
            guard frameLength > headerLength else { return nil }
        }
    }

    /// `nil` when the bytes do not start (after ID3v2 tags) with two consecutive ADTS frames.
    static func probe(_ data: ProbeBytes) -> MediaProbeResult? {
        let bytes = data.prefix[...]
        let start = MP3DurationProbe.id3v2Length(bytes)
        guard let first = FrameHeader(bytes, at: start) else { return nil }
        if start + first.frameLength + 7 <= bytes.count {
            guard let second = FrameHeader(bytes, at: start + first.frameLength), second.sampleRate == first.sampleRate else {
                return nil
            }
        }
        var offset = start
        var frames = 0
        var samples = 0
        while frames < maximumFrames, let header = FrameHeader(bytes, at: offset), offset + header.frameLength <= bytes.count {
            frames += 1
            samples += 1024 * header.blocks
            offset += header.frameLength
        }
        guard frames > 0 else { return .unknown }
        let counted = Double(samples) / Double(first.sampleRate)
        let total = data.totalLength ?? bytes.count
        if offset >= total || data.prefixIsComplete {
            return plausibleSeconds(counted).map(MediaProbeResult.found) ?? .unknown
        }
        let estimate = counted * Double(total - start) / Double(offset - start)
        return plausibleSeconds(estimate).map(MediaProbeResult.found) ?? .unknown
    }
}
