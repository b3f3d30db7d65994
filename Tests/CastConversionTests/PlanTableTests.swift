import CastConversion
import CastDeviceProfiles
import Testing

/// What ``ConversionPlan`` decides, source by source and profile by profile: the delivery, then what becomes
/// of the video and the audio (`copy`, `h264 WxH Lx.y`, `aac`, `opus`, `omit`, `-` for none).
@Suite("Plans: decision tables per device profile")
struct PlanTableTests {
    // MARK: Sources

    static func video(_ codec: MediaCodec, _ profile: CodecProfile?, level: CodecLevel?, _ width: Int, _ height: Int, fps: Double = 25,
                      depth: Int = 8, index: Int = 0, reordered: Bool = true) -> ProbedStream {
        ProbedStream(index: index, kind: .video, codec: codec, profile: profile, level: level, width: width, height: height,
                     frameRate: fps, bitDepth: depth, hasReorderedFrames: reordered, bitRate: 4_000_000)
    }

    static func audio(_ codec: MediaCodec, _ profile: CodecProfile? = nil, channels: Int = 2, rate: Int = 48_000, depth: Int? = nil,
                      index: Int = 1, isDefault: Bool = false, language: String? = nil) -> ProbedStream {
        ProbedStream(index: index, kind: .audio, codec: codec, profile: profile, language: language, isDefault: isDefault,
                     bitDepth: depth, channels: channels, sampleRate: rate, bitRate: 192_000)
    }

    static func subtitle(_ codec: MediaCodec, index: Int, language: String? = nil, title: String? = nil) -> ProbedStream {
        ProbedStream(index: index, kind: .subtitle, codec: codec, language: language, title: title)
    }

    static func media(_ format: String, _ streams: [ProbedStream], duration: Double = 20) -> ProbedMedia {
        ProbedMedia(
            path: "/media/source", formatName: format,
            media: MediaDescription(
                container: MediaContainer(ffprobeFormatName: format),
                video: streams.filter { $0.kind == .video }.map(\.videoDescription),
                audio: streams.filter { $0.kind == .audio }.map(\.audioDescription),
                subtitles: streams.filter { $0.kind == .subtitle }.map(\.subtitleDescription), duration: duration),
            streams: streams, duration: duration)
    }

    static let mp4 = "mov,mp4,m4a,3gp,3g2,mj2"
    static let h264HD = video(.h264, .high, level: CodecLevel(4, 0), 1920, 1080, fps: 30)
    static let aacStereo = audio(.aac, .lc)
    static let movieMKV = media("matroska,webm", [
        video(.hevc, .main, level: CodecLevel(4, 0), 1920, 1080, fps: 24), audio(.ac3, channels: 6),
        subtitle(.subrip, index: 2, language: "eng", title: "English"), subtitle(.ass, index: 3, language: "fre"),
    ])

    static func summary(_ plan: ConversionPlan) -> String {
        func action(_ decision: StreamDecision?) -> String {
            switch decision?.action {
            case nil: "-"
            case .copy?: "copy"
            case .transcodeVideo(let encoding)?: "h264 \(encoding.width)x\(encoding.height) L\(encoding.level)"
                + (encoding.frameRate.map { "@\(Int($0))" } ?? "")
            case .transcodeAudio(let encoding)?: "\(encoding.codec) \(encoding.channels)ch"
            case .omit?: "omit"
            case .textTrack?: "vtt"
            case .burnIn?: "burn"
            }
        }
        let delivery = switch plan.delivery {
        case .direct: "direct"
        case .hls(let container): container == .mpegts ? "hls-ts" : "hls-fmp4"
        }
        return "\(delivery) | \(action(plan.video)) | \(action(plan.audio))"
    }

    static func plan(_ media: ProbedMedia, _ profile: CastDeviceProfile, _ options: ConversionOptions = ConversionOptions()) throws -> String {
        summary(try ConversionPlan(for: media, profile: profile, options: options))
    }

    // MARK: Tables

