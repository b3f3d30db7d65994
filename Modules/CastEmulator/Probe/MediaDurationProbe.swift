/// What the receiver learned about the length of fetched media.
enum ProbedDuration: Sendable, Hashable {
    /// The media plays this many seconds.
    case seconds(Double)
    /// The media has no end (a live HLS playlist without `#EXT-X-ENDLIST`, a dynamic DASH manifest).
    case live
}

/// Bytes of one resource the probe has seen: windows at known offsets, and the resource's total size
/// when the server said it (`Content-Range: bytes a-b/TOTAL`, or the length of a complete 200 body).
struct ProbeBytes: Sendable, Hashable {
    struct Window: Sendable, Hashable {
        var offset: Int
        var bytes: [UInt8]
        var end: Int { offset + bytes.count }
    }

    private(set) var windows: [Window]
    var totalLength: Int?

    init(prefix: [UInt8], totalLength: Int?) {
        windows = [Window(offset: 0, bytes: prefix)]
        self.totalLength = totalLength
    }

    /// Adds the bytes a follow-up range request returned.
    mutating func add(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, !bytes.isEmpty else { return }
        windows.append(Window(offset: offset, bytes: bytes))
    }

    /// The first window's bytes (the resource's prefix).
    var prefix: [UInt8] { windows[0].bytes }

    /// Whether the prefix is the whole resource.
    var prefixIsComplete: Bool { totalLength.map { windows[0].bytes.count >= $0 } ?? false }

    /// `count` bytes starting at `offset`, when one window holds all of them.
    func bytes(at offset: Int, count: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, count >= 0 else { return nil }
        for window in windows where window.offset <= offset && offset + count <= window.end {
            let start = offset - window.offset
            return window.bytes[start..<(start + count)]
        }
        return nil
    }

    /// The bytes from `offset` to the end of the window holding `offset`.
    func tail(from offset: Int) -> ArraySlice<UInt8>? {
        for window in windows where window.offset <= offset && offset < window.end {
            return window.bytes[(offset - window.offset)...]
        }
        return nil
    }
}

/// The verdict of a duration probe on the bytes it was given.
enum MediaProbeResult: Sendable, Hashable {
    /// The probe knows.
    case found(ProbedDuration)
    /// The probe needs these bytes of the same resource (an `moov` after `mdat`, an Ogg file's last page,
    /// the rest of a manifest), then must be run again with them added.
    case needsBytes(ClosedRange<Int>)
    /// A master HLS playlist: the duration is in this variant playlist (a URL, possibly relative).
    case followPlaylist(String)
    /// Not a format the probes read, or the bytes do not say.
    case unknown
}

/// Reads the duration of media from what the receiver fetched, like a player reads a file's header:
/// MP4/MOV, Matroska/WebM, MP3, AAC in ADTS, FLAC, Ogg (Vorbis, Opus, FLAC), WAV, HLS and DASH.
///
/// Pure and bounded: every parser walks a bounded number of structures in the bytes it is given and
/// never allocates more than a small multiple of its input; hostile input ends in `.unknown`.
enum MediaDurationProbe {
    /// The most bytes a follow-up request asks for (an `moov` header, an Ogg tail, the rest of a manifest).
    static let followUpLimit = 256 * 1024

    /// Probes `data` fetched from `url` with the response's `Content-Type`.
    static func probe(_ data: ProbeBytes, contentType: String?, url: String) -> MediaProbeResult {
        let type = contentType.map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let path = url.split(separator: "?").first.map(String.init)?.lowercased() ?? ""
        let prefix = data.prefix
        if HLSPlaylistProbe.looksLikePlaylist(prefix) || type.contains("mpegurl") || path.hasSuffix(".m3u8") {
            return manifest(data) { HLSPlaylistProbe.probe($0) }
        }
        if DASHManifestProbe.looksLikeManifest(prefix) || type == "application/dash+xml" || path.hasSuffix(".mpd") {
            return manifest(data) { DASHManifestProbe.probe($0) }
        }
        if MP4DurationProbe.looksLikeMP4(prefix) { return MP4DurationProbe.probe(data) }
        if MatroskaDurationProbe.looksLikeMatroska(prefix) { return MatroskaDurationProbe.probe(prefix) }
        if FLACDurationProbe.looksLikeFLAC(prefix) { return FLACDurationProbe.probe(prefix) }
        if WAVDurationProbe.looksLikeWAV(prefix) { return WAVDurationProbe.probe(data) }
        if OggDurationProbe.looksLikeOgg(prefix) { return OggDurationProbe.probe(data) }
        // ADTS only at the start (after tags); MP3 may follow junk, so it is tried last.
        if let result = ADTSDurationProbe.probe(data) { return result }
        if let result = MP3DurationProbe.probe(data) { return result }
        return .unknown
    }

    /// A text manifest is read whole: when only a prefix arrived, ask for the rest (up to the limit).
    private static func manifest(_ data: ProbeBytes, _ parse: (String) -> MediaProbeResult) -> MediaProbeResult {
        var bytes = data.prefix
        if let total = data.totalLength, total > bytes.count {
            if let rest = data.bytes(at: bytes.count, count: min(total, followUpLimit) - bytes.count) {
                bytes += rest
            } else if bytes.count < followUpLimit {
                return .needsBytes(bytes.count...(min(total, followUpLimit) - 1))
            }
        }
        return parse(String(decoding: bytes, as: UTF8.self))
    }
}

/// Big- and little-endian reads from a byte slice, `nil` past its end.
extension ArraySlice where Element == UInt8 {
    func uint(bigEndianAt offset: Int, width: Int) -> UInt64? {
        let start = startIndex + offset
        guard offset >= 0, width <= 8, start + width <= endIndex else { return nil }
        var value: UInt64 = 0
        for index in start..<(start + width) { value = value << 8 | UInt64(self[index]) }
        return value
    }

    func uint(littleEndianAt offset: Int, width: Int) -> UInt64? {
        let start = startIndex + offset
        guard offset >= 0, width <= 8, start + width <= endIndex else { return nil }
        var value: UInt64 = 0
        for index in (start..<(start + width)).reversed() { value = value << 8 | UInt64(self[index]) }
        return value
    }

    func matches(_ text: String, at offset: Int) -> Bool {
        let bytes = Array(text.utf8)
        let start = startIndex + offset
        guard offset >= 0, start + bytes.count <= endIndex else { return false }
        return self[start..<(start + bytes.count)].elementsEqual(bytes)
    }
}

extension Array where Element == UInt8 {
    func uint(bigEndianAt offset: Int, width: Int) -> UInt64? { self[...].uint(bigEndianAt: offset, width: width) }
    func uint(littleEndianAt offset: Int, width: Int) -> UInt64? { self[...].uint(littleEndianAt: offset, width: width) }
    func matches(_ text: String, at offset: Int) -> Bool { self[...].matches(text, at: offset) }
}

/// A duration in seconds that a player would accept: finite, positive, below a year.
func plausibleSeconds(_ value: Double) -> ProbedDuration? {
    guard value.isFinite, value > 0, value < 366 * 24 * 3600 else { return nil }
    return .seconds(value)
}
