import CastJSON
import CastEmulator
import CastTestSupport
import Foundation
import Testing

/// `castctl cast` of a local file with subtitles, proven by a receiver that fetches what it is told to load.
@Suite("castctl cast end to end", .serialized)
struct CastLocalFilesEndToEndTests {
    /// A few KB that start like an MP4 (an `ftyp` box), then a byte pattern.
    static let movie: [UInt8] = [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2avc1mp41".utf8)
        + (0..<4064).map { UInt8(($0 * 7) & 0xFF) }
    static let besideSRT = "\u{FEFF}1\r\n00:00:01,000 --> 00:00:03,500\r\n<i>Hello</i> from beside the movie\r\n\r\n2\r\n00:00:04,000 --> 00:00:05,000\r\nSecond cue\r\n"
    static let explicitSRT = "1\n00:00:06,250 --> 00:00:07,000\nFrom the --subtitles file\n"

    /// A temporary folder with `movie.mp4`, `movie.en.srt` beside it and `extra.srt`.
    func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.movie).write(to: folder.appendingPathComponent("movie.mp4"))
        try Data(Self.besideSRT.utf8).write(to: folder.appendingPathComponent("movie.en.srt"))
        try Data(Self.explicitSRT.utf8).write(to: folder.appendingPathComponent("extra.srt"))
        return folder
    }

    @Test func theReceiverFetchesTheServedMovieAndSubtitlesThenCastctlStopsItOnInterrupt() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each fetch within 60 s, not the default 10 s: one run under heavy load had a fetch from castctl's server
        // time out (LOAD_FAILED 103 MEDIA_NETWORK after 15 s); the test is about what is fetched, not how fast.
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: "Fetching TV", mediaFetching: EmulatedReceiverMediaFetching(timeout: .seconds(60))))
        try await receiver.start()
        let port = try #require(await receiver.port)

        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "cast", folder.appendingPathComponent("movie.mp4").path,
            "--subtitles", folder.appendingPathComponent("extra.srt").path,
            // --timeout bounds the whole setup (connect, launch, load, the receiver's fetches): generous
            // on a loaded machine; the test is about what is fetched, not how fast.
            "--host", "127.0.0.1", "--port", String(port), "--json", "--timeout", "60",
        ])
        let loaded = await castctl.waitForLine { $0.contains("playerState") }
        let status = try JSONValue(parsing: try #require(loaded, "castctl printed no status: \(castctl.errorOutput)"))
        #expect(status["playerState"] == "PLAYING")

        // The receiver fetched, over HTTP from castctl's server, the movie's first bytes with a range…
        let fetches = await receiver.fetches
        #expect(fetches.allSatisfy { $0.succeeded }, "\(fetches)")
        let media = try #require(fetches.first { $0.kind == .media })
        #expect(media.url.hasPrefix("http://127.0.0.1:"))
        #expect(media.url.hasSuffix("/movie.mp4"))
        #expect(media.requestedRange == 0...(64 * 1024 - 1))
        #expect(media.statusCode == 206)
        #expect(media.contentRange == "bytes 0-\(Self.movie.count - 1)/\(Self.movie.count)")
        #expect(media.contentType == "video/mp4")
        #expect(media.body == Self.movie)
        #expect(media.corsAllowed)

        // …and both subtitle tracks, as WebVTT converted from the SRT files.
        let tracks = fetches.filter { $0.kind == .textTrack }
        #expect(tracks.count == 2)
        let texts = tracks.map { String(decoding: $0.body, as: UTF8.self) }
        for (track, text) in zip(tracks, texts) {
            #expect(track.statusCode == 200)
            #expect(track.contentType?.hasPrefix("text/vtt") == true)
            #expect(track.corsAllowed)
            #expect(text.hasPrefix("WEBVTT"))
            #expect(!text.contains("\r"))
        }
        let beside = try #require(texts.first { $0.contains("from beside the movie") })
        #expect(beside.contains("00:00:01.000 --> 00:00:03.500\n<i>Hello</i> from beside the movie"))
        #expect(beside.contains("00:00:04.000 --> 00:00:05.000\nSecond cue"))
        let explicit = try #require(texts.first { $0.contains("From the --subtitles file") })
        #expect(explicit.contains("00:00:06.250 --> 00:00:07.000\nFrom the --subtitles file"))
        // The status castctl printed lists the tracks it offered, under the URLs the receiver fetched.
        let offered = Set(status["media"]?["tracks"]?.arrayValue?.compactMap { $0["trackContentId"]?.stringValue } ?? [])
        #expect(offered == Set(tracks.map(\.url)))
        #expect(status["media"]?["contentId"] == .string(media.url))

        // Interrupting castctl stops the media on the device and ends castctl cleanly.
        let exit = await castctl.terminate(signal: SIGINT)
        #expect(exit == 0, "\(castctl.errorOutput)")
        #expect(await receiver.mediaStatus == [])
        let finalLine = try JSONValue(parsing: castctl.output.last ?? "")
        #expect(finalLine["idleReason"] == "CANCELLED" || finalLine["status"] == .null, "\(finalLine)")
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }

    @Test func castReceiverProgramPrintsEachFetchWithFetchMedia() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receiver = try await ReceiverProcess.start(["--fetch-media", "--strict"])
        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "cast", folder.appendingPathComponent("movie.mp4").path, "--host", "127.0.0.1", "--port", String(receiver.port), "--json",
        ])
        let loaded = await castctl.waitForLine { $0.contains("playerState") }
        let playerState = loaded.flatMap { line in (try? JSONValue(parsing: line))?["playerState"] }
        #expect(playerState == "PLAYING", "\(castctl.errorOutput)")
        let mediaLine = await receiver.child.waitForLine { $0.hasPrefix("cast-receiver: fetch media ") }
        #expect(mediaLine?.contains("/movie.mp4 bytes=0-65535 → 206 video/mp4, \(Self.movie.count) bytes, CORS ok") == true, "\(mediaLine ?? "none")")
        let trackLine = await receiver.child.waitForLine { $0.hasPrefix("cast-receiver: fetch textTrack ") }
        #expect(trackLine?.contains("→ 200 text/vtt") == true, "\(trackLine ?? "none")")
        #expect(await castctl.terminate(signal: SIGINT) == 0)
        #expect(await receiver.child.terminate() == 0, "\(receiver.child.output)")
    }
}