    @Test("H.264 High 1080p30 and AAC in MP4: played as it is wherever H.264 1080p30 decodes; a speaker leaves the video out")
    func h264AAC() throws {
        let source = Self.media(Self.mp4, [Self.h264HD, Self.aacStereo])
        let expected: [String: String] = [
            "chromecast-1": "direct | copy | copy", "chromecast-2": "direct | copy | copy", "chromecast-3": "direct | copy | copy",
            "ultra": "direct | copy | copy", "google-tv": "direct | copy | copy", "google-tv-streamer": "direct | copy | copy",
            "nest-hub": "hls-ts | h264 1280x720 L3.1 | copy", "nest-hub-max": "hls-ts | h264 1280x720 L3.1 | copy",
            "audio": "direct | - | copy", "any": "direct | copy | copy",
        ]
        for profile in CastDeviceProfile.presets {
            #expect(try Self.plan(source, profile) == expected[profile.id], "\(profile.id)")
        }
    }

    @Test("The issue's movie (HEVC 1080p24 + AC-3 5.1 + SubRip + ASS in Matroska)")
    func hevcAC3Matroska() throws {
        let expected: [String: String] = [
            "chromecast-1": "hls-ts | h264 1920x1080 L4.0 | aac 2ch", "chromecast-2": "hls-ts | h264 1920x1080 L4.0 | aac 2ch",
            "chromecast-3": "hls-ts | h264 1920x1080 L4.0 | aac 2ch", "ultra": "hls-fmp4 | copy | aac 2ch",
            "google-tv": "hls-fmp4 | copy | aac 2ch", "google-tv-streamer": "hls-fmp4 | copy | copy",
            "nest-hub": "hls-ts | h264 1280x720 L3.1 | aac 2ch", "nest-hub-max": "hls-ts | h264 1280x720 L3.1 | aac 2ch",
            "audio": "hls-ts | - | aac 2ch", "any": "direct | copy | copy",
        ]
        for profile in CastDeviceProfile.presets {
            #expect(try Self.plan(Self.movieMKV, profile) == expected[profile.id], "\(profile.id)")
        }
        let plan = try ConversionPlan(for: Self.movieMKV, profile: .chromecast3)
        #expect(plan.textTracks.map(\.stream.index) == [2, 3])
        #expect(plan.refusals.contains { $0.contains("hevc") } && plan.refusals.contains { $0.contains("ac3") })
        #expect(plan.video?.reason == "hevc video is not decoded by Chromecast (3rd generation)")
        #expect(plan.description.contains("subtitles #2 subrip eng \"English\" → WebVTT text track"))
        // With an HDMI sink that decodes AC-3, it passes through (MPEG-TS carries it).
        #expect(try Self.plan(Self.movieMKV, .chromecast3, ConversionOptions(hdmiPassthrough: true)) == "hls-ts | h264 1920x1080 L4.0 | copy")
        #expect(try Self.plan(Self.movieMKV, .ultra, ConversionOptions(hdmiPassthrough: true)) == "hls-fmp4 | copy | copy")
    }

    @Test("Remux: H.264 + AC-3 in Matroska copies the video into MPEG-TS segments and converts the audio")
    func remux() throws {
        let source = Self.media("matroska,webm", [Self.h264HD, Self.audio(.ac3)])
        #expect(try Self.plan(source, .chromecast3) == "hls-ts | copy | aac 2ch")
        // Matroska the device plays whole is still remuxed: Google's table lists only WebM.
        let playable = Self.media("matroska,webm", [Self.h264HD, Self.aacStereo])
        let plan = try ConversionPlan(for: playable, profile: .chromecast3)
        #expect(Self.summary(plan) == "hls-ts | copy | copy")
        #expect(plan.deliveryReason.contains("not in Google's table"))
        #expect(!plan.transcodes)
    }

