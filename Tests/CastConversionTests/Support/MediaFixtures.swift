import CastConversion
import CastTestSupport
import Foundation
import Testing

/// Media files made by ffmpeg from its lavfi sources (`testsrc2`, `sine`) at test time, once per test process,
/// in a temporary directory. Nothing third-party is committed: every clip is generated.
actor MediaFixtures {
    static let shared = MediaFixtures()

    /// In CI (`CI=true`) ffmpeg must be there; elsewhere a missing ffmpeg skips the tests that need it.
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let tools: FFmpegTools? = try? FFmpegTools.locate()
    static var available: Bool { inCI || tools != nil }
    static let missing: Comment = "needs ffmpeg and ffprobe (apt-get install ffmpeg)"

    let directory: String
    private var made: [String: Task<String, any Error>] = [:]

    init() {
        directory = NSTemporaryDirectory() + "castor-conversion-fixtures-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The tools, or a failure naming the Debian package.
    static func requireTools() throws -> FFmpegTools {
        try #require(tools, "ffmpeg and ffprobe are not installed: apt-get install ffmpeg")
    }

    /// The movie: 20 s of HEVC Main 320x180 at 25 fps (a key frame every 2 s), AC-3 stereo, a SubRip
    /// stream (English, default) and an ASS stream (French), in Matroska.
    func movie() async throws -> String {
        try await make("movie.mkv") { path, dir in
            let srt = dir + "/movie-source.srt"
            let ass = dir + "/movie-source.ass"
            try Self.subRip.write(toFile: srt, atomically: true, encoding: .utf8)
            try Self.ass.write(toFile: ass, atomically: true, encoding: .utf8)
            return ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=20",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=20", "-i", srt, "-i", ass,
                    "-map", "0", "-map", "1", "-map", "2", "-map", "3",
                    "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:keyint=50:min-keyint=50:scenecut=0",
                    "-pix_fmt", "yuv420p", "-c:a", "ac3", "-b:a", "96k", "-ac", "2", "-c:s:0", "srt", "-c:s:1", "ass",
                    "-metadata:s:s:0", "language=eng", "-metadata:s:s:0", "title=English",
                    "-metadata:s:s:1", "language=fre", "-metadata:s:s:1", "title=Français",
                    "-disposition:s:0", "default", "-disposition:s:1", "0", path]
        }
    }

    /// A short clip of the given codecs in the given container (`1 s`, 160x96, 25 fps), for probe and plan tables.
    /// - Parameters:
    ///   - inputs: more inputs after the lavfi ones (`-f srt -i file`), mapped in `extra`.
    func clip(_ name: String, video: [String]?, audio: [String]?, inputs: [String] = [], extra: [String] = [], seconds: Int = 1,
              size: String = "160x96", rate: Int = 25) async throws -> String {
        try await make(name) { path, _ in
            var arguments: [String] = []
            if video != nil { arguments += ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)"] }
            if audio != nil { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"] }
            arguments += inputs
            if let video { arguments += ["-map", "0:v"] + video } else { arguments += ["-vn"] }
            if let audio { arguments += ["-map", video == nil ? "0:a" : "1:a"] + audio } else { arguments += ["-an"] }
            return arguments + extra + [path]
        }
    }

    /// Many clips at once, from one run of ffmpeg (one start, the sources read once): each name with its video and
    /// audio codec arguments (`nil`: no such stream), `seconds` long at 160x96 and 25 fps.
    func clips(_ specs: [(name: String, video: [String]?, audio: [String]?)], seconds: Int = 1) async throws -> [String: String] {
        let names = specs.map(\.name).joined(separator: ",")
        let key = "matrix-\(specs.count)-\(names.utf8.reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) }).wav"
        let directory = self.directory
        _ = try await make(key) { path, _ in
            var arguments = ["-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25:duration=\(seconds)",
                             "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"]
            for spec in specs {
                if let video = spec.video { arguments += ["-map", "0:v"] + video }
                if let audio = spec.audio { arguments += ["-map", "1:a"] + audio }
                arguments.append(directory + "/" + spec.name)
            }
            // `make` wants an output named by the key: a marker file written last.
            return arguments + ["-map", "1:a", "-c:a", "pcm_s16le", "-t", "0.1", "-f", "wav", path]
        }
        return Dictionary(uniqueKeysWithValues: specs.map { ($0.name, directory + "/" + $0.name) })
    }

    private func make(_ name: String, _ arguments: @escaping @Sendable (String, String) throws -> [String]) async throws -> String {
        if let task = made[name] { return try await task.value }
        let directory = self.directory
        let task = Task<String, any Error> {
            let tools = try Self.requireTools()
            let path = directory + "/" + name
            let run = try ChildProcess(tools.ffmpeg, ["-v", "error", "-nostdin", "-y"] + (try arguments(path, directory)))
            let status = await run.waitForExit()
            guard status == 0 else { throw FixtureError(message: "ffmpeg could not make \(name): \(run.errorOutput)") }
            return path
        }
        made[name] = task
        return try await task.value
    }

    struct FixtureError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static let subRip = """
        1
        00:00:01,000 --> 00:00:03,000
        Hello from SubRip

        2
        00:00:15,000 --> 00:00:17,000
        Fifteen seconds in

        """

    static let ass = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 320
        PlayResY: 180

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,16,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:02.00,0:00:04.00,Default,,0,0,0,,{\\i1}Bonjour de l'ASS{\\i0}
        Dialogue: 0,0:00:16.00,0:00:18.00,Default,,0,0,0,,Seize secondes

        """
}

/// ffprobe on a file or URL: the JSON report of its streams and format, or of its packets.
enum FFprobe {
    static func json(_ target: String, _ extra: [String] = []) async throws -> [String: Any] {
        let tools = try MediaFixtures.requireTools()
        let run = try ChildProcess(
            tools.ffprobe, ["-v", "error", "-print_format", "json"] + extra + ["-show_format", "-show_streams", target])
        let status = await run.waitForExit()
        let text = run.output.joined(separator: "\n")
        guard status == 0, let data = text.data(using: .utf8),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw MediaFixtures.FixtureError(message: "ffprobe \(target) failed (\(status)): \(run.errorOutput)")
        }
        return object
    }

    /// The codec names of a file's or URL's streams, by type.
    static func codecs(_ target: String) async throws -> [String: [String]] {
        let report = try await json(target)
        var result: [String: [String]] = [:]
        for stream in report["streams"] as? [[String: Any]] ?? [] {
            result[stream["codec_type"] as? String ?? "?", default: []].append(stream["codec_name"] as? String ?? "?")
        }
        return result
    }

    /// The first packet time of each stream of a file (`pts_time`), by codec type.
    static func firstTimes(_ path: String) async throws -> [String: Double] {
        let tools = try MediaFixtures.requireTools()
        let run = try ChildProcess(tools.ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,start_time", "-of", "csv=p=0", path])
        _ = await run.waitForExit()
        var result: [String: Double] = [:]
        for line in run.output {
            let fields = line.split(separator: ",")
            if fields.count == 2, let time = Double(fields[1]) { result[String(fields[0])] = time }
        }
        return result
    }
}
