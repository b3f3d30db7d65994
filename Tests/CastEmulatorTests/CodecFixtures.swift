import CastDeviceProfiles
import CastJSON
import CastTestSupport
import Foundation
import Testing
@testable import CastEmulator

/// One media file made by ffmpeg from lavfi sources (`testsrc2`, `sine`) for the codec probes and
/// the device profiles, with what each preset does with it: the decision table of the end-to-end
/// tests, written by hand from Google's table (and the leniencies), not computed.
struct CodecFixture: Sendable, CustomStringConvertible {
    /// The file to load, relative to the fixture directory (`hls-h264/master.m3u8`).
    var path: String
    /// ffmpeg's arguments, the output path excluded (`nil` for files another fixture makes).
    var ffmpeg: [String]?
    /// The presets that play it as it is, without HDMI passthrough.
    var plays: Set<String>
    /// The presets that play it when the HDMI sink decodes AC-3 and E-AC-3, when that differs.
    var playsWithPassthrough: Set<String>?
    /// Whether the probes read its streams (not for AVI: the container alone decides).
    var probesStreams = true
    /// What the fetch line names, in part (`hevc Main`).
    var found: String?

    var description: String { path }

    func plays(on profile: String, hdmiPassthrough: Bool) -> Bool {
        (hdmiPassthrough ? playsWithPassthrough ?? plays : plays).contains(profile)
    }
}

/// The fixtures, made once per test run into a temporary directory, and ffprobe's view of each.
enum CodecFixtures {
    static let videoProfiles: Set<String> = [
        "chromecast-1", "chromecast-2", "chromecast-3", "ultra", "google-tv", "google-tv-streamer", "nest-hub", "nest-hub-max",
    ]
    /// Every preset: what plays everywhere.
    static let everywhere: Set<String> = videoProfiles.union(["audio", "any"])