    @Test("Beyond the device's size, rate or level: scaled into its modes, the rate capped, the level lowered")
    func limits() throws {
        let fast = Self.media(Self.mp4, [Self.video(.h264, .high, level: CodecLevel(4, 2), 1920, 1080, fps: 60), Self.aacStereo])
        #expect(try Self.plan(fast, .chromecast1) == "hls-ts | h264 1280x720 L3.2 | copy")  // 720p60 keeps the rate
        #expect(try Self.plan(fast, .chromecast3) == "direct | copy | copy")
        let uhd = Self.media("matroska,webm", [Self.video(.hevc, .main10, level: CodecLevel(5, 1), 3840, 2160, fps: 24, depth: 10), Self.audio(.eac3, channels: 6)])
        #expect(try Self.plan(uhd, .chromecast3) == "hls-ts | h264 1920x1080 L4.0 | aac 2ch")
        #expect(try Self.plan(uhd, .ultra) == "hls-fmp4 | copy | aac 2ch")
        let uhd60 = Self.media(Self.mp4, [Self.video(.h264, .high, level: CodecLevel(5, 2), 3840, 2160, fps: 60), Self.aacStereo])
        #expect(try Self.plan(uhd60, .googleTV) == "hls-ts | h264 1920x1080 L4.2 | copy")  // 4K only at 30: 1080p60 keeps the rate
        #expect(try Self.plan(uhd60, .googleTVStreamer) == "direct | copy | copy")
        let portrait = Self.media(Self.mp4, [Self.video(.hevc, .main, level: CodecLevel(4, 1), 1080, 1920, fps: 30), Self.aacStereo])
        #expect(try Self.plan(portrait, .chromecast3) == "hls-ts | h264 1080x1920 L4.0 | copy")
    }

    @Test("VP9 + Opus WebM: direct on the Ultra; on a Chromecast the video becomes H.264 and the Opus stays, in fMP4 segments")
    func vp9Opus() throws {
        let source = Self.media("matroska,webm", [Self.video(.vp9, .vp9(0), level: nil, 1280, 720, reordered: false), Self.audio(.opus)])
        #expect(try Self.plan(source, .ultra) == "direct | copy | copy")
        #expect(try Self.plan(source, .chromecast3) == "hls-fmp4 | h264 1280x720 L3.1 | copy")
        #expect(try Self.plan(source, .chromecast3, ConversionOptions(audioTarget: .opus)) == "hls-fmp4 | h264 1280x720 L3.1 | copy")
    }

    @Test("Audio files: MP3, FLAC and WAV play as they are; FLAC beyond 96 kHz and DTS become AAC")
    func audioFiles() throws {
        #expect(try Self.plan(Self.media("mp3", [Self.audio(.mp3, index: 0)]), .audioOnly) == "direct | - | copy")
        #expect(try Self.plan(Self.media("flac", [Self.audio(.flac, rate: 96_000, depth: 24, index: 0)]), .chromecast1) == "direct | - | copy")
        #expect(try Self.plan(Self.media("wav", [Self.audio(.pcmS16LE, rate: 44_100, depth: 16, index: 0)]), .nestHub) == "direct | - | copy")
        #expect(try Self.plan(Self.media("flac", [Self.audio(.flac, rate: 192_000, depth: 24, index: 0)]), .audioOnly) == "hls-ts | - | aac 2ch")
        #expect(try Self.plan(Self.media("matroska,webm", [Self.audio(.dts, channels: 6, index: 0)]), .chromecast3) == "hls-ts | - | aac 2ch")
        #expect(try Self.plan(Self.media("matroska,webm", [Self.audio(.dts, channels: 6, index: 0)]), .chromecast3, ConversionOptions(audioTarget: .opus)) == "hls-fmp4 | - | opus 2ch")
    }

    @Test("--transcode always converts what plays; never copies what does not, and says why")
    func policies() throws {
        let source = Self.media(Self.mp4, [Self.h264HD, Self.aacStereo])
        #expect(try Self.plan(source, .chromecast3, ConversionOptions(policy: .always)) == "hls-ts | h264 1920x1080 L4.0 | aac 2ch")
        let never = try ConversionPlan(for: Self.movieMKV, profile: .chromecast3, options: ConversionOptions(policy: .never))
        #expect(Self.summary(never) == "direct | copy | copy")
        #expect(never.deliveryReason.contains("hevc video is not decoded"))
        #expect(never.textTracks.count == 2)
    }

