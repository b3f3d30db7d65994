/// What a model of Cast device can decode and show: its video codecs with their profiles, levels,
/// sizes and rates, its audio codecs, the containers and images it reads, and where real devices
/// are known to be more lenient than Google's table.
///
/// The presets (``chromecast1``, ``chromecast3``, ``ultra``, …) follow Google's "Supported Media for
/// Google Cast" table model by model (see the article <doc:DeviceMediaProfiles>). The emulated
/// receiver refuses what its profile cannot play; a sender plans per stream with the same profile
/// (``support(for:hdmiPassthrough:)``): copy what plays, convert the rest.
public struct CastDeviceProfile: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The preset's name (`chromecast-3`, `ultra`), as `--profile` takes it.
    public var id: String
    /// The model's name for people ("Chromecast (3rd generation)").
    public var displayName: String
    /// The model name the device advertises (mDNS TXT `md`, `eureka_info` `model_name`).
    public var model: String
    /// Whether the device shows video (a Chromecast, a Nest Hub) or only plays sound (a speaker).
    public var hasVideoOutput: Bool
    /// The video the device decodes; empty on audio-only devices.
    public var video: [VideoCapability]
    /// The audio the device decodes itself.
    public var audio: [AudioCapability]
    /// Audio the device only passes to an HDMI sink that decodes it (AC-3, E-AC-3): it plays when
    /// the sink takes it (`--hdmi-passthrough` on the emulator), else it is refused.
    public var passthroughAudio: Set<MediaCodec>
    /// The containers and delivery formats the device reads.
    public var containers: Set<MediaContainer>
    /// The image formats the device shows.
    public var images: Set<ImageFormat>
    /// The largest image shown unscaled (Google: 1280×720); larger images are scaled down, not refused.
    public var imageDisplaySize: VideoMode?
    /// Where real devices of this model play more than the table lists (see ``Leniency``).
    public var leniencies: [Leniency]
    /// Whether the profile accepts anything at all (the ``any`` preset: the emulator's behaviour
    /// before it modelled codecs).
    public var acceptsEverything: Bool

    /// Creates a profile.
    public init(
        id: String, displayName: String, model: String, hasVideoOutput: Bool, video: [VideoCapability],
        audio: [AudioCapability], passthroughAudio: Set<MediaCodec> = [], containers: Set<MediaContainer>,
        images: Set<ImageFormat> = [], imageDisplaySize: VideoMode? = nil, leniencies: [Leniency] = [],
        acceptsEverything: Bool = false
    ) {
        self.id = id
        self.displayName = displayName
        self.model = model
        self.hasVideoOutput = hasVideoOutput
        self.video = video
        self.audio = audio
        self.passthroughAudio = passthroughAudio
        self.containers = containers
        self.images = images
        self.imageDisplaySize = imageDisplaySize
        self.leniencies = leniencies
        self.acceptsEverything = acceptsEverything
    }

    /// `chromecast-3 (Chromecast (3rd generation))`.
    public var description: String { "\(id) (\(displayName))" }

    /// The video capability for a codec, when the device decodes it.
    public func capability(for codec: MediaCodec) -> VideoCapability? { video.first { $0.codec == codec } }
    /// The audio capability for a codec, when the device decodes it.
    public func capability(for codec: MediaCodec) -> AudioCapability? {
        audio.first { $0.codec == codec || ($0.codec.isPCM && codec.isPCM) }
    }
    /// Whether a leniency applies to this profile.
    public func allows(_ leniency: Leniency.ID) -> Bool { leniencies.contains { $0.id == leniency } }
}

/// A picture size and rate a decoder reaches: `1920×1080 at 30 fps`.
public struct VideoMode: Sendable, Hashable, CustomStringConvertible {
    /// The widest picture, in pixels.
    public var width: Int
    /// The tallest picture, in pixels.
    public var height: Int
    /// The highest rate at that size, in frames per second.
    public var frameRate: Double

    /// Creates a mode.
    public init(width: Int, height: Int, frameRate: Double) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// Whether a picture of this size and rate fits (either orientation; unknown values fit).
    public func admits(width: Int?, height: Int?, frameRate: Double?) -> Bool {
        if let rate = frameRate, rate > self.frameRate + 0.5 { return false }
        guard let width, let height else { return true }
        let long = max(width, height), short = min(width, height)
        return long <= max(self.width, self.height) && short <= min(self.width, self.height)
    }