    static func video(_ size: String = "320x240", rate: Int = 30, seconds: Double = 1) -> [String] {
        ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)"]
    }
    static func tone(_ rate: Int = 48_000, seconds: Double = 1) -> [String] {
        ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=\(seconds)"]
    }
    static let x264 = ["-c:v", "libx264", "-preset", "ultrafast"]
    static let x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1"]
    static let vpx = ["-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k"]
    static let dolby51 = ["-ac", "6"]

    static let all: [CodecFixture] = [
        // H.264 in MP4: profiles, levels, sizes and rates.
        CodecFixture(path: "h264-baseline-aac.mp4", ffmpeg: video() + tone() + x264 + ["-profile:v", "baseline", "-c:a", "aac", "-movflags", "+faststart"],
                     plays: everywhere, found: "h264 Constrained Baseline"),
        CodecFixture(path: "h264-main-mp3.mp4", ffmpeg: video() + tone() + ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-c:a", "libmp3lame"],
                     plays: everywhere, found: "h264 Main"),
        CodecFixture(path: "h264-high-opus.mp4", ffmpeg: video() + tone() + ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-c:a", "libopus"],
                     plays: everywhere, found: "h264 High"),
        CodecFixture(path: "h264-high10-aac.mp4", ffmpeg: video() + tone() + x264 + ["-pix_fmt", "yuv420p10le", "-c:a", "aac"],
                     plays: ["audio", "any"], found: "h264 High 10"),
        CodecFixture(path: "h264-1080p60-l42.mp4", ffmpeg: video("1920x1080", rate: 60, seconds: 0.1) + tone() + x264 + ["-level", "4.2", "-c:a", "aac", "-shortest"],
                     plays: ["chromecast-3", "ultra", "google-tv", "google-tv-streamer", "audio", "any"], found: "L4.2 1920x1080 60fps"),
        CodecFixture(path: "h264-720p-l51.mp4", ffmpeg: video("1280x720", seconds: 0.2) + tone() + x264 + ["-level", "5.1", "-c:a", "aac", "-shortest"],
                     plays: ["google-tv", "google-tv-streamer", "audio", "any"], found: "L5.1 1280x720"),
        CodecFixture(path: "h264-720p60.mp4", ffmpeg: video("1280x720", rate: 60, seconds: 0.2) + tone() + x264 + ["-level", "3.2", "-c:a", "aac", "-shortest"],
                     plays: everywhere.subtracting(["nest-hub-max"]), found: "1280x720 60fps"),
        CodecFixture(path: "h264-aac.ts", ffmpeg: video() + tone() + x264 + ["-c:a", "aac", "-f", "mpegts"], plays: everywhere),
        // 1088 coded lines cropped to 1080: the SPS's frame cropping, read from the transport stream.
        CodecFixture(path: "h264-1080p-l40.ts", ffmpeg: video("1920x1080", seconds: 0.1) + tone() + x264 + ["-level", "4.0", "-c:a", "aac", "-shortest", "-f", "mpegts"],
                     plays: everywhere.subtracting(["nest-hub", "nest-hub-max"]), found: "L4.0 1920x1080"),
        // HEVC.
        CodecFixture(path: "hevc-ac3.mp4", ffmpeg: video("640x360") + tone() + x265 + ["-c:a", "ac3"] + dolby51,
                     plays: ["google-tv-streamer", "any"], playsWithPassthrough: ["ultra", "google-tv", "google-tv-streamer", "any"],
                     found: "hevc Main L2.1 640x360 30fps, ac3 6ch"),
        CodecFixture(path: "hevc-main10-aac.mkv", ffmpeg: video("640x360") + tone() + x265 + ["-pix_fmt", "yuv420p10le", "-c:a", "aac"],
                     plays: ["ultra", "google-tv", "google-tv-streamer", "audio", "any"], found: "hevc Main 10"),
        CodecFixture(path: "hevc-aac.ts", ffmpeg: video("640x360") + tone() + x265 + ["-c:a", "aac", "-f", "mpegts"],
                     plays: ["ultra", "google-tv", "google-tv-streamer", "audio", "any"], found: "hevc Main"),
        // VP8, VP9, AV1.
        CodecFixture(path: "vp8-vorbis.webm", ffmpeg: video() + tone() + ["-c:v", "libvpx"] + vpx + ["-c:a", "libvorbis"],
                     plays: ["chromecast-1", "chromecast-2", "chromecast-3", "ultra", "audio", "any"], found: "vp8"),
        CodecFixture(path: "vp9-opus.webm", ffmpeg: video() + tone() + ["-c:v", "libvpx-vp9"] + vpx + ["-c:a", "libopus"],
                     plays: ["ultra", "google-tv", "google-tv-streamer", "nest-hub", "nest-hub-max", "audio", "any"], found: "vp9 Profile 0"),
        CodecFixture(path: "vp9p2-opus.webm", ffmpeg: video() + tone() + ["-c:v", "libvpx-vp9"] + vpx + ["-pix_fmt", "yuv420p10le", "-profile:v", "2", "-c:a", "libopus"],
                     plays: ["ultra", "google-tv", "google-tv-streamer", "audio", "any"], found: "vp9 Profile 2"),
        CodecFixture(path: "av1-opus.mp4", ffmpeg: video() + tone() + ["-c:v", "libsvtav1", "-preset", "12", "-c:a", "libopus"],
                     plays: ["google-tv-streamer", "audio", "any"], found: "av1 Main"),
        // Matroska with Dolby and subtitles (the shape of most video people keep).
        CodecFixture(path: "h264-ac3-subrip.mkv",
                     ffmpeg: video() + tone() + ["-i", "SUBS/subs.srt", "-map", "0", "-map", "1", "-map", "2"] + x264 + ["-c:a", "ac3"] + dolby51 + ["-c:s", "srt"],
                     plays: ["google-tv-streamer", "any"],
                     playsWithPassthrough: ["chromecast-1", "chromecast-2", "chromecast-3", "ultra", "google-tv", "google-tv-streamer", "any"],
                     found: "ac3 6ch"),
        CodecFixture(path: "hevc-ac3-subs.mkv",
                     ffmpeg: video("640x360") + tone() + ["-i", "SUBS/subs.srt", "-i", "SUBS/subs.ass", "-map", "0", "-map", "1", "-map", "2", "-map", "3"]
                        + x265 + ["-c:a", "ac3"] + dolby51 + ["-c:s:0", "srt", "-c:s:1", "ass"],
                     plays: ["google-tv-streamer", "any"], playsWithPassthrough: ["ultra", "google-tv", "google-tv-streamer", "any"],
                     found: "hevc Main L2.1 640x360 30fps, ac3 6ch 48000Hz, 2 subtitle stream(s)"),
        CodecFixture(path: "h264-eac3.mp4", ffmpeg: video() + tone() + x264 + ["-c:a", "eac3"] + dolby51,
                     plays: ["google-tv-streamer", "any"],
                     playsWithPassthrough: ["chromecast-1", "chromecast-2", "chromecast-3", "ultra", "google-tv", "google-tv-streamer", "any"],
                     found: "eac3 6ch"),
        CodecFixture(path: "h264-dts.mkv", ffmpeg: video() + tone() + x264 + ["-c:a", "dca", "-strict", "-2", "-ac", "2"], plays: ["any"], found: "dts"),
        CodecFixture(path: "mpeg4-mp3.avi", ffmpeg: video() + tone() + ["-c:v", "mpeg4", "-c:a", "libmp3lame"], plays: ["any"],
                     probesStreams: false),
        // Audio files.
        CodecFixture(path: "aac-lc.m4a", ffmpeg: tone(44_100) + ["-c:a", "aac"], plays: everywhere, found: "aac LC"),
        CodecFixture(path: "aac-51.m4a", ffmpeg: tone() + ["-ac", "6", "-c:a", "aac"], plays: everywhere.subtracting(["chromecast-2", "ultra"]),
                     found: "aac LC 6ch"),
        CodecFixture(path: "mp3.mp3", ffmpeg: tone(44_100) + ["-c:a", "libmp3lame"], plays: everywhere, found: "mp3"),
        CodecFixture(path: "mp2.mp2", ffmpeg: tone(44_100) + ["-c:a", "mp2"], plays: ["any"], found: "mp2"),
        CodecFixture(path: "aac.aac", ffmpeg: tone(44_100) + ["-c:a", "aac"], plays: everywhere, found: "aac LC"),
        CodecFixture(path: "flac.flac", ffmpeg: tone() + ["-c:a", "flac"], plays: everywhere, found: "flac"),
        CodecFixture(path: "flac-192k.flac", ffmpeg: tone(192_000) + ["-c:a", "flac", "-sample_fmt", "s32"], plays: ["any"], found: "flac 1ch 192000Hz"),
        CodecFixture(path: "opus.opus", ffmpeg: tone() + ["-c:a", "libopus"], plays: everywhere, found: "opus"),
        CodecFixture(path: "vorbis.ogg", ffmpeg: tone(44_100) + ["-c:a", "libvorbis"], plays: everywhere, found: "vorbis"),
        CodecFixture(path: "flac.oga", ffmpeg: tone() + ["-c:a", "flac", "-f", "ogg"], plays: everywhere, found: "flac"),
        CodecFixture(path: "pcm-s16.wav", ffmpeg: tone(44_100) + ["-c:a", "pcm_s16le"], plays: everywhere, found: "pcm_s16le"),
        CodecFixture(path: "pcm-s24-96k.wav", ffmpeg: tone(96_000) + ["-c:a", "pcm_s24le"], plays: everywhere, found: "pcm_s24le 1ch 96000Hz 24-bit"),
        CodecFixture(path: "theora-vorbis.ogv", ffmpeg: video() + tone() + ["-c:v", "libtheora", "-c:a", "libvorbis"], plays: ["audio", "any"],
                     found: "theora 320x240"),
        // HLS and DASH.
        CodecFixture(path: "hls-h264/master.m3u8",
                     ffmpeg: video(seconds: 2) + tone(seconds: 2) + x264 + ["-g", "30", "-c:a", "aac", "-f", "hls", "-hls_time", "1",
                        "-hls_list_size", "0", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
                        "-hls_segment_filename", "OUT_DIR/seg%d.ts", "OUT_DIR/index.m3u8"],
                     plays: everywhere, found: "h264"),
        CodecFixture(path: "hls-h264/index.m3u8", ffmpeg: nil, plays: everywhere, found: "h264 Constrained Baseline L1.3 320x240"),
        CodecFixture(path: "hls-hevc-fmp4/index.m3u8",
                     ffmpeg: video(seconds: 2) + tone(seconds: 2) + x265 + ["-g", "30", "-c:a", "aac", "-f", "hls", "-hls_time", "1",
                        "-hls_list_size", "0", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                        "-hls_segment_filename", "OUT_DIR/seg%d.m4s", "OUT_DIR/index.m3u8"],
                     plays: ["ultra", "google-tv", "google-tv-streamer", "audio", "any"], found: "hevc Main"),
        CodecFixture(path: "hls-hevc-ts/index.m3u8",
                     ffmpeg: video(seconds: 2) + tone(seconds: 2) + x265 + ["-g", "30", "-c:a", "aac", "-f", "hls", "-hls_time", "1",
                        "-hls_list_size", "0", "-hls_playlist_type", "vod", "-hls_segment_filename", "OUT_DIR/seg%d.ts", "OUT_DIR/index.m3u8"],
                     plays: ["audio", "any"], found: "hevc Main"),
        CodecFixture(path: "dash-h264/manifest.mpd",
                     ffmpeg: video(seconds: 2) + tone(seconds: 2) + x264 + ["-g", "30", "-c:a", "aac", "-f", "dash", "OUT_DIR/manifest.mpd"],
                     plays: everywhere, found: "h264"),
    ]

    static let subtitles = """
        1
        00:00:00,100 --> 00:00:00,900
        Hello

        """
    static let ass = """
        [Script Info]
        ScriptType: v4.00+

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.10,0:00:00.90,Default,,0,0,0,,Hello

        """

    static let library = FixtureLibrary()
}

