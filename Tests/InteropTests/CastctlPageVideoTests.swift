import CastJSON
import CastTestSupport
import Foundation
import Testing

/// `castctl cast PAGE` for a web page with a `<video>` (a `<source>` and a `<track>`), resolved by the real yt-dlp
/// (the venv's, PyPI) against `cast-receiver --fetch-media`; catt, which also uses yt-dlp, casts the same page as
/// the independent reference of what it resolves to. Outside CI a missing yt-dlp, ffmpeg or catt skips with the
/// reason; in CI (`CI=true`) it fails.
@Suite("castctl cast resolves a web page's video with yt-dlp", .serialized)
struct CastctlPageVideoTests {
    static let driver = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/page_video_driver.py").path
    static let ytdlp = Peers.inVenv("yt-dlp")
    static var venvBin: String? { ytdlp.map { ($0 as NSString).deletingLastPathComponent } }

    /// A folder with the page, a 4 s H.264/AAC clip made by ffmpeg and a WebVTT file, served by Python's http.server.
    struct Site {
        let folder: String
        let server: ChildProcess
        let port: Int
        var page: String { "http://127.0.0.1:\(port)/page.html" }

        static func start() async throws -> Site {
            let ffmpeg = try #require(Peers.ffmpeg, "ffmpeg is not installed (scripts/bootstrap.sh test installs it)")
            let python = try #require(Peers.debianPython, "needs /usr/bin/python3")
            let folder = NSTemporaryDirectory() + "castctl-page-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let clip = try ChildProcess(ffmpeg, [
                "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=duration=4:size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=frequency=440:duration=4", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
                "-shortest", "-movflags", "+faststart", folder + "/clip.mp4",
            ])
            #expect(await clip.waitForExit() == 0, "\(clip.errorOutput)")
            try "WEBVTT\n\n00:00:00.500 --> 00:00:03.000\nHello from the page\n".write(toFile: folder + "/subs.vtt", atomically: true, encoding: .utf8)
            try """
                <!DOCTYPE html><html><head><title>Page video</title></head><body>
                <video controls><source src="clip.mp4" type="video/mp4"><track kind="subtitles" src="subs.vtt" srclang="en" label="English"></video>
                </body></html>
                """.write(toFile: folder + "/page.html", atomically: true, encoding: .utf8)
            // Python's http.server with the CORS header a Cast device demands of media and text tracks (a real site serving
            // Chromecasts sends it; the emulated device refuses media without it, as the real one does).
            let script = """
                import functools, http.server, sys
                class H(http.server.SimpleHTTPRequestHandler):
                    def end_headers(self):
                        self.send_header("Access-Control-Allow-Origin", "*")
                        super().end_headers()
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

    static func environment(path: String) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }
    }

    @Test("yt-dlp resolves the page: the receiver fetches the clip as the media and the WebVTT as a text track",
          .enabled(if: Peers.inCI || (ytdlp != nil && Peers.ffmpeg != nil), "needs yt-dlp in the venv (scripts/bootstrap.sh test) and ffmpeg"))
    func resolvesThePage() async throws {
        let bin = try #require(Self.venvBin, "yt-dlp is not installed in the venv: run scripts/bootstrap.sh test")
        let site = try await Site.start()
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3", "--fetch-media"])
        let run = try ChildProcess(
            TestPaths.program("castctl"),
            ["cast", site.page, "--host", "127.0.0.1", "--port", String(receiver.port), "--device-profile", "chromecast-3", "--timeout", "60"],
            environment: Self.environment(path: bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")))
        let playing = await run.waitForLine { $0.hasPrefix("PLAYING") || $0.hasPrefix("IDLE") || $0.hasPrefix("castctl: the") }
        #expect(playing?.hasPrefix("PLAYING") == true, "\(playing ?? "no status"): \(run.errorOutput.suffix(2000))")
        let media = await receiver.child.waitForLine { $0.hasPrefix("cast-receiver: fetch media ") }
        #expect(media?.hasPrefix("cast-receiver: fetch media http://127.0.0.1:\(site.port)/clip.mp4 ") == true, "\(media ?? "none")")
        let track = await receiver.child.waitForLine { $0.hasPrefix("cast-receiver: fetch textTrack ") }
        #expect(track?.contains("http://127.0.0.1:\(site.port)/subs.vtt") == true && track?.contains("→ 200") == true, "\(track ?? "none")")
        #expect(run.errorOutput.contains("asking yt-dlp"), "progress on standard error: \(run.errorOutput)")
        #expect(await run.terminate(signal: SIGINT) == 0, "\(run.errorOutput.suffix(1000))")
        let stopped = await receiver.stopAndCountViolations()
        #expect(stopped.violations == 0, "\(stopped.lines)")
        await site.stop()
    }

    @Test("Without yt-dlp on PATH: one line saying how to install it, exit status 1, nothing loaded",
          .enabled(if: Peers.inCI || Peers.ffmpeg != nil, "needs ffmpeg for the page's clip"))
    func ytdlpMissing() async throws {
        let site = try await Site.start()
        let receiver = try await ReceiverProcess.start(["--fetch-media"])
        let run = try ChildProcess(
            TestPaths.program("castctl"), ["cast", site.page, "--host", "127.0.0.1", "--port", String(receiver.port), "--device-profile", "chromecast-3"],
            environment: Self.environment(path: "/nonexistent"))
        #expect(await run.waitForExit() == 1)
        let lines = run.errorOutput.split(separator: "\n").filter { !$0.hasPrefix("castctl: ") || !$0.contains("web page") }
        #expect(lines.last == "castctl: yt-dlp is not installed: apt-get install yt-dlp or pip install yt-dlp", "\(run.errorOutput)")
        #expect(!receiver.child.output.contains { $0.contains("fetch media") })
        _ = await receiver.child.terminate()
        await site.stop()
    }

    @Test("catt casts the same page to the same clip URL as castctl (both through yt-dlp)",
          .enabled(if: Peers.inCI || (Peers.isRoot && Peers.catt != nil && ytdlp != nil && Peers.ffmpeg != nil),
                   "needs root (a network namespace: catt only talks to port 8009), catt and yt-dlp in the venv, ffmpeg"))
    func cattLoadsTheSameClip() async throws {
        try #require(Peers.isRoot, "the catt test runs as root (CI does)")
        let catt = try #require(Peers.catt, "catt is not installed in the venv: run scripts/bootstrap.sh test")
        let bin = try #require(Self.venvBin, "yt-dlp is not installed in the venv: run scripts/bootstrap.sh test")
        let unshare = try #require(Peers.unshare)
        let python = try #require(Peers.debianPython)
        let workdir = NSTemporaryDirectory() + "castctl-page-catt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: workdir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: workdir) }
        let driver = try ChildProcess(unshare, [
            "-n", "--", python, Self.driver, "--receiver", TestPaths.program("cast-receiver"), "--castctl", TestPaths.program("castctl"),
            "--catt", catt, "--venv-bin", bin, "--workdir", workdir,
        ])
        #expect(await driver.waitForExit() == 0, "\(driver.output) \(driver.errorOutput.suffix(2000))")
        var results: [String: JSONValue] = [:]
        for line in driver.output {
            guard let json = try? JSONValue(parsing: line) else { continue }
            if let sender = json["sender"]?.stringValue { results[sender] = json }
            #expect(json["exception"] == nil, "\(line)")
        }
        let clip = "http://127.0.0.1:8000/clip.mp4"
        let cattMedia = results["catt"]?["media"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let ourMedia = results["castctl"]?["media"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(cattMedia.first == clip, "catt loaded \(cattMedia): \(results["catt"]?["detail"]?.stringValue ?? "")")
        #expect(ourMedia.first == cattMedia.first, "castctl loaded \(ourMedia): \(results["castctl"]?["detail"]?.stringValue ?? "")")
        let ourTracks = results["castctl"]?["tracks"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(ourTracks.first == "http://127.0.0.1:8000/subs.vtt", "\(ourTracks)")
    }
}
