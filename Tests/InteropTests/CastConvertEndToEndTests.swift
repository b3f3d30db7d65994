import CastTestSupport
import Foundation
import Testing

/// `castctl cast` of the issue's movie (HEVC + AC-3 + SubRip + ASS in Matroska) against `cast-receiver --profile …
/// --fetch-media`, with ffprobe and curl reading what castctl serves, and /proc telling whether ffmpeg is left.
@Suite("castctl cast converts what the device cannot play", .serialized,
       .enabled(if: ConversionPeers.available, ConversionPeers.missing))
struct CastConvertEndToEndTests {
    /// castctl against a receiver, with standard input for commands and debug logs on standard error.
    func castctl(_ movie: String, port: Int, _ extra: [String]) throws -> ChildProcess {
        try ChildProcess(
            TestPaths.program("castctl"),
            ["cast", movie, "--host", "127.0.0.1", "--port", String(port), "--timeout", "60", "--control", "-v"] + extra,
            standardInput: true)
    }

    @Test("--transcode never loads the Matroska as it is; chromecast-3 refuses it and castctl exits 5 naming HEVC")
    func neverIsRefused() async throws {
        let movie = try await ConversionPeers.sharedMovie()
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3", "--fetch-media"])
        let run = try castctl(movie, port: receiver.port, ["--transcode", "never", "--device-profile", "chromecast-3"])
        let status = await run.waitForExit()
        _ = await receiver.child.terminate()
        #expect(status == 5, "castctl exited \(status): \(run.errorOutput.suffix(1500))")
        let refusal = run.errorOutput.split(separator: "\n").last { $0.contains("refused") || $0.contains("could not play") } ?? ""
        #expect(refusal.lowercased().contains("hevc"), "\(run.errorOutput.suffix(1500))")
        #expect(ConversionPeers.ffmpegProcesses(mentioning: movie).isEmpty)
    }

