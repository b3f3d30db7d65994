extension CastDeviceProfile {
    // MARK: Shared parts of the table

    /// H.264 up to High profile (Baseline, Main, High; 8-bit 4:2:0).
    static let h264UpToHigh: Set<CodecProfile> = [.constrainedBaseline, .baseline, .main, .extended, .high]
    /// HEVC Main and Main 10.
    static let hevcMainAndMain10: Set<CodecProfile> = [.main, .main10]

    /// The audio every Cast device decodes: HE-AAC and LC-AAC, MP3, Opus, Vorbis, WAV (LPCM) and
    /// FLAC up to 96 kHz / 24-bit. HE-AAC v2 (parametric stereo) is not in the table, and a device
    /// given it shows a black screen (jellyfin/jellyfin#6999, Chromecast 2nd generation).
    static let commonAudio: [AudioCapability] = [
        AudioCapability(codec: .aac, profiles: [.lc, .heAAC]),
        AudioCapability(codec: .mp3),
        AudioCapability(codec: .opus),
        AudioCapability(codec: .vorbis),
        AudioCapability(codec: .flac, maximumSampleRate: 96_000, maximumBitDepth: 24),
        AudioCapability(codec: .pcmS16LE, maximumSampleRate: 96_000, maximumBitDepth: 24),
    ]

    /// ``commonAudio`` with AAC limited to two channels: Google dropped 5.1 and other multi-channel
    /// AAC on the 2nd-generation Chromecast and the Ultra from firmware 1.28 ("working as intended";
    /// Google's issue tracker 69088762, comment 4, quoted in ZSmartHome/homecaster's README).
    static let stereoAACAudio: [AudioCapability] = commonAudio.map { capability in
        var capability = capability
        if capability.codec == .aac { capability.maximumChannels = 2 }
        return capability
    }

    /// The containers of the table (MP2T, MP3, MP4, Ogg, WAV, WebM), with bare AAC (ADTS) and FLAC
    /// streams (their codecs are listed, and the receiver's browser reads them bare), HLS and DASH.
    static let tableContainers: Set<MediaContainer> = [.mpegts, .mp3, .mp4, .ogg, .wav, .webm, .adts, .flac, .hls, .dash]

    /// The image formats of the table.
    static let tableImages: Set<ImageFormat> = [.apng, .bmp, .gif, .jpeg, .png, .webp]

    /// Matroska plays when its codecs do.
    static let matroskaLeniency = Leniency(
        id: .matroska,
        summary: "Matroska (.mkv) files play when the device decodes every stream in them; the table lists only WebM.",
        evidence: """
            The receiver is Chrome, whose demuxer reads Matroska as it reads WebM. Users report H.264 \
            Matroska playing on Chromecasts (home-assistant-libs/pychromecast#487: "the chromecast itself \
            handles it just fine"; skorokithakis/catt#323: an OBS .mkv played where a mislabelled .mp4 \
            failed; guerrerocarlos/chromecast-js#29: "MKV with your video and MP3 audio works fine"), and \
            AC-3, E-AC-3 or DTS Matroska playing without sound (mafintosh/playback#79, \
            Pat-Carter/stream2chromecast#29, skorokithakis/catt#211), which only a demuxer that read the \
            file can do. Against: xat/castnow#128 (an H.264 .mkv that did not start, nor did its remux to \
            MP4) and streamyfin/streamyfin#1910 (2026, "the Cast receiver cannot demux Matroska", for \
            HEVC on a Google TV). Plex's Chromecast client profile lists mkv for direct play.
            """)

    // MARK: Presets

    /// Chromecast (1st generation): H.264 High profile up to level 4.1 and VP8, both at 720p60 or 1080p30.
    public static let chromecast1 = CastDeviceProfile(
        id: "chromecast-1", displayName: "Chromecast (1st generation)", model: "Chromecast", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(4, 1), modes: [.hd720p60, .fullHD30]),
            VideoCapability(codec: .vp8, modes: [.hd720p60, .fullHD30]),
        ],
        audio: commonAudio, passthroughAudio: [.ac3, .eac3], containers: tableContainers, images: tableImages,
        imageDisplaySize: .hd720p30, leniencies: [matroskaLeniency])

    /// Chromecast (2nd generation): as the first.
    public static let chromecast2 = CastDeviceProfile(
        id: "chromecast-2", displayName: "Chromecast (2nd generation)", model: "Chromecast", hasVideoOutput: true,
        video: chromecast1.video, audio: stereoAACAudio, passthroughAudio: [.ac3, .eac3], containers: tableContainers,
        images: tableImages, imageDisplaySize: .hd720p30, leniencies: [matroskaLeniency])

    /// Chromecast (3rd generation): H.264 High profile up to level 4.2 (1080p60); VP8 at 720p60 or 1080p30.
    public static let chromecast3 = CastDeviceProfile(
        id: "chromecast-3", displayName: "Chromecast (3rd generation)", model: "Chromecast", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(4, 2), modes: [.fullHD60]),
            VideoCapability(codec: .vp8, modes: [.hd720p60, .fullHD30]),
        ],
        audio: commonAudio, passthroughAudio: [.ac3, .eac3], containers: tableContainers, images: tableImages,
        imageDisplaySize: .hd720p30, leniencies: [matroskaLeniency])

    /// Chromecast Ultra: H.264 High up to 4.2 (1080p60), VP8 at 4K30, HEVC Main/Main 10 up to 5.1 and VP9
    /// profiles 0 and 2 up to 5.1 (both 4K60).
    public static let ultra = CastDeviceProfile(
        id: "ultra", displayName: "Chromecast Ultra", model: "Chromecast Ultra", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(4, 2), modes: [.fullHD60]),
            VideoCapability(codec: .vp8, modes: [.uhd30]),
            VideoCapability(
                codec: .hevc, profiles: hevcMainAndMain10, maximumLevel: CodecLevel(5, 1),
                modes: [VideoMode(width: 3840, height: 2160, frameRate: 60)], maximumBitDepth: 10),
            VideoCapability(
                codec: .vp9, profiles: [.vp9(0), .vp9(2)], maximumLevel: CodecLevel(5, 1),
                modes: [VideoMode(width: 3840, height: 2160, frameRate: 60)], maximumBitDepth: 10),
        ],
        audio: stereoAACAudio, passthroughAudio: [.ac3, .eac3], containers: tableContainers, images: tableImages,
        imageDisplaySize: .hd720p30, leniencies: [matroskaLeniency])

    /// Chromecast with Google TV: H.264 High up to 5.1 (4Kx2K30), HEVC Main/Main 10 up to 5.1 and VP9
    /// (profile 2 listed, 0 implied) at 4Kx2K60. Google lists no AV1 for it.
    public static let googleTV = CastDeviceProfile(
        id: "google-tv", displayName: "Chromecast with Google TV", model: "Chromecast", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(5, 1), modes: [.dci4K30, .fullHD60]),
            VideoCapability(codec: .hevc, profiles: hevcMainAndMain10, maximumLevel: CodecLevel(5, 1), modes: [.dci4K60], maximumBitDepth: 10),
            VideoCapability(codec: .vp9, profiles: [.vp9(0), .vp9(2)], modes: [.dci4K60], maximumBitDepth: 10),
        ],
        audio: commonAudio, passthroughAudio: [.ac3, .eac3], containers: tableContainers, images: tableImages,
        imageDisplaySize: .hd720p30, leniencies: [matroskaLeniency])

    /// Google TV Streamer: H.264 High up to 5.2 (4Kx2K60), HEVC Main/Main 10 up to 5.1, VP9 profile 2 and
    /// AV1 Main up to 5.1, all at 4Kx2K60; Dolby (AC-3, E-AC-3, Atmos) decoded without passthrough.
    public static let googleTVStreamer = CastDeviceProfile(
        id: "google-tv-streamer", displayName: "Google TV Streamer", model: "Google TV Streamer", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(5, 2), modes: [.dci4K60]),
            VideoCapability(codec: .hevc, profiles: hevcMainAndMain10, maximumLevel: CodecLevel(5, 1), modes: [.dci4K60], maximumBitDepth: 10),
            VideoCapability(codec: .vp9, profiles: [.vp9(0), .vp9(2)], modes: [.dci4K60], maximumBitDepth: 10),
            VideoCapability(codec: .av1, profiles: [.av1(0)], maximumLevel: CodecLevel(5, 1), modes: [.dci4K60], maximumBitDepth: 10),
        ],
        audio: commonAudio + [AudioCapability(codec: .ac3), AudioCapability(codec: .eac3)],
        containers: tableContainers, images: tableImages, imageDisplaySize: .hd720p30, leniencies: [matroskaLeniency])

    /// Google Nest Hub: H.264 High up to 4.1 and VP9 up to 4.0, at 720p60.
    public static let nestHub = CastDeviceProfile(
        id: "nest-hub", displayName: "Google Nest Hub", model: "Google Nest Hub", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(4, 1), modes: [.hd720p60]),
            VideoCapability(codec: .vp9, profiles: [.vp9(0)], maximumLevel: CodecLevel(4, 0), modes: [.hd720p60]),
        ],
        audio: commonAudio, containers: tableContainers, images: tableImages, imageDisplaySize: .hd720p30,
        leniencies: [matroskaLeniency])

    /// Google Nest Hub Max: H.264 High up to 4.1 and VP9 up to 4.0, at 720p30.
    public static let nestHubMax = CastDeviceProfile(
        id: "nest-hub-max", displayName: "Google Nest Hub Max", model: "Google Nest Hub Max", hasVideoOutput: true,
        video: [
            VideoCapability(codec: .h264, profiles: h264UpToHigh, maximumLevel: CodecLevel(4, 1), modes: [.hd720p30]),
            VideoCapability(codec: .vp9, profiles: [.vp9(0)], maximumLevel: CodecLevel(4, 0), modes: [.hd720p30]),
        ],
        audio: commonAudio, containers: tableContainers, images: tableImages, imageDisplaySize: .hd720p30,
        leniencies: [matroskaLeniency])

    /// Chromecast Audio, Google Home, Nest speakers: no video; the common audio codecs.
    public static let audioOnly = CastDeviceProfile(
        id: "audio", displayName: "Chromecast Audio / Google Home", model: "Chromecast Audio", hasVideoOutput: false,
        video: [], audio: commonAudio, containers: tableContainers, leniencies: [matroskaLeniency])

    /// Anything plays: the emulator as it was before it modelled codecs.
    public static let any = CastDeviceProfile(
        id: "any", displayName: "Any media", model: "Chromecast", hasVideoOutput: true, video: [], audio: [],
        containers: [], acceptsEverything: true)

    /// Every preset, in the order `--profile` lists them.
    public static let presets: [CastDeviceProfile] = [
        chromecast1, chromecast2, chromecast3, ultra, googleTV, googleTVStreamer, nestHub, nestHubMax, audioOnly, any,
    ]

    /// The preset with this name (`chromecast-3`), ignoring case.
    public static func preset(named name: String) -> CastDeviceProfile? {
        presets.first { $0.id == name.lowercased() }
    }

    /// The preset for a model name a device advertises (`md`); `nil` for a model this table does not
    /// know (TVs with Cast built in, "Chromecast HD", which Google's table does not list).
    ///
    /// The 1st, 2nd and 3rd generation and the Chromecast with Google TV (4K) all advertise
    /// "Chromecast" (react-native-google-cast/react-native-google-cast#503): it maps to the oldest
    /// (``chromecast1``), the safe choice for a sender. The earliest firmware of the first generation
    /// said "Eureka Dongle" (pychromecast's model table).
    public static func preset(forModel model: String) -> CastDeviceProfile? {
        let name = model.trimmed(of: " ").lowercased()
        switch name {
        case "chromecast", "eureka dongle": return chromecast1
        case "chromecast ultra": return ultra
        case "google tv streamer": return googleTVStreamer
        case "google nest hub", "google home hub": return nestHub
        case "google nest hub max": return nestHubMax
        default:
            let speakers = ["chromecast audio", "google home", "google home mini", "google nest mini", "nest mini",
                            "google home max", "nest audio", "google nest audio", "nest wifi point", "google cast group"]
            if speakers.contains(name) { return audioOnly }
            return nil
        }
    }
}
