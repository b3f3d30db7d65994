/// A video stream: codec, profile, level, picture size and rate.
public struct VideoStreamDescription: Sendable, Hashable, CustomStringConvertible {
    /// The stream's index in its container (ffprobe's `index`); `nil` when not known.
    public var index: Int?
    /// The codec.
    public var codec: MediaCodec
    /// The codec profile, when known.
    public var profile: CodecProfile?
    /// The codec level, when known.
    public var level: CodecLevel?
    /// The coded width in pixels, when known.
    public var width: Int?
    /// The coded height in pixels, when known.
    public var height: Int?
    /// Frames per second, when known.
    public var frameRate: Double?
    /// Bits per sample of luma (8, 10, 12), when known.
    public var bitDepth: Int?
    /// Whether this stream is an attached picture (cover art), which devices ignore.
    public var isAttachedPicture: Bool

    /// Creates a description; unknown fields stay `nil`.
    public init(
        index: Int? = nil, codec: MediaCodec, profile: CodecProfile? = nil, level: CodecLevel? = nil, width: Int? = nil,
        height: Int? = nil, frameRate: Double? = nil, bitDepth: Int? = nil, isAttachedPicture: Bool = false
    ) {
        self.index = index
        self.codec = codec
        self.profile = profile
        self.level = level
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitDepth = bitDepth
        self.isAttachedPicture = isAttachedPicture
    }

    /// `hevc Main 640x360` (codec, then what is known of profile, level, size and rate).
    public var description: String {
        var parts = [codec.name]
        if let profile { parts.append(profile.name) }
        if let level { parts.append("L\(level)") }
        if let width, let height { parts.append("\(width)x\(height)") }
        if let frameRate, frameRate > 0 {
            let rounded = (frameRate * 100).rounded() / 100
            parts.append(rounded == rounded.rounded() ? "\(Int(rounded))fps" : "\(rounded)fps")
        }
        if let bitDepth, bitDepth != 8 { parts.append("\(bitDepth)-bit") }
        return parts.joined(separator: " ")
    }
}

/// An audio stream: codec, profile, channels and rate.
public struct AudioStreamDescription: Sendable, Hashable, CustomStringConvertible {
    /// The stream's index in its container; `nil` when not known.
    public var index: Int?
    /// The codec.
    public var codec: MediaCodec
    /// The codec profile (AAC's `LC`, `HE-AAC`), when known.
    public var profile: CodecProfile?
    /// The number of channels, when known.
    public var channels: Int?
    /// Samples per second, when known.
    public var sampleRate: Int?
    /// Bits per sample (PCM, FLAC), when known.
    public var bitDepth: Int?
    /// The stream's language (ISO 639-2, as containers tag it), when known.
    public var language: String?

    /// Creates a description; unknown fields stay `nil`.
    public init(
        index: Int? = nil, codec: MediaCodec, profile: CodecProfile? = nil, channels: Int? = nil, sampleRate: Int? = nil,
        bitDepth: Int? = nil, language: String? = nil
    ) {
        self.index = index
        self.codec = codec
        self.profile = profile
        self.channels = channels
        self.sampleRate = sampleRate
        self.bitDepth = bitDepth
        self.language = language
    }

    /// `aac LC 2ch 48000Hz`.
    public var description: String {
        var parts = [codec.name]
        if let profile, codec == .aac { parts.append(profile.name) }
        if let channels { parts.append("\(channels)ch") }
        if let sampleRate { parts.append("\(sampleRate)Hz") }
        if let bitDepth, codec == .flac || codec.isPCM { parts.append("\(bitDepth)-bit") }
        return parts.joined(separator: " ")
    }
}

/// A subtitle stream inside a media file.
public struct SubtitleStreamDescription: Sendable, Hashable, CustomStringConvertible {
    /// The stream's index in its container; `nil` when not known.
    public var index: Int?
    /// The codec (`subrip`, `ass`, `hdmv_pgs_subtitle`…).
    public var codec: MediaCodec
    /// The language (ISO 639-2 as tagged), when known.
    public var language: String?
    /// The stream's title, when tagged.
    public var title: String?
    /// Whether the container marks it as the default track.
    public var isDefault: Bool
    /// Whether the container marks it as forced.
    public var isForced: Bool

    /// Creates a description.
    public init(
        index: Int? = nil, codec: MediaCodec, language: String? = nil, title: String? = nil, isDefault: Bool = false,
        isForced: Bool = false
    ) {
        self.index = index
        self.codec = codec
        self.language = language
        self.title = title
        self.isDefault = isDefault
        self.isForced = isForced
    }

    /// `subrip eng "English"`.
    public var description: String {
        var text = codec.name
        if let language { text += " \(language)" }
        if let title { text += " \"\(title)\"" }
        return text
    }
}

/// What a media resource holds: its container and its streams.
///
/// Made by ffprobe on the sender's side and by the emulated receiver's byte-level probes on the
/// device's side; ``CastDeviceProfile/support(for:)`` decides what a device plays of it.
public struct MediaDescription: Sendable, Hashable, CustomStringConvertible {
    /// The container, when known.
    public var container: MediaContainer?
    /// The video streams (cover art included, marked ``VideoStreamDescription/isAttachedPicture``).
    public var video: [VideoStreamDescription]
    /// The audio streams.
    public var audio: [AudioStreamDescription]
    /// The subtitle streams.
    public var subtitles: [SubtitleStreamDescription]
    /// The duration in seconds, when known.
    public var duration: Double?
    /// For HLS and DASH, the container of the segments (``MediaContainer/mpegts``, ``MediaContainer/mp4``,
    /// ``MediaContainer/adts``…), when known.
    public var segmentContainer: MediaContainer?

    /// Creates a description.
    public init(
        container: MediaContainer? = nil, video: [VideoStreamDescription] = [], audio: [AudioStreamDescription] = [],
        subtitles: [SubtitleStreamDescription] = [], duration: Double? = nil, segmentContainer: MediaContainer? = nil
    ) {
        self.container = container
        self.video = video
        self.audio = audio
        self.subtitles = subtitles
        self.duration = duration
        self.segmentContainer = segmentContainer
    }

    /// The video streams that are pictures in motion (not cover art).
    public var motionVideo: [VideoStreamDescription] { video.filter { !$0.isAttachedPicture } }

    /// WebM when a Matroska file holds only what WebM allows (VP8/VP9/AV1, Vorbis/Opus, WebVTT),
    /// else the container as it is. ffprobe names both `matroska,webm`.
    public var refinedContainer: MediaContainer? {
        guard container == .matroska || container == .webm else { return container }
        let webmVideo: Set<MediaCodec> = [.vp8, .vp9, .av1]
        let webmAudio: Set<MediaCodec> = [.vorbis, .opus]
        let isWebM = video.allSatisfy { webmVideo.contains($0.codec) || $0.isAttachedPicture }
            && audio.allSatisfy { webmAudio.contains($0.codec) }
            && subtitles.allSatisfy { $0.codec == .webvtt }
            && !(video.isEmpty && audio.isEmpty)
        return isWebM ? .webm : .matroska
    }

    /// `hevc Main 640x360, ac3 6ch` — the streams a device decodes, video first (subtitles counted).
    public var description: String {
        var parts = motionVideo.map(\.description) + audio.map(\.description)
        if !subtitles.isEmpty { parts.append("\(subtitles.count) subtitle stream(s)") }
        if parts.isEmpty { parts.append("no streams found") }
        return parts.joined(separator: ", ")
    }
}
