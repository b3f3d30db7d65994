/// The container (or delivery format) media arrives in.
public struct MediaContainer: Sendable, Hashable, CustomStringConvertible {
    /// A short, lower-case name (`mp4`, `matroska`, `hls`).
    public let name: String

    /// A container by name.
    public init(_ name: String) { self.name = name.lowercased() }

    /// The name.
    public var description: String { name }

    /// MP4 / QuickTime / ISO BMFF (including fragmented MP4 and `.m4a`).
    public static let mp4 = MediaContainer("mp4")
    /// WebM (Matroska restricted to VP8/VP9/AV1, Vorbis/Opus and WebVTT).
    public static let webm = MediaContainer("webm")
    /// Matroska (`.mkv`, `.mka`) with any codecs.
    public static let matroska = MediaContainer("matroska")
    /// MPEG-2 transport stream.
    public static let mpegts = MediaContainer("mpegts")
    /// Ogg (Vorbis, Opus, FLAC, Theora).
    public static let ogg = MediaContainer("ogg")
    /// A bare MP3 (MPEG audio) stream, possibly with ID3 tags.
    public static let mp3 = MediaContainer("mp3")
    /// A bare AAC stream in ADTS frames.
    public static let adts = MediaContainer("adts")
    /// A bare FLAC stream.
    public static let flac = MediaContainer("flac")
    /// RIFF WAVE.
    public static let wav = MediaContainer("wav")
    /// AVI.
    public static let avi = MediaContainer("avi")
    /// HTTP Live Streaming (an `.m3u8` playlist and its segments).
    public static let hls = MediaContainer("hls")
    /// MPEG-DASH (an `.mpd` manifest and its segments).
    public static let dash = MediaContainer("dash")

    /// The container of an ffprobe `format_name` (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mpegts`…);
    /// for `matroska,webm` the codecs decide (see ``MediaDescription/refinedContainer``), so this returns Matroska.
    public init(ffprobeFormatName name: String) {
        let names = Set(name.lowercased().split(separator: ",").map(String.init))
        if names.contains("mp4") || names.contains("mov") { self = .mp4 }
        else if names.contains("matroska") { self = .matroska }
        else if names.contains("webm") { self = .webm }
        else if names.contains("mpegts") { self = .mpegts }
        else if names.contains("ogg") { self = .ogg }
        else if names.contains("mp3") { self = .mp3 }
        else if names.contains("aac") { self = .adts }
        else if names.contains("flac") { self = .flac }
        else if names.contains("wav") { self = .wav }
        else if names.contains("avi") { self = .avi }
        else if names.contains("hls") || names.contains("applehttp") { self = .hls }
        else if names.contains("dash") { self = .dash }
        else { self = MediaContainer(names.sorted().first ?? name) }
    }
}

/// An image format a device can show.
public struct ImageFormat: Sendable, Hashable, CustomStringConvertible {
    /// A short lower-case name (`jpeg`, `png`).
    public let name: String
    /// An image format by name.
    public init(_ name: String) { self.name = name.lowercased() }
    /// The name.
    public var description: String { name }

    /// JPEG.
    public static let jpeg = ImageFormat("jpeg")
    /// PNG.
    public static let png = ImageFormat("png")
    /// Animated PNG.
    public static let apng = ImageFormat("apng")
    /// GIF.
    public static let gif = ImageFormat("gif")
    /// BMP.
    public static let bmp = ImageFormat("bmp")
    /// WebP.
    public static let webp = ImageFormat("webp")
    /// HEIF/HEIC.
    public static let heif = ImageFormat("heif")
    /// AVIF.
    public static let avif = ImageFormat("avif")
}
