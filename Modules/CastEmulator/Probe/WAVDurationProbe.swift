/// WAV (RIFF/WAVE): the `data` chunk's size divided by the `fmt ` chunk's byte rate.
enum WAVDurationProbe {
    /// The most chunks walked before `data`.
    static let maximumChunks = 64

    static func looksLikeWAV(_ prefix: [UInt8]) -> Bool {
        prefix.matches("RIFF", at: 0) && prefix.matches("WAVE", at: 8)
    }

    static func probe(_ data: ProbeBytes) -> MediaProbeResult {
        let bytes = data.prefix[...]
        var offset = 12
        var byteRate: UInt64?
        for _ in 0..<maximumChunks {
            guard let size = bytes.uint(littleEndianAt: offset + 4, width: 4) else { return .unknown }
            let body = offset + 8
            if bytes.matches("fmt ", at: offset) {
                byteRate = bytes.uint(littleEndianAt: body + 8, width: 4)
            } else if bytes.matches("data", at: offset) {
                guard let byteRate, byteRate > 0 else { return .unknown }
                var length = Int(size)
                // Streaming writers leave the size 0 or all ones: the data runs to the end of the file.
                if size == 0 || size == 0xFFFF_FFFF {
                    guard let total = data.totalLength, total > body else { return .unknown }
                    length = total - body
                }
                guard let seconds = plausibleSeconds(Double(length) / Double(byteRate)) else { return .unknown }
                return .found(seconds)
            }
            offset = body + Int(size) + Int(size & 1)
        }
        return .unknown
    }
}
