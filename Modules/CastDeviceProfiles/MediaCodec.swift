/// A media codec, named as ffmpeg and ffprobe name it (`h264`, `hevc`, `aac`, `ac3`, `subrip`, …).
///
/// ffmpeg is the field's tool: what ffprobe reports (`codec_name`) and what the receiver's byte-level
/// probes find map onto the same names, so a sender's plan and a device's verdict speak one language.
/// Codecs this library has no constant for are still representable (``init(_:)``).
public struct MediaCodec: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The ffmpeg codec name, lower-case.
    public let name: String

    /// A codec by its ffmpeg name (`codec_name` in `ffprobe -show_streams`).
    public init(_ name: String) { self.name = name.lowercased() }

    /// What kind of stream the codec carries.
    public var kind: MediaStreamKind {
        if Self.videoCodecs.contains(self) { return .video }
        if Self.audioCodecs.contains(self) || name.hasPrefix("pcm_") { return .audio }
        if Self.textSubtitleCodecs.contains(self) || Self.imageSubtitleCodecs.contains(self) { return .subtitle }
        return .other
    }

    /// Whether this is a subtitle codec carried as text (it can become a WebVTT text track).
    public var isTextSubtitle: Bool { Self.textSubtitleCodecs.contains(self) }
    /// Whether this is a subtitle codec carried as pictures (it can only be burnt into the video).
    public var isImageSubtitle: Bool { Self.imageSubtitleCodecs.contains(self) }
    /// Whether this is linear PCM in any sample format (`pcm_s16le`, `pcm_f32le`, …).
    public var isPCM: Bool { name.hasPrefix("pcm_") }

    /// The name, as ffmpeg spells it.
    public var description: String { name }

    /// Orders by name.
    public static func < (lhs: MediaCodec, rhs: MediaCodec) -> Bool { lhs.name < rhs.name }

    // MARK: Video

    /// H.264 / AVC.
    public static let h264 = MediaCodec("h264")
    /// H.265 / HEVC.
    public static let hevc = MediaCodec("hevc")
    /// VP8.
    public static let vp8 = MediaCodec("vp8")
    /// VP9.
    public static let vp9 = MediaCodec("vp9")
    /// AV1.
    public static let av1 = MediaCodec("av1")
    /// MPEG-2 video.
    public static let mpeg2video = MediaCodec("mpeg2video")
    /// MPEG-4 Part 2 (DivX, Xvid).
    public static let mpeg4 = MediaCodec("mpeg4")
    /// VC-1.
    public static let vc1 = MediaCodec("vc1")
    /// Theora.
    public static let theora = MediaCodec("theora")

    // MARK: Audio

    /// AAC (LC, HE-AAC v1 and v2: see ``AudioStreamDescription/profile``).
    public static let aac = MediaCodec("aac")
    /// MPEG-1/2 Audio Layer III.
    public static let mp3 = MediaCodec("mp3")
    /// MPEG-1/2 Audio Layer II.
    public static let mp2 = MediaCodec("mp2")
    /// Opus.
    public static let opus = MediaCodec("opus")
    /// Vorbis.
    public static let vorbis = MediaCodec("vorbis")
    /// FLAC.
    public static let flac = MediaCodec("flac")
    /// Apple Lossless.
    public static let alac = MediaCodec("alac")
    /// Dolby Digital (AC-3).
    public static let ac3 = MediaCodec("ac3")
    /// Dolby Digital Plus (E-AC-3).
    public static let eac3 = MediaCodec("eac3")
    /// DTS (and its extensions, which ffprobe also names `dts`).
    public static let dts = MediaCodec("dts")
    /// Dolby TrueHD.
    public static let truehd = MediaCodec("truehd")
    /// 16-bit little-endian PCM, the WAV default; any `pcm_*` name is PCM (``isPCM``).
    public static let pcmS16LE = MediaCodec("pcm_s16le")

    // MARK: Subtitles

    /// SubRip (`.srt`).
    public static let subrip = MediaCodec("subrip")
    /// Advanced SubStation Alpha.
    public static let ass = MediaCodec("ass")
    /// SubStation Alpha.
    public static let ssa = MediaCodec("ssa")
    /// MP4 timed text (`tx3g`).
    public static let movText = MediaCodec("mov_text")
    /// WebVTT.
    public static let webvtt = MediaCodec("webvtt")
    /// TTML.
    public static let ttml = MediaCodec("ttml")
    /// Plain text subtitles.
    public static let text = MediaCodec("text")
    /// Blu-ray presentation graphics (PGS).
    public static let pgs = MediaCodec("hdmv_pgs_subtitle")
    /// DVB bitmap subtitles.
    public static let dvbSubtitle = MediaCodec("dvb_subtitle")
    /// DVD bitmap subtitles (VobSub).
    public static let dvdSubtitle = MediaCodec("dvd_subtitle")

    static let videoCodecs: Set<MediaCodec> = [
        .h264, .hevc, .vp8, .vp9, .av1, .mpeg2video, .mpeg4, .vc1, .theora,
        MediaCodec("mpeg1video"), MediaCodec("mjpeg"), MediaCodec("wmv3"), MediaCodec("prores"), MediaCodec("h263"),
    ]
    static let audioCodecs: Set<MediaCodec> = [
        .aac, .mp3, .mp2, .opus, .vorbis, .flac, .alac, .ac3, .eac3, .dts, .truehd,
        MediaCodec("wmav2"), MediaCodec("mp1"), MediaCodec("amr_nb"), MediaCodec("amr_wb"),
    ]
    static let textSubtitleCodecs: Set<MediaCodec> = [.subrip, .ass, .ssa, .movText, .webvtt, .ttml, .text, MediaCodec("srt")]
    static let imageSubtitleCodecs: Set<MediaCodec> = [.pgs, .dvbSubtitle, .dvdSubtitle, MediaCodec("xsub")]
}

/// The kind of an elementary stream.
public enum MediaStreamKind: String, Sendable, Hashable, CaseIterable {
    /// Pictures.
    case video
    /// Sound.
    case audio
    /// Subtitles or captions.
    case subtitle
    /// Anything else (attachments, data, fonts).
    case other
}
