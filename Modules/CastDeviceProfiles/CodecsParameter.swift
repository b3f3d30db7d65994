/// The RFC 6381 `codecs` parameter: `avc1.64001F, mp4a.40.2` in a content type
/// (`video/mp4; codecs="avc1.64001F, mp4a.40.2"`), an HLS `CODECS` attribute or a DASH `codecs`.
///
/// Each entry is read into a stream description with what the string says: H.264 profile and level
/// (`avc1`/`avc3`), HEVC profile and level (`hvc1`/`hev1`), VP9 profile, level and bit depth
/// (`vp09`), AV1 profile, level and bit depth (`av01`), the AAC object type (`mp4a.40.N`), and the
/// plain names (`vp8`, `opus`, `vorbis`, `flac`, `ac-3`, `ec-3`, `mp3`, `wvtt`…).
///
/// Pure and bounded: at most ``maximumLength`` characters and ``maximumEntries`` entries are read;
/// anything it cannot read is an ``Entry/unknown(_:)`` entry, never an error.
public struct CodecsParameter: Sendable, Hashable {
    /// One codec of the list.
    public enum Entry: Sendable, Hashable {
        /// A video codec.
        case video(VideoStreamDescription)
        /// An audio codec.
        case audio(AudioStreamDescription)
        /// A subtitle or caption format (`wvtt`, `stpp`).
        case subtitle(SubtitleStreamDescription)
        /// A string this parser does not know, as given.
        case unknown(String)
    }

    /// The most characters read.
    public static let maximumLength = 1024
    /// The most entries read.
    public static let maximumEntries = 16

    /// The entries, in order.
    public var entries: [Entry]

    /// Reads a codecs list (`avc1.64001F, mp4a.40.2`, quotes allowed).
    public init(_ text: some StringProtocol) {
        let limited = text.prefix(Self.maximumLength)
        let items = limited.split(separator: ",", omittingEmptySubsequences: true)
            .prefix(Self.maximumEntries)
            .map { $0.trimmed(of: " \t\"'") }
            .filter { !$0.isEmpty }
        entries = items.map(Self.entry)
    }

