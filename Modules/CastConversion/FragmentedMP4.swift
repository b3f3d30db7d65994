/// Where a self-initializing fragmented-MP4 segment (`ftyp`, `moov`, then `moof`/`mdat` pairs, as ffmpeg's
/// segment muxer writes one) splits into its initialization section and its media.
///
/// Pure and bounded: it reads only the box headers in the bytes given.
public enum FragmentedMP4 {
    /// The most top-level boxes walked before the first `moof`.
    public static let maximumBoxes = 64

    /// The length of the initialization section: the offset of the first top-level `moof` box, when `ftyp` and
    /// `moov` come before it. `nil` when the bytes are not such a segment (or the `moof` lies beyond them).
    public static func initializationLength(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        var sawMovie = false
        var sawFileType = false
        for _ in 0..<maximumBoxes {
            guard bytes.count - offset >= 8 else { return nil }
            var size = UInt64(bytes[offset]) << 24 | UInt64(bytes[offset + 1]) << 16 | UInt64(bytes[offset + 2]) << 8 | UInt64(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            var header: UInt64 = 8
            if size == 1 {
                guard bytes.count - offset >= 16 else { return nil }
                size = bytes[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | UInt64($1) }
                header = 16
            } else if size == 0 {
                return nil  // to the end of the file: no moof after it
            }
            guard size >= header else { return nil }
            switch type {
            case "ftyp", "styp": sawFileType = true
            case "moov": sawMovie = true
            case "moof": return sawFileType && sawMovie ? offset : nil
            case "mdat": return nil
            default: break
            }
            // A box that ends beyond the bytes given ends the walk (the next header could not be read anyway), and the
            // offset stays within the array: a size near Int.max overflowed the next comparison (found by FuzzFragmentedMP4).
            guard size <= UInt64(bytes.count - offset) else { return nil }
            offset += Int(size)
        }
        return nil
    }
}
