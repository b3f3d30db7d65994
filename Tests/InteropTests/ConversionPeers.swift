import CastTestSupport
import Foundation
import Testing

/// Media made by ffmpeg's lavfi sources for the conversion tests, and ffprobe reading what castctl serves.
enum ConversionPeers {
    static let ffprobe = Peers.onPath("ffprobe")
    static var available: Bool { Peers.inCI || (Peers.ffmpeg != nil && ffprobe != nil) }
    static let missing: Comment = "needs ffmpeg and ffprobe (apt-get install ffmpeg)"

    /// A fresh directory for one test's files.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "castctl-convert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The movie in `folder`: 20 s of HEVC Main 320x180 (25 fps, a key frame every 2 s), AC-3 stereo, a
    /// SubRip stream (English, default) and an ASS stream (French), in Matroska. `seconds` and `size` make longer
    /// or smaller ones.
    static func movie(in folder: String, name: String = "movie.mkv", seconds: Int = 20, size: String = "320x180", rate: Int = 25)
        async throws -> String {
        let ffmpeg = try #require(Peers.ffmpeg, "ffmpeg is not installed (apt-get install ffmpeg)")
        let srt = folder + "/source.srt", ass = folder + "/source.ass", path = folder + "/" + name
        try """
            1
            00:00:01,000 --> 00:00:03,000
            Hello from SubRip

            2
            00:00:15,000 --> 00:00:17,000
            Fifteen seconds in

            """.write(toFile: srt, atomically: true, encoding: .utf8)
        try """
            [Script Info]
            ScriptType: v4.00+

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,DejaVu Sans,16,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:02.00,0:00:04.00,Default,,0,0,0,,Bonjour de l'ASS
            Dialogue: 0,0:00:16.00,0:00:18.00,Default,,0,0,0,,Seize secondes

            """.write(toFile: ass, atomically: true, encoding: .utf8)
        let keyint = 2 * rate
        let run = try ChildProcess(ffmpeg, [
            "-v", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)", "-i", srt, "-i", ass,
            "-map", "0", "-map", "1", "-map", "2", "-map", "3",
            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:keyint=\(keyint):min-keyint=\(keyint):scenecut=0",
            "-pix_fmt", "yuv420p", "-c:a", "ac3", "-b:a", "96k", "-ac", "2", "-c:s:0", "srt", "-c:s:1", "ass",
            "-metadata:s:s:0", "language=eng", "-metadata:s:s:0", "title=English",
            "-metadata:s:s:1", "language=fre", "-metadata:s:s:1", "title=Français",
            "-disposition:s:0", "default", "-disposition:s:1", "0", path,
        ])
        let status = await run.waitForExit()
        try #require(status == 0, "ffmpeg could not make \(name): \(run.errorOutput)")
        return path
    }

    /// The movie, made once per test process (in a directory of its own, left to the system's temporary
    /// directory cleaning) and shared by the tests that only read it.
    static func sharedMovie() async throws -> String { try await SharedMovie.shared.path() }

    private actor SharedMovie {
        static let shared = SharedMovie()
        private var made: Task<String, any Error>?
        func path() async throws -> String {
            if let made { return try await made.value }
            let task = Task { try await ConversionPeers.movie(in: try ConversionPeers.folder()) }
            made = task
            return try await task.value
        }
    }

    /// The codec names ffprobe reads from a URL or file, by stream type, and its duration.
    static func probe(_ target: String) async throws -> (codecs: [String: [String]], duration: Double?) {
        let ffprobe = try #require(ffprobe, "ffprobe is not installed (apt-get install ffmpeg)")
        let run = try ChildProcess(ffprobe, ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", target])
        let status = await run.waitForExit()
        let text = run.output.joined(separator: "\n")
        guard status == 0, let data = text.data(using: .utf8),
              let report = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HarnessError(message: "ffprobe \(target) failed (\(status)): \(run.errorOutput)")
        }
        var codecs: [String: [String]] = [:]
        for stream in report["streams"] as? [[String: Any]] ?? [] {
            codecs[stream["codec_type"] as? String ?? "?", default: []].append(stream["codec_name"] as? String ?? "?")
        }
        let duration = ((report["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
        return (codecs, duration)
    }

    /// The first timestamp of the video in a file (ffprobe's `start_time` of its video stream).
    static func videoStart(_ path: String) async throws -> Double? {
        let ffprobe = try #require(ffprobe)
        let run = try ChildProcess(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time", "-of", "csv=p=0", path])
        _ = await run.waitForExit()
        return run.output.first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// GETs a URL with curl into a file; returns the HTTP status.
    static func download(_ url: String, to path: String) async throws -> Int {
        let curl = try #require(Peers.onPath("curl"), "curl is not installed (apt-get install curl)")
        let run = try ChildProcess(curl, ["-s", "--noproxy", "*", "--max-time", "120", "-o", path, "-w", "%{http_code}", url])
        _ = await run.waitForExit()
        return Int(run.output.joined()) ?? 0
    }

    /// The ffmpeg processes whose command line mentions `text` (read from /proc), as `pid: command line`.
    static func ffmpegProcesses(mentioning text: String) -> [(pid: Int32, line: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var found: [(Int32, String)] = []
        for name in names where name.allSatisfy(\.isNumber) {
            guard let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"), !data.isEmpty,
                  let pid = Int32(name) else { continue }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            if line.contains(text), line.split(separator: " ").first?.hasSuffix("ffmpeg") == true { found.append((pid, line)) }
        }
        return found
    }

    /// Waits until process `pid` (not our child) has exited, through a pidfd that Python's `os.pidfd_open` opens
    /// and `select` waits on (no polling of /proc); `true` when it did within `limit` seconds (a guard against a
    /// hang, not a timing assertion).
    static func waitForExit(of pid: Int32, limit: Int = 60) async -> Bool {
        guard let python = Peers.debianPython else { return false }
        let script = """
            import os, select, sys
            try:
                fd = os.pidfd_open(int(sys.argv[1]))
            except ProcessLookupError:
                sys.exit(0)
            ready, _, _ = select.select([fd], [], [], float(sys.argv[2]))
            sys.exit(0 if ready else 1)
            """
        guard let run = try? ChildProcess(python, ["-c", script, String(pid), String(limit)]) else { return false }
        return await run.waitForExit() == 0
    }
}