    @Test("Subtitles: text streams become WebVTT tracks, image streams are left out unless burnt in, which converts the video")
    func subtitles() throws {
        let source = Self.media(Self.mp4, [
            Self.h264HD, Self.aacStereo, Self.subtitle(.movText, index: 2, language: "eng"), Self.subtitle(.pgs, index: 3, language: "ger"),
            Self.subtitle(.webvtt, index: 4), Self.subtitle(.dvdSubtitle, index: 5),
        ])
        let plan = try ConversionPlan(for: source, profile: .chromecast3)
        #expect(Self.summary(plan) == "direct | copy | copy")
        #expect(plan.subtitles.map(\.action) == [.textTrack, .omit, .textTrack, .omit])
        #expect(plan.subtitles[1].reason.contains("--burn-subtitles 3"))
        let burnt = try ConversionPlan(for: source, profile: .chromecast3, options: ConversionOptions(burnSubtitleStream: 3))
        #expect(Self.summary(burnt) == "hls-ts | h264 1920x1080 L4.0 | copy")
        #expect(burnt.burntSubtitle?.stream.index == 3)
        #expect(burnt.video?.reason == "subtitles are burnt into the picture")
        #expect(throws: ConversionError.self) { try ConversionPlan(for: source, profile: .chromecast3, options: ConversionOptions(burnSubtitleStream: 1)) }
        #expect(throws: ConversionError.self) { try ConversionPlan(for: source, profile: .audioOnly, options: ConversionOptions(burnSubtitleStream: 3)) }
    }

    @Test("Streams chosen: the default audio stream, else the first; --audio-stream; cover art and data left out")
    func choosingStreams() throws {
        let cover = ProbedStream(index: 3, kind: .video, codec: MediaCodec("mjpeg"), isAttachedPicture: true, width: 600, height: 600)
        let data = ProbedStream(index: 4, kind: .other, codec: MediaCodec("bin_data"))
        let source = Self.media(Self.mp4, [Self.h264HD, Self.audio(.aac, .lc, index: 1, language: "eng"),
                                           Self.audio(.ac3, channels: 6, index: 2, isDefault: true, language: "fre"), cover, data])
        let plan = try ConversionPlan(for: source, profile: .chromecast3)
        #expect(plan.audio?.stream.index == 2)
        #expect(Self.summary(plan) == "hls-ts | copy | aac 2ch")
        #expect(plan.omitted.map(\.stream.index) == [1, 3, 4])
        let english = try ConversionPlan(for: source, profile: .chromecast3, options: ConversionOptions(audioStream: 1))
        #expect(Self.summary(english) == "direct | copy | copy")
        #expect(throws: ConversionError.self) { try ConversionPlan(for: source, profile: .chromecast3, options: ConversionOptions(audioStream: 0)) }
        let silent = Self.media("matroska,webm", [data])
        #expect(throws: ConversionError.self) { try ConversionPlan(for: silent, profile: .chromecast3) }
    }

    @Test("H.264 levels follow the frame size and macroblock rate (Table A-1), within the device's")
    func levels() {
        let generous = CodecLevel(5, 2)
        #expect(Planner.level(width: 640, height: 360, frameRate: 30, maximum: generous) == CodecLevel(3, 0))
        #expect(Planner.level(width: 1280, height: 720, frameRate: 30, maximum: generous) == CodecLevel(3, 1))
        #expect(Planner.level(width: 1280, height: 720, frameRate: 60, maximum: generous) == CodecLevel(3, 2))
        #expect(Planner.level(width: 1920, height: 1080, frameRate: 30, maximum: generous) == CodecLevel(4, 0))
        #expect(Planner.level(width: 1920, height: 1080, frameRate: 60, maximum: generous) == CodecLevel(4, 2))
        #expect(Planner.level(width: 3840, height: 2160, frameRate: 30, maximum: generous) == CodecLevel(5, 1))
        #expect(Planner.level(width: 1920, height: 1080, frameRate: 60, maximum: CodecLevel(4, 1)) == CodecLevel(4, 1))
    }
}

/// The planner's H.264 level table, reached through a plan.
enum Planner {
    static func level(width: Int, height: Int, frameRate: Double, maximum: CodecLevel) -> CodecLevel {
        let profile = CastDeviceProfile(
            id: "test", displayName: "Test", model: "Test", hasVideoOutput: true,
            video: [VideoCapability(codec: .h264, profiles: [.high], maximumLevel: maximum,
                                    modes: [VideoMode(width: 4096, height: 2304, frameRate: 120)])],
            audio: [AudioCapability(codec: .aac)], containers: [.mp4])
        let source = PlanTableTests.media(PlanTableTests.mp4, [PlanTableTests.video(.hevc, .main, level: nil, width, height, fps: frameRate)])
        guard let plan = try? ConversionPlan(for: source, profile: profile), case .transcodeVideo(let encoding)? = plan.video?.action else {
            return CodecLevel(0)
        }
        return encoding.level
    }
}
