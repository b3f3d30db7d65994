import CastDeviceProfiles

/// What ffprobe found in a media file: the container, every stream with its index, language, title and
/// dispositions, and the duration.
///
/// ``media`` is the same description in the words `CastDeviceProfile` decides with; ``streams`` keeps
/// what a plan also needs (titles, dispositions, B-frames, bit rates, every stream in file order).
public struct ProbedMedia: Sendable, Hashable {
    /// The file probed, when it came from one file.
    public var path: String?
    /// Where the streams are read from: one input (the file or URL probed), or two for media whose video and
    /// audio come separately (``merging(video:audio:)``); ``ProbedStream/input`` indexes it.
    public var inputs: [MediaInput]
    /// ffprobe's `format_name` (`matroska,webm`, `mov,mp4,m4a,3gp,3g2,mj2`).
    public var formatName: String
    /// The container, streams and duration as a `MediaDescription` (video, audio and subtitle streams; other
    /// streams, such as fonts, are left out).
    public var media: MediaDescription
    /// Every stream, in file order.
    public var streams: [ProbedStream]
    /// The duration in seconds, when known.
    public var duration: Double?
    /// The earliest timestamp in the file, in seconds (0 for most files; MPEG-TS recordings start later).
    public var startTime: Double
    /// The overall bit rate in bits per second, when known.
    public var bitRate: Int?

    /// Creates a probe result.
    public init(
        path: String? = nil, formatName: String, media: MediaDescription, streams: [ProbedStream], duration: Double?,
        startTime: Double = 0, bitRate: Int? = nil, inputs: [MediaInput]? = nil
    ) {
        self.path = path
        self.inputs = inputs ?? path.map { [MediaInput(path: $0)] } ?? []
        self.formatName = formatName
        self.media = media
        self.streams = streams
        self.duration = duration
        self.startTime = startTime
        self.bitRate = bitRate
    }

    /// The stream with this index (of the first input), if any.
    public func stream(index: Int) -> ProbedStream? { streams.first { $0.index == index && $0.input == 0 } }

    /// A name for messages: the file's path, else the first input.
    public var name: String { path ?? inputs.first?.description ?? "the media" }

    /// The moving-picture video streams (cover art left out), in file order.
    public var videoStreams: [ProbedStream] { streams.filter { $0.kind == .video && !$0.isAttachedPicture } }
    /// The audio streams, in file order.
    public var audioStreams: [ProbedStream] { streams.filter { $0.kind == .audio } }
    /// The subtitle streams, in file order.
    public var subtitleStreams: [ProbedStream] { streams.filter { $0.kind == .subtitle } }
}

/// One stream of a probed file.
public struct ProbedStream: Sendable, Hashable, CustomStringConvertible {
    /// The stream's index in its input (ffprobe's `index`, ffmpeg's `input:N`).
    public var index: Int
    /// Which of the media's ``ProbedMedia/inputs`` it is read from (0 for a single file).
    public var input: Int = 0
    /// The `id` ffprobe reports for it (a DASH representation's id), when any.
    public var identifier: String?
    /// Video, audio, subtitle or other.
    public var kind: MediaStreamKind
    /// The codec, as ffprobe names it.
    public var codec: MediaCodec
    /// The codec profile (`High`, `Main 10`, `LC`), when ffprobe gives one.
    public var profile: CodecProfile?
    /// The codec level, when ffprobe gives one.
    public var level: CodecLevel?
    /// The language tag (ISO 639-2, as the file tags it), when there is one.
    public var language: String?
    /// The title tag, when there is one.
    public var title: String?
    /// Whether the file marks it as a default track.
    public var isDefault: Bool
    /// Whether the file marks it as forced.
    public var isForced: Bool
    /// Whether it is an attached picture (cover art).
    public var isAttachedPicture: Bool
    /// Width in pixels (video).
    public var width: Int?
    /// Height in pixels (video).
    public var height: Int?
    /// Frames per second (video).
    public var frameRate: Double?
    /// ffprobe's `pix_fmt` (video).
    public var pixelFormat: String?
    /// Bits per sample: luma depth for video (from the pixel format), sample depth for lossless audio.
    public var bitDepth: Int?
    /// Whether frames are reordered (B-frames: ffprobe's `has_b_frames` above 0).
    public var hasReorderedFrames: Bool
    /// Channels (audio).
    public var channels: Int?
    /// Samples per second (audio).
    public var sampleRate: Int?
    /// The stream's bit rate in bits per second, when known.
    public var bitRate: Int?

    /// Creates a stream description.
    public init(
        index: Int, kind: MediaStreamKind, codec: MediaCodec, profile: CodecProfile? = nil, level: CodecLevel? = nil,
        language: String? = nil, title: String? = nil, isDefault: Bool = false, isForced: Bool = false,
        isAttachedPicture: Bool = false, width: Int? = nil, height: Int? = nil, frameRate: Double? = nil,
        pixelFormat: String? = nil, bitDepth: Int? = nil, hasReorderedFrames: Bool = false, channels: Int? = nil,
        sampleRate: Int? = nil, bitRate: Int? = nil
    ) {
        self.index = index
        self.kind = kind
        self.codec = codec
        self.profile = profile
        self.level = level
        self.language = language
        self.title = title
        self.isDefault = isDefault
        self.isForced = isForced
        self.isAttachedPicture = isAttachedPicture
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.pixelFormat = pixelFormat
        self.bitDepth = bitDepth
        self.hasReorderedFrames = hasReorderedFrames
        self.channels = channels
        self.sampleRate = sampleRate
        self.bitRate = bitRate
    }

    /// The stream as a `VideoStreamDescription`.
    public var videoDescription: VideoStreamDescription {
        VideoStreamDescription(
            index: index, codec: codec, profile: profile, level: level, width: width, height: height, frameRate: frameRate,
            bitDepth: bitDepth, isAttachedPicture: isAttachedPicture)
    }

    /// The stream as an `AudioStreamDescription`.
    public var audioDescription: AudioStreamDescription {
        AudioStreamDescription(
            index: index, codec: codec, profile: profile, channels: channels, sampleRate: sampleRate, bitDepth: bitDepth,
            language: language)
    }

    /// The stream as a `SubtitleStreamDescription`.
    public var subtitleDescription: SubtitleStreamDescription {
        SubtitleStreamDescription(
            index: index, codec: codec, language: language, title: title, isDefault: isDefault, isForced: isForced)
    }

    /// Whether it is a text subtitle stream (SubRip, ASS/SSA, mov_text, WebVTT…) that becomes a WebVTT track.
    public var isTextSubtitle: Bool { kind == .subtitle && codec.isTextSubtitle }
    /// Whether it is an image subtitle stream (PGS, DVB, VobSub) that can only be burnt into the picture.
    public var isImageSubtitle: Bool { kind == .subtitle && codec.isImageSubtitle }

    /// `#2 subrip eng "English" (default)`; a stream of a second input is `#1:0`.
    public var description: String {
        var text = input == 0 ? "#\(index) " : "#\(input):\(index) "
        switch kind {
        case .video: text += videoDescription.description
        case .audio: text += audioDescription.description + (language.map { " \($0)" } ?? "")
        case .subtitle: text += subtitleDescription.description
        case .other: text += codec.name
        }
        if kind != .subtitle, let title { text += " \"\(title)\"" }
        var flags: [String] = []
        if isDefault { flags.append("default") }
        if isForced { flags.append("forced") }
        if isAttachedPicture { flags.append("cover art") }
        if !flags.isEmpty { text += " (\(flags.joined(separator: ", ")))" }
        return text
    }
}
