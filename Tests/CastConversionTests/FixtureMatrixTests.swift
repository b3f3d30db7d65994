import CastConversion
import CastDeviceProfiles
import CastMediaServer
import Foundation
import Testing

/// Every container and codec pair the presets name, made by ffmpeg (one-second clips, 160x96), probed by ffprobe
/// and planned for each preset: what the plan copies, the device plays; what it does not, it converts.
@Suite("Conversion: ffmpeg-made clips of every container and codec pair", .serialized,
       .enabled(if: MediaFixtures.available, MediaFixtures.missing))
struct FixtureMatrixTests {
    struct Clip: Sendable, CustomStringConvertible {
        var name: String
        var video: [String]?
        var audio: [String]?
        /// What ffprobe must find: container, video codec, audio codec.
        var container: MediaContainer
        var videoCodec: MediaCodec?
        var audioCodec: MediaCodec?
        var description: String { name }
    }

    static let x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    static let x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p"]
    static let clips: [Clip] = [
        Clip(name: "h264-aac.mp4", video: x264, audio: ["-c:a", "aac"], container: .mp4, videoCodec: .h264, audioCodec: .aac),
        Clip(name: "hevc-aac.mp4", video: x265 + ["-tag:v", "hvc1"], audio: ["-c:a", "aac"], container: .mp4, videoCodec: .hevc, audioCodec: .aac),
        Clip(name: "h264-mp3.mp4", video: x264, audio: ["-c:a", "libmp3lame"], container: .mp4, videoCodec: .h264, audioCodec: .mp3),
        Clip(name: "av1-opus.webm", video: ["-c:v", "libsvtav1", "-preset", "12"], audio: ["-c:a", "libopus"],
             container: .webm, videoCodec: .av1, audioCodec: .opus),
        Clip(name: "vp8-vorbis.webm", video: ["-c:v", "libvpx", "-deadline", "realtime", "-b:v", "200k"], audio: ["-c:a", "libvorbis"],
             container: .webm, videoCodec: .vp8, audioCodec: .vorbis),
        Clip(name: "vp9-opus.webm", video: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"],
             audio: ["-c:a", "libopus"], container: .webm, videoCodec: .vp9, audioCodec: .opus),
        Clip(name: "h264-ac3.mkv", video: x264, audio: ["-c:a", "ac3"], container: .matroska, videoCodec: .h264, audioCodec: .ac3),
        Clip(name: "hevc-eac3.mkv", video: x265, audio: ["-c:a", "eac3"], container: .matroska, videoCodec: .hevc, audioCodec: .eac3),
        Clip(name: "h264-flac.mkv", video: x264, audio: ["-c:a", "flac"], container: .matroska, videoCodec: .h264, audioCodec: .flac),
        Clip(name: "mpeg4-mp3.avi", video: ["-c:v", "mpeg4"], audio: ["-c:a", "libmp3lame"], container: .avi, videoCodec: .mpeg4, audioCodec: .mp3),
        Clip(name: "h264-aac.ts", video: x264, audio: ["-c:a", "aac"], container: .mpegts, videoCodec: .h264, audioCodec: .aac),
        Clip(name: "mpeg2-mp2.ts", video: ["-c:v", "mpeg2video"], audio: ["-c:a", "mp2"], container: .mpegts, videoCodec: .mpeg2video, audioCodec: .mp2),
        Clip(name: "theora-vorbis.ogv", video: ["-c:v", "libtheora"], audio: ["-c:a", "libvorbis"], container: .ogg, videoCodec: .theora, audioCodec: .vorbis),
        Clip(name: "opus.ogg", video: nil, audio: ["-c:a", "libopus"], container: .ogg, audioCodec: .opus),
        Clip(name: "flac.ogg", video: nil, audio: ["-c:a", "flac"], container: .ogg, audioCodec: .flac),
        Clip(name: "tone.mp3", video: nil, audio: ["-c:a", "libmp3lame"], container: .mp3, audioCodec: .mp3),
        Clip(name: "tone.aac", video: nil, audio: ["-c:a", "aac"], container: .adts, audioCodec: .aac),
        Clip(name: "tone.flac", video: nil, audio: ["-c:a", "flac"], container: .flac, audioCodec: .flac),
        Clip(name: "tone-192k.flac", video: nil, audio: ["-c:a", "flac", "-ar", "192000"], container: .flac, audioCodec: .flac),
        Clip(name: "tone.wav", video: nil, audio: ["-c:a", "pcm_s16le"], container: .wav, audioCodec: .pcmS16LE),
        Clip(name: "tone.m4a", video: nil, audio: ["-c:a", "aac"], container: .mp4, audioCodec: .aac),
        Clip(name: "dts.mka", video: nil, audio: ["-c:a", "dca", "-strict", "-2", "-ac", "2"], container: .matroska, audioCodec: .dts),
    ]

