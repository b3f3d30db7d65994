/// When a file is converted for a device.
public enum TranscodePolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Copy every stream the device plays and convert only the others (the default).
    case auto
    /// Convert video to H.264 and audio to AAC (or Opus) even when the device would play them.
    case always
    /// Never convert: the file is loaded as it is, and a device that cannot play it refuses it.
    case never

    /// The raw value.
    public var description: String { rawValue }
}

/// The audio codec converted audio becomes.
public enum AudioTarget: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// AAC-LC (every Cast device, in MPEG-TS and MP4 segments).
    case aac
    /// Opus (every Cast device; MP4 segments only).
    case opus

    /// The raw value.
    public var description: String { rawValue }
}

/// Hardware video encoding.
public enum HardwareAcceleration: Sendable, Hashable, CustomStringConvertible {
    /// Software encoding (libx264).
    case none
    /// VAAPI through a DRM render node (`/dev/dri/renderD128`), falling back to software when ffmpeg cannot
    /// open it.
    case vaapi(device: String)

    /// VAAPI on the first render node when there is one, else none.
    public static func automatic(renderNodes: [String] = ["/dev/dri/renderD128", "/dev/dri/renderD129"]) -> HardwareAcceleration {
        for node in renderNodes where access(node, R_OK | W_OK) == 0 { return .vaapi(device: node) }
        return .none
    }

    /// `none` or `vaapi (/dev/dri/renderD128)`.
    public var description: String {
        switch self {
        case .none: "none"
        case .vaapi(let device): "vaapi (\(device))"
        }
    }
}

/// How a file is planned and converted for a device.
public struct ConversionOptions: Sendable, Hashable {
    /// When to convert.
    public var policy: TranscodePolicy
    /// Whether the device's HDMI sink decodes AC-3 and E-AC-3 (they are then copied to devices that pass them through).
    public var hdmiPassthrough: Bool
    /// The subtitle stream (by stream index, as ffprobe numbers it) to burn into the picture; the video is then
    /// transcoded. Image subtitles (PGS, DVB, VobSub) can only be shown this way.
    public var burnSubtitleStream: Int?
    /// The video stream to play (by stream index); by default the first marked default, else the first.
    public var videoStream: Int?
    /// The audio stream to play (by stream index); by default the first marked default, else the first.
    public var audioStream: Int?
    /// What converted audio becomes.
    public var audioTarget: AudioTarget
    /// Hardware video encoding.
    public var hardwareAcceleration: HardwareAcceleration
    /// The x264 preset for converted video (`veryfast` by default: about real time for 1080p on two cores).
    public var videoPreset: String
    /// The x264 constant rate factor (lower is better and larger).
    public var videoQuality: Int
    /// The length of the segments of a converted stream, in seconds (the first ones are shorter, so that
    /// playback starts sooner).
    public var segmentDuration: Double

    /// Creates options; the defaults copy what plays and convert the rest to H.264 and AAC.
    public init(
        policy: TranscodePolicy = .auto, hdmiPassthrough: Bool = false, burnSubtitleStream: Int? = nil,
        videoStream: Int? = nil, audioStream: Int? = nil, audioTarget: AudioTarget = .aac,
        hardwareAcceleration: HardwareAcceleration = .none, videoPreset: String = "veryfast", videoQuality: Int = 23,
        segmentDuration: Double = 3
    ) {
        self.policy = policy
        self.hdmiPassthrough = hdmiPassthrough
        self.burnSubtitleStream = burnSubtitleStream
        self.videoStream = videoStream
        self.audioStream = audioStream
        self.audioTarget = audioTarget
        self.hardwareAcceleration = hardwareAcceleration
        self.videoPreset = videoPreset
        self.videoQuality = videoQuality
        self.segmentDuration = segmentDuration
    }
}

#if canImport(Glibc)
import Glibc
#endif
