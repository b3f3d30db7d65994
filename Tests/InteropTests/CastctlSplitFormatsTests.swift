import CastTestSupport
import Foundation
import Testing

/// `castctl cast PAGE` for a page whose `<video>` plays a DASH presentation made by ffmpeg (a video-only and an
/// audio-only representation): the real yt-dlp (the venv's) lists them as separate formats, castctl's conversion reads
/// both over HTTP with yt-dlp's request headers and merges them into HLS for `cast-receiver --profile chromecast-3
/// --fetch-media`; ffmpeg and ffprobe read what is served. Outside CI a missing yt-dlp or ffmpeg skips with the reason;
/// in CI (`CI=true`) it fails.
@Suite("castctl cast merges a page's separate video and audio through the conversion", .serialized)
struct CastctlSplitFormatsTests {
    static let ytdlp = Peers.inVenv("yt-dlp")

    /// A folder with the page and an 8 s DASH presentation (H.264 320x240 with a key frame a second, AAC), served by
    /// Python's http.server with CORS, which prints each request's path, User-Agent and Referer.
    struct Site {
        let folder: String
        let server: ChildProcess
        let port: Int
        var page: String { "http://127.0.0.1:\(port)/page.html" }
        var manifest: String { "http://127.0.0.1:\(port)/dash/clip.mpd" }

        static func start() async throws -> Site {
            let ffmpeg = try #require(Peers.ffmpeg, "ffmpeg is not installed (scripts/bootstrap.sh test installs it)")
            let python = try #require(Peers.debianPython, "needs /usr/bin/python3")
            let folder = try ConversionPeers.folder()
            try FileManager.default.createDirectory(atPath: folder + "/dash", withIntermediateDirectories: true)
            let dash = try ChildProcess(ffmpeg, [
                "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=duration=8:size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440:duration=8", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                "-g", "25", "-keyint_min", "25", "-sc_threshold", "0", "-c:a", "aac", "-b:a", "96k", "-f", "dash", "-seg_duration", "2",
                "-adaptation_sets", "id=0,streams=v id=1,streams=a", folder + "/dash/clip.mpd",
            ])
            #expect(await dash.waitForExit() == 0, "\(dash.errorOutput)")
            try """
                <!DOCTYPE html><html><head><title>Split video</title></head><body>
                <video controls><source src="dash/clip.mpd" type="application/dash+xml"></video>
                </body></html>
                """.write(toFile: folder + "/page.html", atomically: true, encoding: .utf8)
            let script = """
                import functools, http.server, sys
                class H(http.server.SimpleHTTPRequestHandler):
                    def end_headers(self):
                        self.send_header("Access-Control-Allow-Origin", "*")
                        super().end_headers()
                    def do_GET(self):
                        print("request %s UA=%s REFERER=%s" % (self.path, self.headers.get("User-Agent"), self.headers.get("Referer")), flush=True)
                        super().do_GET()
                    def log_message(self, *args):
                        pass
                http.server.test(HandlerClass=functools.partial(H, directory=sys.argv[1]), port=0, bind="127.0.0.1")
                """
            let server = try ChildProcess(python, ["-u", "-c", script, folder])
            let ready = await server.waitForLine { $0.contains("Serving HTTP on") }
            guard let ready, let port = ready.split(separator: " ").drop(while: { $0 != "port" }).dropFirst().first.flatMap({ Int($0) }) else {
                _ = await server.terminate()
                throw HarnessError(message: "http.server did not start: \(server.output) \(server.errorOutput)")
            }
            return Site(folder: folder, server: server, port: port)
        }

