import CastDeviceProfiles

/// What happens to a file for one device: how it is delivered, and for each stream whether it is copied,
/// converted, offered as a text track, burnt in or left out, each with its reason.
///
/// Made by ``ConversionPlan/init(for:profile:options:)`` without I/O; printed (``description``) it reads as a
/// table a person can check:
///
/// ```
/// chromecast-3 (Chromecast (3rd generation)): HLS with MPEG-TS segments, made on demand
///   container matroska → HLS (MPEG-TS): the video and audio are converted
///   video #0 hevc Main 320x180 25fps → H.264 High L4.0 320x180 25fps: hevc video is not decoded by Chromecast (3rd generation)
///   audio #1 ac3 2ch 48000Hz → AAC-LC 2ch 48000Hz 192 kb/s: ac3 audio plays only through an HDMI sink that decodes it (passthrough off)
///   subtitles #2 subrip eng "English" → WebVTT text track: devices show WebVTT text tracks only
/// ```
public struct ConversionPlan: Sendable, Hashable, CustomStringConvertible {
    /// How the device is given the media.
    public enum Delivery: Sendable, Hashable, CustomStringConvertible {
        /// The file as it is, over HTTP with byte ranges.
        case direct
        /// An HLS VOD stream whose segments ffmpeg makes on demand.
        case hls(HLSSegmentContainer)

        /// `the file as it is` or `HLS with MPEG-TS segments`.
        public var description: String {
            switch self {
            case .direct: "the file as it is"
            case .hls(let format): "HLS with \(format) segments, made on demand"
            }
        }
    }

    /// The device profile planned for.
    public var profile: CastDeviceProfile
    /// The policy the plan follows.
    public var policy: TranscodePolicy
    /// How the media reaches the device.
    public var delivery: Delivery
    /// Why it is delivered so.
    public var deliveryReason: String
    /// The container of the source.
    public var sourceContainer: MediaContainer?
    /// The video stream played, and what becomes of it (`nil`: no video is sent).
    public var video: StreamDecision?
    /// The audio stream played, and what becomes of it (`nil`: no audio is sent).
    public var audio: StreamDecision?
    /// Every subtitle stream and what becomes of it.
    public var subtitles: [StreamDecision]
    /// The other streams, left out, with why.
    public var omitted: [StreamDecision]
    /// What the device would do with the source as it is.
    public var support: MediaSupport
    /// The source's duration in seconds, when known (the LOAD carries it).
    public var duration: Double?

    /// Whether any stream is re-encoded (the CPU-heavy part).
    public var transcodes: Bool {
        [video, audio].contains { decision in
            switch decision?.action {
            case .transcodeVideo, .transcodeAudio: true
            default: false
            }
        }
    }

    /// The subtitle streams offered as WebVTT text tracks, in file order.
    public var textTracks: [StreamDecision] { subtitles.filter { $0.action == .textTrack } }

    /// The subtitle stream burnt into the picture, if any.
    public var burntSubtitle: StreamDecision? { subtitles.first { $0.action == .burnIn } }

    /// What the device refuses of the source as it is (its codecs and container), for `--transcode never`.
    public var refusals: [String] { support.refusals }

    /// Creates a plan from its parts (``init(for:profile:options:)`` makes one from a probe).
    public init(
        profile: CastDeviceProfile, policy: TranscodePolicy, delivery: Delivery, deliveryReason: String,
        sourceContainer: MediaContainer?, video: StreamDecision?, audio: StreamDecision?, subtitles: [StreamDecision],
        omitted: [StreamDecision], support: MediaSupport, duration: Double?
    ) {
        self.profile = profile
        self.policy = policy
        self.delivery = delivery
        self.deliveryReason = deliveryReason
        self.sourceContainer = sourceContainer
        self.video = video
        self.audio = audio
        self.subtitles = subtitles
        self.omitted = omitted
        self.support = support
        self.duration = duration
    }

    /// The plan as lines: the delivery, then each stream's decision with its reason.
    public var lines: [String] {
        var lines = ["\(profile): \(delivery)"]
        let target: String = switch delivery {
        case .direct: "as it is"
        case .hls(let format): "HLS (\(format))"
        }
        lines.append("  container \(sourceContainer?.name ?? "unknown") → \(target): \(deliveryReason)")
        for decision in [video, audio].compactMap({ $0 }) + subtitles + omitted {
            lines.append("  \(decision)")
        }
        return lines
    }

    /// ``lines`` joined by line breaks.
    public var description: String { lines.joined(separator: "\n") }
}

/// The segment container of an HLS stream.
public enum HLSSegmentContainer: String, Sendable, Hashable, CustomStringConvertible {
    /// MPEG-TS: H.264 with AAC, MP3, AC-3 or E-AC-3, the format every Cast device reads.
    case mpegts
    /// Fragmented MP4 (CMAF): needed for HEVC, VP9, AV1, Opus and FLAC.
    case fmp4