    /// Reads the `codecs` parameter of a content type; `nil` when it has none.
    public init?(contentType: some StringProtocol) {
        let parameters = contentType.prefix(Self.maximumLength * 2).split(separator: ";").dropFirst()
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmed(of: " \t").lowercased() == "codecs" else { continue }
            self.init(pair[1])
            return
        }
        return nil
    }

    /// The video entries.
    public var video: [VideoStreamDescription] {
        entries.compactMap { if case .video(let description) = $0 { description } else { nil } }
    }
    /// The audio entries.
    public var audio: [AudioStreamDescription] {
        entries.compactMap { if case .audio(let description) = $0 { description } else { nil } }
    }
    /// The entries this parser did not know.
    public var unknown: [String] {
        entries.compactMap { if case .unknown(let text) = $0 { text } else { nil } }
    }

    // MARK: Parsing

    static func entry(_ item: String) -> Entry {
        let fields = item.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let tag = fields[0].lowercased()
        switch tag {
        case "avc1", "avc3", "avc2", "avc4":
            return .video(avc(fields) ?? VideoStreamDescription(codec: .h264))
        case "hvc1", "hev1":
            return .video(hevc(fields) ?? VideoStreamDescription(codec: .hevc))
        case "vp09":
            return .video(vp09(fields) ?? VideoStreamDescription(codec: .vp9))
        case "vp9", "vp9.0":
            return .video(VideoStreamDescription(codec: .vp9))
        case "vp8", "vp08":
            return .video(VideoStreamDescription(codec: .vp8))
        case "av01":
            return .video(av01(fields) ?? VideoStreamDescription(codec: .av1))
        case "theora":
            return .video(VideoStreamDescription(codec: .theora))
        case "mp4v":
            return .video(VideoStreamDescription(codec: .mpeg4))
        case "mp4a":
            return mp4a(fields).map { .audio($0) } ?? .unknown(item)
        case "opus":
            return .audio(AudioStreamDescription(codec: .opus))
        case "vorbis":
            return .audio(AudioStreamDescription(codec: .vorbis))
        case "flac":
            return .audio(AudioStreamDescription(codec: .flac))
        case "mp3", ".mp3":
            return .audio(AudioStreamDescription(codec: .mp3))
        case "ac-3", "ac3":
            return .audio(AudioStreamDescription(codec: .ac3))
        case "ec-3", "eac3", "ec+3":
            return .audio(AudioStreamDescription(codec: .eac3))
        case "alac":
            return .audio(AudioStreamDescription(codec: .alac))
        case "dtsc", "dtsh", "dtsl", "dtse", "dtsx":
            return .audio(AudioStreamDescription(codec: .dts))
        case "mlpa":
            return .audio(AudioStreamDescription(codec: .truehd))
        case "wvtt":
            return .subtitle(SubtitleStreamDescription(codec: .webvtt))
        case "stpp":
            return .subtitle(SubtitleStreamDescription(codec: .ttml))
        default:
            if item.lowercased().hasPrefix("fla") { return .audio(AudioStreamDescription(codec: .flac)) }  // fLaC
            return .unknown(item)
        }
    }

    /// `avc1.PPCCLL`: profile_idc, constraint flags and level_idc in hex (also the legacy `avc1.66.30`).
    private static func avc(_ fields: [String]) -> VideoStreamDescription? {
        if fields.count == 2, fields[1].count == 6, let value = Int(fields[1], radix: 16) {
            let profile = value >> 16
            let constraints = (value >> 8) & 0xFF
            let level = value & 0xFF
            return VideoStreamDescription(
                codec: .h264, profile: .h264(profileIDC: profile, constraintSet1: constraints & 0x40 != 0),
                level: CodecLevel(h264LevelIDC: level))
        }
        if fields.count == 3, let profile = Int(fields[1]), let level = Int(fields[2]) {
            return VideoStreamDescription(codec: .h264, profile: .h264(profileIDC: profile), level: CodecLevel(h264LevelIDC: level))
        }
        return nil
    }

    /// `hvc1.[A-C]profile.compatibility.[L|H]level.constraints…`.
    private static func hevc(_ fields: [String]) -> VideoStreamDescription? {
        guard fields.count >= 4 else { return nil }
        var space = fields[1]
        if let first = space.first, "ABCabc".contains(first) { space.removeFirst() }
        guard let profile = Int(space) else { return nil }
        var tierLevel = fields[3]
        guard let tier = tierLevel.first, "LHlh".contains(tier) else { return nil }
        tierLevel.removeFirst()
        guard let level = Int(tierLevel) else { return nil }
        return VideoStreamDescription(codec: .hevc, profile: .hevc(profileIDC: profile), level: CodecLevel(hevcLevelIDC: level))
    }

    /// `vp09.PP.LL.DD[.…]`.
    private static func vp09(_ fields: [String]) -> VideoStreamDescription? {
        guard fields.count >= 4, let profile = Int(fields[1]), let level = Int(fields[2]), let depth = Int(fields[3]),
            (0...3).contains(profile), [8, 10, 12].contains(depth)
        else { return nil }
        return VideoStreamDescription(codec: .vp9, profile: .vp9(profile), level: CodecLevel(vp9Level: level), bitDepth: depth)
    }

    /// `av01.P.LLT.DD[.…]`.
    private static func av01(_ fields: [String]) -> VideoStreamDescription? {
        guard fields.count >= 4, let profile = Int(fields[1]), fields[2].count == 3 else { return nil }
        let levelText = fields[2].prefix(2)
        guard let level = Int(levelText), let depth = Int(fields[3]), [8, 10, 12].contains(depth) else { return nil }
        return VideoStreamDescription(
            codec: .av1, profile: .av1(profile), level: CodecLevel(av1SequenceLevelIndex: level), bitDepth: depth)
    }

    /// `mp4a.OTI[.AOT]`: the object type indication (hex), and the MPEG-4 audio object type for 40.
    private static func mp4a(_ fields: [String]) -> AudioStreamDescription? {
        guard fields.count >= 2, let indication = Int(fields[1], radix: 16) else { return nil }
        switch indication {
        case 0x40:
            guard fields.count >= 3, let objectType = Int(fields[2]) else { return AudioStreamDescription(codec: .aac) }
            if objectType == 34 { return AudioStreamDescription(codec: .mp3) }  // MPEG-1 Layer 3
            return AudioStreamDescription(codec: .aac, profile: .aac(objectType: objectType))
        case 0x66, 0x68: return AudioStreamDescription(codec: .aac, profile: CodecProfile("Main"))
        case 0x67: return AudioStreamDescription(codec: .aac, profile: .lc)
        case 0x69, 0x6B: return AudioStreamDescription(codec: .mp3)
        case 0xA5: return AudioStreamDescription(codec: .ac3)
        case 0xA6: return AudioStreamDescription(codec: .eac3)
        case 0xA9, 0xAC: return AudioStreamDescription(codec: .dts)
        case 0xAD: return AudioStreamDescription(codec: .opus)
        default: return nil
        }
    }
}

extension StringProtocol {
    /// The text without the given characters at either end.
    func trimmed(of characters: String) -> String {
        let set = Set(characters)
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
