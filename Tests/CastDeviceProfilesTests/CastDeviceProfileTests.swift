import CastDeviceProfiles
import Testing

@Suite("Device profiles: decisions per model")
struct CastDeviceProfileTests {
    /// One row of a decision table: a stream and, per preset, whether it plays.
    struct Row: Sendable, CustomStringConvertible {
        var stream: VideoStreamDescription
        var plays: Set<String>
        var description: String { stream.description }
    }

    static func h264(_ profile: CodecProfile, _ level: (Int, Int), _ w: Int, _ h: Int, _ fps: Double) -> VideoStreamDescription {
        VideoStreamDescription(codec: .h264, profile: profile, level: CodecLevel(level.0, level.1), width: w, height: h, frameRate: fps)
    }

    static let allVideo: Set<String> = ["chromecast-1", "chromecast-2", "chromecast-3", "ultra", "google-tv", "google-tv-streamer", "nest-hub", "nest-hub-max", "any"]

    static let videoTable: [Row] = [
        Row(stream: h264(.high, (3, 1), 1280, 720, 30), plays: allVideo),
        Row(stream: h264(.high, (4, 1), 1920, 1080, 30), plays: allVideo.subtracting(["nest-hub", "nest-hub-max"])),
        Row(stream: h264(.high, (4, 2), 1920, 1080, 60), plays: ["chromecast-3", "ultra", "google-tv", "google-tv-streamer", "any"]),
        Row(stream: h264(.high, (5, 1), 3840, 2160, 30), plays: ["google-tv", "google-tv-streamer", "any"]),
        Row(stream: h264(.high10, (4, 1), 1920, 1080, 24), plays: ["any"]),
        Row(stream: h264(.high, (3, 1), 1280, 720, 60), plays: allVideo.subtracting(["nest-hub-max"])),
        Row(stream: VideoStreamDescription(codec: .hevc, profile: .main, level: CodecLevel(3, 1), width: 640, height: 360, frameRate: 30),
            plays: ["ultra", "google-tv", "google-tv-streamer", "any"]),
        Row(stream: VideoStreamDescription(codec: .hevc, profile: .main10, level: CodecLevel(5, 1), width: 3840, height: 2160, frameRate: 60, bitDepth: 10),
            plays: ["ultra", "google-tv", "google-tv-streamer", "any"]),
        Row(stream: VideoStreamDescription(codec: .vp8, width: 1920, height: 1080, frameRate: 30),
            plays: ["chromecast-1", "chromecast-2", "chromecast-3", "ultra", "any"]),
        Row(stream: VideoStreamDescription(codec: .vp9, profile: .vp9(0), level: CodecLevel(3, 1), width: 1280, height: 720, frameRate: 30),
            plays: ["ultra", "google-tv", "google-tv-streamer", "nest-hub", "nest-hub-max", "any"]),
        Row(stream: VideoStreamDescription(codec: .vp9, profile: .vp9(2), width: 1920, height: 1080, frameRate: 30, bitDepth: 10),
            plays: ["ultra", "google-tv", "google-tv-streamer", "any"]),
        Row(stream: VideoStreamDescription(codec: .av1, profile: .av1(0), level: CodecLevel(4, 0), width: 1920, height: 1080, frameRate: 30),
            plays: ["google-tv-streamer", "any"]),
        Row(stream: VideoStreamDescription(codec: .mpeg4, width: 720, height: 480), plays: ["any"]),
    ]

    @Test("Video decision table", arguments: videoTable)
    func videoDecisions(row: Row) {
        for profile in CastDeviceProfile.presets where profile.hasVideoOutput {
            let verdict = profile.verdict(for: row.stream)
            #expect(verdict.isPlayable == row.plays.contains(profile.id), "\(profile.id): \(verdict)")
        }
    }