    @Test("chromecast-3, by default: H.264 and AAC served, the 20 s duration, both subtitle streams fetched as WebVTT, a seek to 15 s served from 15 s, nothing left after stop")
    func chromecast3() async throws {
        let folder = try ConversionPeers.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = try await ConversionPeers.sharedMovie()
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3", "--fetch-media"])
        let run = try castctl(movie, port: receiver.port, ["--device-profile", "chromecast-3"])
        let playing = await run.waitForLine { $0.hasPrefix("PLAYING") || $0.hasPrefix("IDLE") || $0.hasPrefix("castctl: the") }
        #expect(playing?.hasPrefix("PLAYING") == true, "\(playing ?? "no status"): \(run.errorOutput.suffix(2000))")
        #expect(playing?.contains("/ 0:00:20") == true, "the status shows the source's duration: \(playing ?? "")")
        // The served URL, on its own indented line.
        let served = try #require(run.output.first { $0.hasPrefix("  ") && $0.contains("http://") }, "\(run.output)")
        let url = try #require(served.split(separator: " ").last.map(String.init))
        #expect(url.hasSuffix("/master.m3u8"))
        // What is served is what chromecast-3 decodes.
        let probed = try await ConversionPeers.probe(url)
        #expect(probed.codecs["video"] == ["h264"] && probed.codecs["audio"] == ["aac"], "\(probed.codecs)")
        #expect(abs((probed.duration ?? 0) - 20) < 0.5, "ffprobe reads \(probed.duration ?? 0) s")
        // Both subtitle streams, fetched by the receiver as WebVTT.
        let subtitles = receiver.child.output.filter { $0.contains("fetch textTrack") }
        #expect(subtitles.count == 2 && subtitles.allSatisfy { $0.contains("→ 200 text/vtt") }, "\(receiver.child.output)")
        #expect(subtitles.contains { $0.contains("subtitles-2.vtt") } && subtitles.contains { $0.contains("subtitles-3.vtt") })
        #expect(run.errorOutput.contains("hevc") && run.errorOutput.contains("→ H.264"), "the plan says why: \(run.errorOutput.prefix(2000))")

        // The device seeks to 15 s; its player then reads the stream from there (ffmpeg as the player).
        #expect(run.writeLine("seek 15"))
        let seeked = await run.waitForLine { $0.hasPrefix("castctl: seek 15:") }
        #expect(seeked == "castctl: seek 15: done", "\(seeked ?? "no answer")")
        let before = run.errorOutput.count
        let ffmpeg = try #require(Peers.ffmpeg)
        let player = try ChildProcess(ffmpeg, ["-v", "error", "-nostdin", "-ss", "15", "-i", url, "-frames:v", "1", "-f", "null", "-"])
        #expect(await player.waitForExit() == 0, "\(player.errorOutput)")
        let after = String(run.errorOutput.dropFirst(before))
        let requested = after.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "conversion: segment-") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " }).replacingOccurrences(of: ".ts", with: "")
        }
        #expect(requested.contains("6"), "the segment holding 15 s (15-18 s) was asked for after the seek: \(requested)")
        let segment = folder + "/segment-6.ts"
        #expect(try await ConversionPeers.download(url.replacingOccurrences(of: "master.m3u8", with: "segment-6.ts"), to: segment) == 200)
        let start = try #require(try await ConversionPeers.videoStart(segment))
        #expect(abs(start - 15) <= 0.25, "the segment after the seek starts at \(start) s")

        // Stopping: castctl ends, and no ffmpeg is left.
        #expect(run.writeLine("stop"))
        _ = await run.waitForExit()
        #expect(ConversionPeers.ffmpegProcesses(mentioning: movie).isEmpty, "\(ConversionPeers.ffmpegProcesses(mentioning: movie))")
        let stopped = await receiver.stopAndCountViolations()
        #expect(stopped.violations == 0, "\(stopped.lines)")
    }

    @Test("ultra: the HEVC is copied, not re-encoded, into fragmented-MP4 segments; the AC-3 becomes AAC")
    func ultraCopiesHEVC() async throws {
        let movie = try await ConversionPeers.sharedMovie()
        let receiver = try await ReceiverProcess.start(["--profile", "ultra", "--fetch-media"])
        let run = try castctl(movie, port: receiver.port, ["--device-profile", "ultra"])
        let playing = await run.waitForLine { $0.hasPrefix("PLAYING") || $0.hasPrefix("IDLE") || $0.hasPrefix("castctl: the") }
        #expect(playing?.hasPrefix("PLAYING") == true, "\(playing ?? "no status"): \(run.errorOutput.suffix(2000))")
        let served = try #require(run.output.first { $0.hasPrefix("  ") && $0.contains("http://") })
        let url = try #require(served.split(separator: " ").last.map(String.init))
        let probed = try await ConversionPeers.probe(url)
        #expect(probed.codecs["video"] == ["hevc"] && probed.codecs["audio"] == ["aac"], "\(probed.codecs)")
        #expect(run.errorOutput.contains("video #0 hevc") && run.errorOutput.contains("→ copied"), "\(run.errorOutput.prefix(2000))")
        // The first segment, byte for byte the source's HEVC: the same packets as a stream copy by ffmpeg itself.
        #expect(await run.terminate(signal: SIGINT) == 0)
        #expect(ConversionPeers.ffmpegProcesses(mentioning: movie).isEmpty)
        _ = await receiver.child.terminate()
    }

    @Test("Without ffmpeg on PATH: one line naming the Debian package; --transcode always fails with it, auto serves the file as it is")
    func ffmpegMissing() async throws {
        let movie = try await ConversionPeers.sharedMovie()
        let receiver = try await ReceiverProcess.start(["--fetch-media"])
        let environment = ["PATH": "/nonexistent", "HOME": NSTemporaryDirectory()]
        let always = try ChildProcess(
            TestPaths.program("castctl"), ["cast", movie, "--host", "127.0.0.1", "--port", String(receiver.port), "--transcode", "always"],
            environment: environment)
        #expect(await always.waitForExit() == 1)
        #expect(always.errorOutput.contains("castctl: ffmpeg is not installed: apt-get install ffmpeg (Debian package ffmpeg)"),
                "\(always.errorOutput)")
        let auto = try ChildProcess(
            TestPaths.program("castctl"), ["cast", movie, "--host", "127.0.0.1", "--port", String(receiver.port)], environment: environment)
        let playing = await auto.waitForLine { $0.hasPrefix("PLAYING") || $0.hasPrefix("IDLE") }
        #expect(playing?.hasPrefix("PLAYING") == true, "\(auto.errorOutput)")
        #expect(auto.errorOutput.contains("ffmpeg is not installed: apt-get install ffmpeg (Debian package ffmpeg); serving files as they are"))
        #expect(auto.output.contains { $0.hasPrefix("  ") && $0.hasSuffix("/movie.mkv") }, "\(auto.output)")
        #expect(await auto.terminate(signal: SIGINT) == 0)
        _ = await receiver.child.terminate()
    }

    @Test("castctl killed with SIGKILL while ffmpeg is paused: the kernel kills ffmpeg (PR_SET_PDEATHSIG)")
    func crashLeavesNoFFmpeg() async throws {
        try await pausedConversion { _, run, movie, ffmpeg in
            kill(run.pid, SIGKILL)
            #expect(await ConversionPeers.waitForExit(of: ffmpeg), "ffmpeg \(ffmpeg) outlived castctl")
            _ = await run.waitForExit()
            #expect(ConversionPeers.ffmpegProcesses(mentioning: movie).isEmpty)
        }
    }

    @Test("Ctrl-C while ffmpeg is paused: castctl stops the media, kills and reaps ffmpeg, exits 0")
    func interruptLeavesNoFFmpeg() async throws {
        try await pausedConversion { _, run, movie, ffmpeg in
            #expect(await run.terminate(signal: SIGINT) == 0, "\(run.errorOutput.suffix(1000))")
            #expect(await ConversionPeers.waitForExit(of: ffmpeg))
            #expect(ConversionPeers.ffmpegProcesses(mentioning: movie).isEmpty)
        }
    }

    @Test("The device lost for good (killed, --reconnect-timeout 0): castctl exits 3 and no ffmpeg is left")
    func lostDeviceLeavesNoFFmpeg() async throws {
        try await pausedConversion(extra: ["--reconnect-timeout", "0"]) { receiver, run, movie, ffmpeg in
            _ = await receiver.child.terminate(signal: SIGKILL)
            #expect(await run.waitForExit() == 3, "\(run.errorOutput.suffix(1000))")
            #expect(await ConversionPeers.waitForExit(of: ffmpeg))
            #expect(ConversionPeers.ffmpegProcesses(mentioning: movie).isEmpty)
        }
    }

    /// Casts a 90 s movie (small: 160x90 at 10 fps) so that ffmpeg gets far enough ahead of the device to be paused,
    /// then runs `body` with the receiver, castctl, the movie and the paused ffmpeg's pid; whatever still runs
    /// afterwards is killed.
    private func pausedConversion(
        extra: [String] = [], _ body: (ReceiverProcess, ChildProcess, String, Int32) async throws -> Void
    ) async throws {
        let folder = try ConversionPeers.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = try await ConversionPeers.movie(in: folder, name: "long.mkv", seconds: 90, size: "160x90", rate: 10)
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3", "--fetch-media"])
        let run = try castctl(movie, port: receiver.port, ["--device-profile", "chromecast-3"] + extra)
        defer { kill(run.pid, SIGKILL) }
        let paused = await run.waitForErrorLine { $0.contains("conversion: ffmpeg paused") }
        try #require(paused != nil, "ffmpeg was never paused: \(run.errorOutput.suffix(2000))")
        let ffmpeg = try #require(ConversionPeers.ffmpegProcesses(mentioning: movie).first?.pid, "no ffmpeg is running")
        try await body(receiver, run, movie, ffmpeg)
        _ = await receiver.child.terminate(signal: SIGKILL)
    }
}