        func stop() async {
            _ = await server.terminate()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test("A DASH page on chromecast-3: both representations copied into HLS, 8 s of video and audio, a seek served, no ffmpeg left",
          .enabled(if: Peers.inCI || (ytdlp != nil && Peers.ffmpeg != nil && ConversionPeers.ffprobe != nil),
                   "needs yt-dlp in the venv (scripts/bootstrap.sh test), ffmpeg and ffprobe"))
    func dashPagePlays() async throws {
        let ytdlp = try #require(Self.ytdlp, "yt-dlp is not installed in the venv: run scripts/bootstrap.sh test")
        let ffmpeg = try #require(Peers.ffmpeg)
        let bin = (ytdlp as NSString).deletingLastPathComponent
        let site = try await Site.start()
        defer { try? FileManager.default.removeItem(atPath: site.folder) }
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3", "--fetch-media"])
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try ChildProcess(
            TestPaths.program("castctl"),
            ["cast", site.page, "--host", "127.0.0.1", "--port", String(receiver.port), "--device-profile", "chromecast-3", "--timeout", "60",
             "--control", "-v"],
            environment: ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }, standardInput: true)
        defer { kill(run.pid, SIGKILL) }

        let playing = await run.waitForLine { $0.hasPrefix("PLAYING") || $0.hasPrefix("IDLE") || $0.hasPrefix("castctl: the") }
        #expect(playing?.hasPrefix("PLAYING") == true, "\(playing ?? "no status"): \(run.errorOutput.suffix(3000))")
        #expect(run.errorOutput.contains("merging video format 0") && run.errorOutput.contains("audio format 1"), "\(run.errorOutput.prefix(3000))")
        #expect(run.errorOutput.contains("video #0 h264") && run.errorOutput.contains("audio #1:1 aac"), "the plan: \(run.errorOutput.prefix(3000))")
        let served = try #require(run.output.first { $0.hasPrefix("  ") && $0.contains("http://") }, "\(run.output)")
        let url = try #require(served.split(separator: " ").last.map(String.init))
        #expect(url.hasSuffix("/master.m3u8"))
        let fetched = await receiver.child.waitForLine { $0.hasPrefix("cast-receiver: fetch media ") }
        #expect(fetched?.contains(url) == true && fetched?.contains("→ 20") == true, "\(fetched ?? "none")")

        // Everything served, read by ffmpeg into one file: a video and an audio stream, each as long as the clip.
        let copy = site.folder + "/served.mp4"
        let reader = try ChildProcess(ffmpeg, ["-v", "error", "-nostdin", "-y", "-i", url, "-c", "copy", "-bsf:a", "aac_adtstoasc", copy])
        #expect(await reader.waitForExit() == 0, "\(reader.errorOutput)")
        let streams = try await Self.streamDurations(copy)
        #expect(streams.map(\.type).sorted() == ["audio", "video"], "\(streams)")
        for stream in streams { #expect(abs(stream.duration - 8) < 0.25, "\(stream.type) lasts \(stream.duration) s") }
        let probed = try await ConversionPeers.probe(url)
        #expect(probed.codecs["video"] == ["h264"] && probed.codecs["audio"] == ["aac"], "\(probed.codecs)")

        // ffmpeg fetched the representations with yt-dlp's headers for them (its browser User-Agent, the page as Referer).
        let chunks = site.server.output.filter { $0.hasPrefix("request /dash/chunk-") }
        #expect(!chunks.isEmpty && chunks.allSatisfy { $0.contains("Chrome/") && $0.contains("REFERER=\(site.page)") }, "\(chunks.prefix(4))")

        // The device seeks to 5 s; a player reading from there gets the segment that holds 5 s, with video and audio.
        #expect(run.writeLine("seek 5"))
        let seeked = await run.waitForLine { $0.hasPrefix("castctl: seek 5:") }
        #expect(seeked == "castctl: seek 5: done", "\(seeked ?? "no answer")")
        let playlist = site.folder + "/media.m3u8"
        #expect(try await ConversionPeers.download(url.replacingOccurrences(of: "master.m3u8", with: "media.m3u8"), to: playlist) == 200)
        let segments = try Self.segments(String(contentsOfFile: playlist, encoding: .utf8))
        let holding = try #require(segments.first { $0.start <= 5 && 5 < $0.start + $0.duration }, "\(segments)")
        let player = try ChildProcess(ffmpeg, ["-v", "error", "-nostdin", "-ss", "5", "-i", url, "-t", "1", "-f", "null", "-"])
        #expect(await player.waitForExit() == 0, "\(player.errorOutput)")
        let segment = site.folder + "/" + holding.name
        #expect(try await ConversionPeers.download(url.replacingOccurrences(of: "master.m3u8", with: holding.name), to: segment) == 200)
        let start = try #require(try await ConversionPeers.videoStart(segment))
        #expect(abs(start - holding.start) <= 0.1, "\(holding.name) starts at \(start) s, the playlist says \(holding.start) s")
        let inSegment = try await ConversionPeers.probe(segment)
        #expect(inSegment.codecs["video"] == ["h264"] && inSegment.codecs["audio"] == ["aac"], "\(inSegment.codecs)")

        // Stopping: castctl ends and no ffmpeg reading the presentation is left.
        #expect(run.writeLine("stop"))
        _ = await run.waitForExit()
        #expect(ConversionPeers.ffmpegProcesses(mentioning: site.manifest).isEmpty, "\(ConversionPeers.ffmpegProcesses(mentioning: site.manifest))")
        let stopped = await receiver.stopAndCountViolations()
        #expect(stopped.violations == 0, "\(stopped.lines)")
        await site.stop()
    }

    /// Each stream's type and duration in seconds, as ffprobe reads them from a file.
    static func streamDurations(_ path: String) async throws -> [(type: String, duration: Double)] {
        let ffprobe = try #require(ConversionPeers.ffprobe)
        let run = try ChildProcess(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0", path])
        _ = await run.waitForExit()
        return run.output.compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let duration = Double(fields[1]) else { return nil }
            return (String(fields[0]), duration)
        }
    }

    /// The segments of an HLS media playlist: name, start and duration.
    static func segments(_ playlist: String) throws -> [(name: String, start: Double, duration: Double)] {
        var result: [(String, Double, Double)] = []
        var start = 0.0
        var duration: Double?
        for line in playlist.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst(8).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), let length = duration {
                result.append((String(line), start, length))
                start += length
                duration = nil
            }
        }
        return result
    }
}
