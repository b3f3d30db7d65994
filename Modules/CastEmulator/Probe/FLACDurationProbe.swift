/// FLAC: `STREAMINFO` holds the sample rate and the total number of samples.
enum FLACDurationProbe {
    static func looksLikeFLAC(_ prefix: [UInt8]) -> Bool {
        prefix.matches("fLaC", at: MP3DurationProbe.id3v2Length(prefix[...]))
    }

    static func probe(_ prefix: [UInt8]) -> MediaProbeResult {
        let start = MP3DurationProbe.id3v2Length(prefix[...])
        // "fLaC", then the first metadata block, which must be STREAMINFO (type 0, 34 bytes).
        guard let blockHeader = prefix.uint(bigEndianAt: start + 4, width: 4), (blockHeader >> 24) & 0x7F == 0,
            blockHeader & 0xFF_FFFF >= 34
        else { return .unknown }
        return streamInfoDuration(prefix[...], at: start + 8)
    }

    /// The duration from a STREAMINFO block body starting at `offset`.
    static func streamInfoDuration(_ bytes: ArraySlice<UInt8>, at offset: Int) -> MediaProbeResult {
        // After min/max block size (2 + 2) and min/max frame size (3 + 3): 20 bits sample rate,
        // 3 bits channels, 5 bits bits per sample, 36 bits total samples.
        guard let packed = bytes.uint(bigEndianAt: offset + 10, width: 8) else { return .unknown }
        let sampleRate = packed >> 44
        let totalSamples = packed & 0xF_FFFF_FFFF
        guard sampleRate > 0, totalSamples > 0, let seconds = plausibleSeconds(Double(totalSamples) / Double(sampleRate)) else {
            return .unknown
        }
        return .found(seconds)
    }
}