    @Test("Probed and planned for every preset: copied streams play, the rest is converted", arguments: clips)
    func probeAndPlan(clip: Clip) async throws {
        let tools = try MediaFixtures.requireTools()
        // Every clip comes from one run of ffmpeg, made by whichever case asks first.
        let paths = try await MediaFixtures.shared.clips(Self.clips.map { ($0.name, $0.video, $0.audio) })
        let path = try #require(paths[clip.name])
        let media = try await MediaProbe(tools: tools).probe(path)
        #expect(media.media.refinedContainer == clip.container, "\(media.formatName)")
        #expect(media.videoStreams.first?.codec == clip.videoCodec)
        #expect(media.audioStreams.first?.codec == clip.audioCodec)
        #expect(abs((media.duration ?? 0) - 1) < 0.2, "\(media.duration ?? 0)")
        for profile in CastDeviceProfile.presets {
            let plan = try ConversionPlan(for: media, profile: profile)
            // What is copied, the profile plays; what it refuses, the plan converts or leaves out.
            for decision in [plan.video, plan.audio].compactMap({ $0 }) where decision.action == .copy {
                let verdict = decision.stream.kind == .video
                    ? profile.verdict(for: decision.stream.videoDescription)
                    : profile.verdict(for: decision.stream.audioDescription)
                #expect(verdict.isPlayable, "\(clip) on \(profile.id): \(decision)")
            }
            if case .direct = plan.delivery, !profile.acceptsEverything {
                #expect(profile.support(for: media.media).refusals.isEmpty, "\(clip) on \(profile.id) direct: \(plan)")
            }
        }
    }

    @Test("Served and read back by ffprobe: a remux, VP9+Opus, DTS alone, a direct MP4 with mov_text subtitles")
    func served() async throws {
        let tools = try MediaFixtures.requireTools()
        let server = try await MediaServer.start(.init(host: "127.0.0.1"))
        defer { Task { await server.shutdown() } }
        let cases: [(clip: String, video: [String]?, audio: [String]?, extra: [String], expected: [String: [String]], container: HLSSegmentContainer?)] = [
            ("h264-ac3-3s.mkv", Self.x264, ["-c:a", "ac3"], [], ["video": ["h264"], "audio": ["aac"]], .mpegts),
            ("vp9-opus-3s.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"], ["-c:a", "libopus"], [],
             ["video": ["h264"], "audio": ["opus"]], .fmp4),
            ("dts-3s.mka", nil, ["-c:a", "dca", "-strict", "-2", "-ac", "2"], [], ["audio": ["aac"]], .mpegts),
        ]
        for item in cases {
            let path = try await MediaFixtures.shared.clip(item.clip, video: item.video, audio: item.audio, extra: item.extra, seconds: 3)
            let conversion = try await MediaConversion.publish(file: path, profile: .chromecast3, on: server, tools: tools)
            let media = await conversion.media
            #expect(media.segmentContainer == item.container, "\(item.clip): \(conversion.plan)")
            let codecs = try await FFprobe.codecs(media.url)
            #expect(codecs.filter { $0.key != "data" } == item.expected, "\(item.clip): \(codecs)")
            await conversion.stop()
        }
        // A direct MP4 with a mov_text stream: the file as it is, the subtitles as WebVTT.
        let subtitled = try await MediaFixtures.shared.clip(
            "h264-aac-movtext.mp4", video: Self.x264, audio: ["-c:a", "aac"],
            inputs: ["-f", "srt", "-i", try Self.writeSubRip()], extra: ["-map", "2:s", "-c:s", "mov_text", "-metadata:s:s:0", "language=ger"])
        let conversion = try await MediaConversion.publish(file: subtitled, profile: .chromecast3, on: server, tools: tools)
        let media = await conversion.media
        #expect(media.segmentContainer == nil && media.url.hasSuffix("/h264-aac-movtext.mp4") && media.contentType == "video/mp4")
        let whole = try await HTTPFetch.get(media.url)
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: subtitled)))
        #expect(whole.status == 200 && whole.body == original)
        let track = try #require(media.textTracks.first)
        #expect(track.language == "de")
        let vtt = String(decoding: try await HTTPFetch.get(track.url).body, as: UTF8.self)
        #expect(vtt.hasPrefix("WEBVTT") && vtt.contains("Hello from SubRip"), "\(vtt)")
        await conversion.stop()
    }

    static func writeSubRip() throws -> String {
        let path = NSTemporaryDirectory() + "castor-subrip-\(getpid()).srt"
        try MediaFixtures.subRip.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