    @Test("Audio: the common codecs everywhere; Dolby only through HDMI, except where decoded")
    func audioDecisions() {
        let common: [AudioStreamDescription] = [
            AudioStreamDescription(codec: .aac, profile: .lc, channels: 2, sampleRate: 48_000),
            AudioStreamDescription(codec: .aac, profile: .heAAC),
            AudioStreamDescription(codec: .mp3), AudioStreamDescription(codec: .opus), AudioStreamDescription(codec: .vorbis),
            AudioStreamDescription(codec: .flac, sampleRate: 96_000, bitDepth: 24), AudioStreamDescription(codec: MediaCodec("pcm_s24le")),
        ]
        for profile in CastDeviceProfile.presets {
            for stream in common { #expect(profile.verdict(for: stream) == .plays, "\(profile.id) \(stream)") }
        }
        let ac3 = AudioStreamDescription(codec: .ac3, channels: 6)
        #expect(CastDeviceProfile.chromecast3.verdict(for: ac3).isRefused)
        #expect(CastDeviceProfile.chromecast3.verdict(for: ac3, hdmiPassthrough: true) == .passesThrough)
        #expect(CastDeviceProfile.audioOnly.verdict(for: ac3, hdmiPassthrough: true).isRefused)
        #expect(CastDeviceProfile.googleTVStreamer.verdict(for: ac3) == .plays)
        #expect(CastDeviceProfile.ultra.verdict(for: AudioStreamDescription(codec: .dts)).isRefused)
        #expect(CastDeviceProfile.ultra.verdict(for: AudioStreamDescription(codec: .flac, sampleRate: 192_000)).isRefused)
    }

    @Test("The issue's movie: HEVC + AC-3 in Matroska")
    func movie() {
        let movie = MediaDescription(
            container: .matroska,
            video: [VideoStreamDescription(codec: .hevc, profile: .main, level: CodecLevel(3, 0), width: 640, height: 360, frameRate: 30)],
            audio: [AudioStreamDescription(codec: .ac3, channels: 6, sampleRate: 48_000)],
            subtitles: [SubtitleStreamDescription(codec: .subrip), SubtitleStreamDescription(codec: .ass)])
        let cc3 = CastDeviceProfile.chromecast3.support(for: movie)
        #expect(!cc3.isPlayable)
        #expect(cc3.container == .plays)  // the Matroska leniency
        #expect(cc3.refusals.count == 2)
        #expect(cc3.refusals[0].contains("hevc"))
        let ultra = CastDeviceProfile.ultra.support(for: movie, hdmiPassthrough: true)
        #expect(ultra.isPlayable)
        #expect(ultra.audio[0].verdict == .passesThrough)
        #expect(CastDeviceProfile.any.support(for: movie).isPlayable)
        #expect(movie.description == "hevc Main L3.0 640x360 30fps, ac3 6ch 48000Hz, 2 subtitle stream(s)")
    }

    @Test("Containers: the table's, Matroska as a leniency, WebM told from Matroska by its codecs")
    func containers() {
        #expect(CastDeviceProfile.chromecast1.verdict(for: .avi).isRefused)
        #expect(CastDeviceProfile.chromecast1.verdict(for: .mpegts) == .plays)
        let webm = MediaDescription(container: .matroska, video: [VideoStreamDescription(codec: .vp9)], audio: [AudioStreamDescription(codec: .opus)])
        #expect(webm.refinedContainer == .webm)
        let mkv = MediaDescription(container: .matroska, video: [VideoStreamDescription(codec: .h264)])
        #expect(mkv.refinedContainer == .matroska)
        var strict = CastDeviceProfile.chromecast1
        strict.leniencies = []
        #expect(strict.verdict(for: .matroska).isRefused)
    }

    @Test("Speakers ignore video and cover art is ignored everywhere")
    func ignored() {
        let clip = MediaDescription(
            container: .mp4,
            video: [VideoStreamDescription(codec: .h264, profile: .high, width: 1280, height: 720)],
            audio: [AudioStreamDescription(codec: .aac, profile: .lc)])
        let speaker = CastDeviceProfile.audioOnly.support(for: clip)
        #expect(speaker.isPlayable)
        if case .ignored = speaker.video[0].verdict {} else { Issue.record("video on a speaker: \(speaker.video[0].verdict)") }
        let art = VideoStreamDescription(codec: MediaCodec("mjpeg"), isAttachedPicture: true)
        #expect(!CastDeviceProfile.chromecast3.verdict(for: art).isRefused)
    }

    @Test("Presets by name and by advertised model")
    func lookup() {
        for preset in CastDeviceProfile.presets { #expect(CastDeviceProfile.preset(named: preset.id) == preset) }
        #expect(CastDeviceProfile.preset(named: "ULTRA")?.id == "ultra")
        #expect(CastDeviceProfile.preset(forModel: "Chromecast Ultra")?.id == "ultra")
        #expect(CastDeviceProfile.preset(forModel: "Chromecast")?.id == "chromecast-1")
        #expect(CastDeviceProfile.preset(forModel: "Google Home Mini")?.id == "audio")
        #expect(CastDeviceProfile.preset(forModel: "Some TV") == nil)
        #expect(Set(CastDeviceProfile.presets.map(\.id)).count == CastDeviceProfile.presets.count)
    }
}

@Suite("Device profiles: what the devices do beyond the table")
struct DeviceBehaviourTests {
    @Test("HE-AAC v2 is refused everywhere; multi-channel AAC on the 2nd generation and the Ultra")
    func aacLimits() {
        let v2 = AudioStreamDescription(codec: .aac, profile: .heAACv2, channels: 2)
        let surround = AudioStreamDescription(codec: .aac, profile: .lc, channels: 6)
        for profile in CastDeviceProfile.presets where !profile.acceptsEverything {
            #expect(profile.verdict(for: v2).isRefused, "\(profile.id)")
            let stereoOnly = ["chromecast-2", "ultra"].contains(profile.id)
            #expect(profile.verdict(for: surround).isRefused == stereoOnly, "\(profile.id)")
        }
        #expect(CastDeviceProfile.ultra.verdict(for: surround) == .refused("6-channel aac is not decoded by Chromecast Ultra (at most 2)"))
    }

    @Test("Why nothing plays: the first refusal, or that nothing reaches the viewer")
    func refusalReasons() {
        let silentVideo = MediaDescription(container: .mp4, video: [VideoStreamDescription(codec: .h264, profile: .high, width: 640, height: 360)])
        #expect(CastDeviceProfile.audioOnly.support(for: silentVideo).refusalReason
            == "nothing plays: Chromecast Audio / Google Home has no video output")
        #expect(CastDeviceProfile.chromecast3.support(for: MediaDescription(container: .mp4)).refusalReason == "no audio or video stream found")
        #expect(CastDeviceProfile.chromecast3.support(for: silentVideo).refusalReason == nil)
        let avi = MediaDescription(container: .avi, video: [VideoStreamDescription(codec: .h264)])
        #expect(CastDeviceProfile.chromecast3.support(for: avi).refusalReason == "the avi container is not read by Chromecast (3rd generation)")
    }

    @Test("An adaptive stream plays when one of its alternatives does")
    func alternatives() throws {
        let hevc = MediaDescription(container: .hls, video: [VideoStreamDescription(codec: .hevc, profile: .main, width: 3840, height: 2160)])
        let avc = MediaDescription(container: .hls, video: [VideoStreamDescription(codec: .h264, profile: .high, level: CodecLevel(4, 0), width: 1920, height: 1080)])
        let chosen = try #require(CastDeviceProfile.chromecast3.support(forAlternatives: [hevc, avc]))
        #expect(chosen.media == avc && chosen.support.isPlayable)
        let refused = try #require(CastDeviceProfile.chromecast3.support(forAlternatives: [hevc]))
        #expect(refused.media == hevc && !refused.support.isPlayable)
        #expect(CastDeviceProfile.chromecast3.support(forAlternatives: []) == nil)
    }

    @Test("The Cast HLS player reads only H.264 from MPEG-TS segments")
    func hevcInTransportStreamSegments() {
        let hevc = VideoStreamDescription(codec: .hevc, profile: .main, width: 1280, height: 720, frameRate: 30)
        var media = MediaDescription(container: .hls, video: [hevc], audio: [AudioStreamDescription(codec: .aac, profile: .lc)])
        #expect(CastDeviceProfile.ultra.support(for: media).isPlayable)  // segments not known
        media.segmentContainer = .mp4
        #expect(CastDeviceProfile.ultra.support(for: media).isPlayable)
        media.segmentContainer = .mpegts
        #expect(CastDeviceProfile.ultra.support(for: media).refusalReason
            == "hevc in MPEG-TS segments is not played by the Cast HLS player (fMP4 segments needed)")
        #expect(CastDeviceProfile.any.support(for: media).isPlayable)
        #expect(CastDeviceProfile.audioOnly.support(for: media).isPlayable)  // the video is ignored, not refused
    }

    @Test("Advertised models: every generation before Ultra says Chromecast, the first firmware Eureka Dongle")
    func models() {
        #expect(CastDeviceProfile.preset(forModel: "Eureka Dongle")?.id == "chromecast-1")
        #expect(CastDeviceProfile.googleTV.model == "Chromecast")
        #expect(CastDeviceProfile.preset(forModel: "Chromecast HD") == nil)
        #expect(CastDeviceProfile.preset(forModel: "Google Nest Hub Max")?.id == "nest-hub-max")
        #expect(CastDeviceProfile.preset(forModel: "Nest Audio")?.id == "audio")
    }
}