/// Makes the fixtures (each once, at most two ffmpeg processes at a time) and asks ffprobe about them.
actor FixtureLibrary {
    let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("castor-codecs-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
    private var made: [String: Task<URL, any Error>] = [:]
    private var reports: [String: Task<JSONValue, any Error>] = [:]
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    static let ffprobe: String? = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The fixture's file, made on first use.
    func file(_ fixture: CodecFixture) async throws -> URL {
        let key = fixture.ffmpeg == nil ? String(fixture.path.split(separator: "/").first ?? "") : fixture.path
        let maker = fixture.ffmpeg == nil ? CodecFixtures.all.first { $0.path.hasPrefix(key + "/") && $0.ffmpeg != nil } : fixture
        let found = try #require(maker, "no fixture makes \(fixture.path)")
        if made[found.path] == nil {
            made[found.path] = Task { try await self.make(found) }
        }
        _ = try await made[found.path]!.value
        return directory.appendingPathComponent(fixture.path)
    }

    private func make(_ fixture: CodecFixture) async throws -> URL {
        await acquire()
        defer { release() }
        let output = directory.appendingPathComponent(fixture.path)
        let outputDirectory = output.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        let subtitles = directory.appendingPathComponent("SUBS")
        if !FileManager.default.fileExists(atPath: subtitles.path) {
            try FileManager.default.createDirectory(at: subtitles, withIntermediateDirectories: true)
            try Data(CodecFixtures.subtitles.utf8).write(to: subtitles.appendingPathComponent("subs.srt"))
            try Data(CodecFixtures.ass.utf8).write(to: subtitles.appendingPathComponent("subs.ass"))
        }
        var arguments = (fixture.ffmpeg ?? []).map { argument in
            argument.replacingOccurrences(of: "OUT_DIR", with: outputDirectory.path)
                .replacingOccurrences(of: "SUBS/", with: subtitles.path + "/")
        }
        // Multi-file muxers (HLS, DASH) name their outputs; the others write the fixture's path.
        if !(fixture.ffmpeg ?? []).contains(where: { $0.contains("OUT_DIR") }) { arguments.append(output.path) }
        let ffmpeg = try #require(ProbeMedia.ffmpeg, "ffmpeg is not installed (scripts/bootstrap.sh installs it)")
        let child = try ChildProcess(ffmpeg, ["-v", "error", "-nostdin", "-y"] + arguments)
        let status = await child.waitForExit()
        try #require(status == 0, "ffmpeg failed to make \(fixture.path): \(child.errorOutput)")
        return output
    }

    private func acquire() async {
        if running < 2 {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
    }

    /// ffprobe's `-show_streams -show_format` of the fixture, as JSON.
    func ffprobe(_ fixture: CodecFixture) async throws -> JSONValue {
        let url = try await file(fixture)
        if reports[fixture.path] == nil {
            reports[fixture.path] = Task {
                let ffprobe = try #require(Self.ffprobe, "ffprobe is not installed (scripts/bootstrap.sh installs ffmpeg)")
                let child = try ChildProcess(ffprobe, ["-v", "error", "-of", "json", "-show_streams", "-show_format", url.path])
                let status = await child.waitForExit()
                try #require(status == 0, "ffprobe failed on \(fixture.path): \(child.errorOutput)")
                return try JSONValue(parsing: child.output.joined(separator: "\n"))
            }
        }
        return try await reports[fixture.path]!.value
    }

    /// The fixture's bytes.
    func bytes(_ fixture: CodecFixture) async throws -> [UInt8] {
        Array(try Data(contentsOf: try await file(fixture)))
    }
}
