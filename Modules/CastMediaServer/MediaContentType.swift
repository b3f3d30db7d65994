/// Content types of media files: from the file name's extension, or sniffed from the first bytes.
public enum MediaContentType {
    /// The type used when neither the extension nor the content identifies the file.
    public static let fallback = "application/octet-stream"

    /// How many leading bytes ``sniff(_:)`` looks at; read at least this many for a reliable answer.
    public static let sniffLength = 512

    private static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "mkv": "video/x-matroska",
        "webm": "video/webm", "ts": "video/mp2t", "m2ts": "video/mp2t", "avi": "video/x-msvideo",
        "ogv": "video/ogg", "mpd": "application/dash+xml", "m3u8": "application/vnd.apple.mpegurl",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "flac": "audio/flac", "ogg": "audio/ogg",
        "oga": "audio/ogg", "opus": "audio/ogg", "wav": "audio/wav", "weba": "audio/webm",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "bmp": "image/bmp", "vtt": "text/vtt", "srt": "application/x-subrip",
    ]

    /// The content type for a file name's extension (case-insensitive), or `nil` when the extension is unknown.
    public static func forFileName(_ name: String) -> String? {
        let base = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        return byExtension[base[base.index(after: dot)...].lowercased()]
    }

    /// Whether a file name has the extension of a video, audio or image type a receiver can play or show.
    public static func isPlayableMedia(fileName: String) -> Bool {
        guard let type = forFileName(fileName) else { return false }
        return type.hasPrefix("video/") || type.hasPrefix("audio/") || type.hasPrefix("image/")
    }

    /// The type by extension, else by content, else ``fallback``.
    public static func resolve(fileName: String, leadingBytes: [UInt8]) -> String {
        forFileName(fileName) ?? sniff(leadingBytes) ?? fallback
    }

    /// Identifies a format from its first bytes: MP4/QuickTime (`ftyp`), Matroska and WebM (EBML with its DocType),
    /// MP3 (ID3 tag or MPEG audio frame sync), AAC (ADTS), FLAC, Ogg, WAV, JPEG, PNG, GIF and WebVTT.
    /// - Returns: the content type, or `nil` when nothing matches.
    public static func sniff(_ bytes: [UInt8]) -> String? {
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        if starts(with: Array("ftyp".utf8), at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            switch brand {
            case "M4A ", "M4B ", "M4P ": return "audio/mp4"
            case "qt  ": return "video/quicktime"
            default: return "video/mp4"
            }
        }
        if starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            switch ebmlDocType(bytes) {
            case "webm": return "video/webm"
            case "matroska": return "video/x-matroska"
            default: return nil
            }
        }
        if starts(with: Array("fLaC".utf8)) { return "audio/flac" }
        if starts(with: Array("OggS".utf8)) { return "audio/ogg" }
        if starts(with: Array("RIFF".utf8)), starts(with: Array("WAVE".utf8), at: 8) { return "audio/wav" }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if isWebVTT(bytes) { return "text/vtt" }
        if starts(with: Array("ID3".utf8)) { return "audio/mpeg" }
        if isADTSHeader(bytes) { return "audio/aac" }
        if isMPEGAudioHeader(bytes) { return "audio/mpeg" }
        return nil
    }

    /// `WEBVTT` after an optional UTF-8 BOM, followed by the end, a space, a tab or a line break.
    static func isWebVTT(_ bytes: [UInt8]) -> Bool {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        guard body.starts(with: Array("WEBVTT".utf8)) else { return false }
        guard body.count > 6 else { return true }
        return [0x20, 0x09, 0x0A, 0x0D].contains(body[6])
    }

    /// An ADTS header: 12-bit sync word, layer 00, a valid sampling frequency index.
    static func isADTSHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else { return false }
        let samplingIndex = (bytes[2] >> 2) & 0x0F
        return samplingIndex < 13
    }

    /// An MPEG-1/2/2.5 audio frame header: 11-bit sync, a version and layer that are not reserved,
    /// a bitrate index that is not `1111`, and a sampling rate index that is not `11`.
    static func isMPEGAudioHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
        let version = (bytes[1] >> 3) & 0x03
        let layer = (bytes[1] >> 1) & 0x03
        let bitrate = bytes[2] >> 4
        let sampling = (bytes[2] >> 2) & 0x03
        return version != 0b01 && layer != 0b00 && bitrate != 0x0F && sampling != 0x03
    }

    /// Walks the EBML header's children looking for DocType (ID `0x4282`).
    static func ebmlDocType(_ bytes: [UInt8]) -> String? {
        var index = 4
        guard let (headerSize, sizeLength) = readVint(bytes, at: index) else { return nil }
        index += sizeLength
        let end = min(bytes.count, index + Int(clamping: headerSize))
        while index < end {
            guard let (id, idLength) = readElementID(bytes, at: index) else { return nil }
            index += idLength
            guard let (size, sizeLength) = readVint(bytes, at: index) else { return nil }
            index += sizeLength
            let length = Int(clamping: size)
            guard length <= end - index else { return nil }
            if id == 0x4282 {
                let raw = bytes[index..<(index + length)].prefix { $0 != 0 }
                return String(decoding: raw, as: UTF8.self)
            }
            index += length
        }
        return nil
    }

    private static func readElementID(_ bytes: [UInt8], at index: Int) -> (UInt32, Int)? {
        guard index < bytes.count, bytes[index] != 0 else { return nil }
        let length = bytes[index].leadingZeroBitCount + 1
        guard length <= 4, index + length <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<(index + length)] { value = value << 8 | UInt32(byte) }
        return (value, length)
    }

    private static func readVint(_ bytes: [UInt8], at index: Int) -> (UInt64, Int)? {
        guard index < bytes.count, bytes[index] != 0 else { return nil }
        let length = bytes[index].leadingZeroBitCount + 1
        guard index + length <= bytes.count else { return nil }
        var value = UInt64(bytes[index] & (0xFF >> length))
        for byte in bytes[(index + 1)..<(index + length)] { value = value << 8 | UInt64(byte) }
        return (value, length)
    }
}