    /// `1920x1080@30`.
    public var description: String {
        let rate = frameRate == frameRate.rounded() ? "\(Int(frameRate))" : "\(frameRate)"
        return "\(width)x\(height)@\(rate)"
    }

    /// 1280×720 at 60 fps.
    public static let hd720p60 = VideoMode(width: 1280, height: 720, frameRate: 60)
    /// 1280×720 at 30 fps.
    public static let hd720p30 = VideoMode(width: 1280, height: 720, frameRate: 30)
    /// 1920×1080 at 30 fps.
    public static let fullHD30 = VideoMode(width: 1920, height: 1080, frameRate: 30)
    /// 1920×1080 at 60 fps.
    public static let fullHD60 = VideoMode(width: 1920, height: 1080, frameRate: 60)
    /// 3840×2160 at 30 fps.
    public static let uhd30 = VideoMode(width: 3840, height: 2160, frameRate: 30)
    /// 4096×2160 at 30 fps ("4Kx2K").
    public static let dci4K30 = VideoMode(width: 4096, height: 2160, frameRate: 30)
    /// 4096×2160 at 60 fps.
    public static let dci4K60 = VideoMode(width: 4096, height: 2160, frameRate: 60)
}

/// One video codec a device decodes, and how far.
public struct VideoCapability: Sendable, Hashable {
    /// The codec.
    public var codec: MediaCodec
    /// The profiles decoded; `nil` means any (VP8 has none).
    public var profiles: Set<CodecProfile>?
    /// The highest level decoded; `nil` means no limit is known.
    public var maximumLevel: CodecLevel?
    /// The sizes and rates reached: a stream must fit one of them ("720p/60fps or 1080p/30fps").
    public var modes: [VideoMode]
    /// The deepest luma bit depth decoded (8 unless Main 10 / Profile 2).
    public var maximumBitDepth: Int

    /// Creates a capability.
    public init(
        codec: MediaCodec, profiles: Set<CodecProfile>? = nil, maximumLevel: CodecLevel? = nil, modes: [VideoMode],
        maximumBitDepth: Int = 8
    ) {
        self.codec = codec
        self.profiles = profiles
        self.maximumLevel = maximumLevel
        self.modes = modes
        self.maximumBitDepth = maximumBitDepth
    }
}

/// One audio codec a device decodes.
public struct AudioCapability: Sendable, Hashable {
    /// The codec (any `pcm_*` codec matches a PCM capability).
    public var codec: MediaCodec
    /// The profiles decoded; `nil` means any.
    public var profiles: Set<CodecProfile>?
    /// The highest sample rate decoded, in Hz; `nil` means no limit is known.
    public var maximumSampleRate: Int?
    /// The deepest sample decoded, in bits; `nil` means no limit is known.
    public var maximumBitDepth: Int?
    /// The most channels decoded; `nil` means no limit is known.
    public var maximumChannels: Int?

    /// Creates a capability.
    public init(
        codec: MediaCodec, profiles: Set<CodecProfile>? = nil, maximumSampleRate: Int? = nil, maximumBitDepth: Int? = nil,
        maximumChannels: Int? = nil
    ) {
        self.codec = codec
        self.profiles = profiles
        self.maximumSampleRate = maximumSampleRate
        self.maximumBitDepth = maximumBitDepth
        self.maximumChannels = maximumChannels
    }
}

/// A way real devices are known to play more than Google's table lists, with the evidence.
///
/// The emulator follows real devices, so a leniency a profile lists is accepted; a sender that
/// wants to be safe on every firmware can still prefer what the table lists (castctl remuxes
/// Matroska to MP4 unless told `--transcode never`).
public struct Leniency: Sendable, Hashable, Identifiable {
    /// What a leniency is about.
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        /// The identifier's name.
        public let name: String
        /// An identifier by name.
        public init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// Matroska files whose codecs the device decodes play, although the table lists only WebM.
        public static let matroska = ID("matroska")
    }

    /// What the leniency is about.
    public var id: ID
    /// What real devices do beyond the table.
    public var summary: String
    /// Where that was seen (issue threads, device reports).
    public var evidence: String

    /// Creates a leniency.
    public init(id: ID, summary: String, evidence: String) {
        self.id = id
        self.summary = summary
        self.evidence = evidence
    }
}