    /// `MPEG-TS` or `fragmented MP4`.
    public var description: String { self == .mpegts ? "MPEG-TS" : "fragmented MP4" }
    /// The segment files' extension.
    public var fileExtension: String { self == .mpegts ? "ts" : "m4s" }
    /// The segments' content type.
    public var contentType: String { self == .mpegts ? "video/mp2t" : "video/iso.segment" }
}

/// What happens to one stream, and why.
public struct StreamDecision: Sendable, Hashable, CustomStringConvertible {
    /// The stream.
    public var stream: ProbedStream
    /// What happens to it.
    public var action: StreamAction
    /// Why.
    public var reason: String

    /// Creates a decision.
    public init(stream: ProbedStream, action: StreamAction, reason: String) {
        self.stream = stream
        self.action = action
        self.reason = reason
    }

    /// `video #0 hevc Main 320x180 → H.264 High L4.0 320x180: hevc video is not decoded by …`.
    public var description: String {
        let kind = switch stream.kind {
        case .video: "video"
        case .audio: "audio"
        case .subtitle: "subtitles"
        case .other: "stream"
        }
        return "\(kind) \(stream) → \(action): \(reason)"
    }
}

/// What becomes of a stream.
public enum StreamAction: Sendable, Hashable, CustomStringConvertible {
    /// Sent as it is (in its own container, or remuxed into segments).
    case copy
    /// Re-encoded to H.264.
    case transcodeVideo(VideoEncoding)
    /// Re-encoded to AAC or Opus.
    case transcodeAudio(AudioEncoding)
    /// Extracted as a WebVTT text track.
    case textTrack
    /// Drawn into the picture (the video is re-encoded).
    case burnIn
    /// Left out.
    case omit

    /// `copied`, `H.264 High L4.1 1280x720`, `WebVTT text track`…
    public var description: String {
        switch self {
        case .copy: "copied"
        case .transcodeVideo(let encoding): encoding.description
        case .transcodeAudio(let encoding): encoding.description
        case .textTrack: "WebVTT text track"
        case .burnIn: "burnt into the picture"
        case .omit: "left out"
        }
    }
}

/// The H.264 a video stream is converted to.
public struct VideoEncoding: Sendable, Hashable, CustomStringConvertible {
    /// The H.264 profile (High).
    public var profile: CodecProfile
    /// The level, within the device's.
    public var level: CodecLevel
    /// The output width, even.
    public var width: Int
    /// The output height, even.
    public var height: Int
    /// The output frame rate, when it is capped (`nil`: the source's).
    public var frameRate: Double?
    /// The source's frame rate, for printing.
    public var sourceFrameRate: Double?
    /// The peak bit rate in bits per second (`-maxrate`).
    public var maximumBitRate: Int

    /// Creates an encoding.
    public init(profile: CodecProfile, level: CodecLevel, width: Int, height: Int, frameRate: Double?, sourceFrameRate: Double?,
                maximumBitRate: Int) {
        self.profile = profile
        self.level = level
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sourceFrameRate = sourceFrameRate
        self.maximumBitRate = maximumBitRate
    }

    /// The rate frames come out at.
    public var outputFrameRate: Double? { frameRate ?? sourceFrameRate }

    /// `H.264 High L4.1 1280x720 30fps ≤ 5000 kb/s`.
    public var description: String {
        var text = "H.264 \(profile) L\(level) \(width)x\(height)"
        if let rate = outputFrameRate {
            let rounded = (rate * 100).rounded() / 100
            text += rounded == rounded.rounded() ? " \(Int(rounded))fps" : " \(rounded)fps"
        }
        return text + " ≤ \(maximumBitRate / 1000) kb/s"
    }

    /// The RFC 6381 codec string (`avc1.64001f` for High 3.1).
    public var codecsString: String {
        let profileIDC = profile == .main ? 0x4D : profile == .baseline || profile == .constrainedBaseline ? 0x42 : 0x64
        let constraints = profile == .constrainedBaseline ? 0x40 : 0
        let levelIDC = level.major * 10 + level.minor
        func hex(_ value: Int) -> String {
            let text = String(value, radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        return "avc1.\(hex(profileIDC))\(hex(constraints))\(hex(levelIDC))"
    }
}

/// The audio an audio stream is converted to.
public struct AudioEncoding: Sendable, Hashable, CustomStringConvertible {
    /// AAC or Opus.
    public var codec: AudioTarget
    /// Output channels.
    public var channels: Int
    /// Output sample rate.
    public var sampleRate: Int
    /// Bit rate in bits per second.
    public var bitRate: Int

    /// Creates an encoding.
    public init(codec: AudioTarget, channels: Int, sampleRate: Int, bitRate: Int) {
        self.codec = codec
        self.channels = channels
        self.sampleRate = sampleRate
        self.bitRate = bitRate
    }

    /// `AAC-LC 2ch 48000Hz 192 kb/s`.
    public var description: String {
        "\(codec == .aac ? "AAC-LC" : "Opus") \(channels)ch \(sampleRate)Hz \(bitRate / 1000) kb/s"
    }

    /// The RFC 6381 codec string.
    public var codecsString: String { codec == .aac ? "mp4a.40.2" : "opus" }
}
