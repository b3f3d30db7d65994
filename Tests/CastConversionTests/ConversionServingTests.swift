import CastConversion
import CastDeviceProfiles
import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// A converted file served through MediaServer, read back by ffprobe and curl (tools we did not write).
@Suite("Conversion: on-demand HLS read by ffprobe", .serialized, .enabled(if: MediaFixtures.available, MediaFixtures.missing))
struct ConversionServingTests {
    @Test("HEVC + AC-3 Matroska for chromecast-3: H.264 and AAC in MPEG-TS segments, the 20 s duration, seeking to 15 s, both subtitle streams as WebVTT, no ffmpeg left")
    func chromecast3() async throws {
        let tools = try MediaFixtures.requireTools()
        let movie = try await MediaFixtures.shared.movie()
        let server = try await MediaServer.start(.init(host: "127.0.0.1"))
        let conversion = try await MediaConversion.publish(file: movie, profile: .chromecast3, on: server, tools: tools)
        let media = await conversion.media
        #expect(media.contentType == "application/vnd.apple.mpegurl")
        #expect(media.segmentContainer == .mpegts)
        #expect(abs((media.duration ?? 0) - 20) < 0.1)
        let report = try await FFprobe.json(media.url)
        let streams = report["streams"] as? [[String: Any]] ?? []
        #expect(streams.compactMap { $0["codec_name"] as? String }.sorted() == ["aac", "h264"])
        let duration = Double((report["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(abs(duration - 20) < 0.5, "ffprobe reads \(duration) s")

        // The segment a device fetches after a SEEK to 15 s.
        let playlist = try await HTTPFetch.get(media.url.replacingOccurrences(of: "master.m3u8", with: "media.m3u8"))
        let text = String(decoding: playlist.body, as: UTF8.self)
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD") && text.contains("#EXT-X-ENDLIST"))
        let entries = Self.segments(text)
        var start = 0.0
        let containing = try #require(entries.first { entry in
            defer { start += entry.duration }
            return start <= 15 && 15 < start + entry.duration
        })
        let segmentPath = NSTemporaryDirectory() + "castor-seek-\(UUID().uuidString).ts"
        defer { unlink(segmentPath) }
        let fetched = try await HTTPFetch.get(media.url.replacingOccurrences(of: "master.m3u8", with: containing.name), into: segmentPath)
        #expect(fetched.status == 200)
        let times = try await FFprobe.firstTimes(segmentPath)
        let videoStart = try #require(times["video"])
        // Segments start where the layout says (15 s here), give or take the encoder's two-frame delay.
        #expect(abs(videoStart - 15) <= 0.25, "the segment holding 15 s starts at \(videoStart) s")

        for track in media.textTracks {
            let vtt = try await HTTPFetch.get(track.url)
            let body = String(decoding: vtt.body, as: UTF8.self)
            #expect(vtt.status == 200 && body.hasPrefix("WEBVTT"), "\(track.url): \(body.prefix(80))")
        }
        #expect(media.textTracks.map(\.language) == ["en", "fr"])
        #expect(media.textTracks.map(\.name) == ["English", "Français"])

        let directory = conversion.temporaryDirectory
        await conversion.stop()
        #expect(await conversion.runningProcesses.isEmpty)
        #expect(ProcessTable.processes(mentioning: movie).isEmpty, "ffmpeg still running: \(ProcessTable.processes(mentioning: movie))")
        #expect(!FileManager.default.fileExists(atPath: directory))
        await server.shutdown()
    }

    @Test("HEVC + AC-3 Matroska for ultra: the HEVC is copied into fragmented-MP4 segments, the AC-3 becomes AAC")
    func ultra() async throws {
        let tools = try MediaFixtures.requireTools()
        let movie = try await MediaFixtures.shared.movie()
        let server = try await MediaServer.start(.init(host: "127.0.0.1"))
        let conversion = try await MediaConversion.publish(file: movie, profile: .ultra, on: server, tools: tools)
        let media = await conversion.media
        #expect(media.segmentContainer == .fmp4)
        #expect(media.plan.video?.action == .copy)
        let codecs = try await FFprobe.codecs(media.url)
        #expect(codecs["video"] == ["hevc"] && codecs["audio"] == ["aac"], "\(codecs)")
        await conversion.stop()
        #expect(ProcessTable.processes(mentioning: movie).isEmpty)
        await server.shutdown()
    }

    @Test("A request far beyond what ffmpeg is making restarts it there: the segment holding 15 s comes from a run started at it")
    func restart() async throws {
        let tools = try MediaFixtures.requireTools()
        let movie = try await MediaFixtures.shared.movie()
        let server = try await MediaServer.start(.init(host: "127.0.0.1"))
        // No run before a request, and no waiting for a run more than one segment away.
        let configuration = MediaConversion.Configuration(
            limits: .init(lookahead: 1, restartDistance: 0), startsAtOnce: false)
        let conversion = try await MediaConversion.publish(
            file: movie, profile: .chromecast3, on: server, tools: tools, configuration: configuration)
        let media = await conversion.media
        let events = Task {
            var started: [Int] = []
            for await event in conversion.events { if case .runStarted(let segment, _) = event { started.append(segment) } }
            return started
        }
        let base = media.url.replacingOccurrences(of: "master.m3u8", with: "")
        #expect(try await HTTPFetch.get(base + "segment-0.ts").status == 200)
        let path = NSTemporaryDirectory() + "castor-restart-\(UUID().uuidString).ts"
        defer { unlink(path) }
        #expect(try await HTTPFetch.get(base + "segment-6.ts", into: path).status == 200)
        let times = try await FFprobe.firstTimes(path)
        #expect(abs((times["video"] ?? 0) - 15) <= 0.05, "\(times)")
        // Back to the start: segment 1 was never made (the first run paused after one segment ahead, then stopped).
        #expect(try await HTTPFetch.get(base + "segment-1.ts").status == 200)
        await conversion.stop()
        let started = await events.value
        #expect(started.first == 0 && started.contains(6), "runs started at \(started)")
        await server.shutdown()
    }

    @Test("--burn-subtitles 3 draws the ASS stream into the picture: the video is converted, the stream is no text track, and the picture differs from an unburnt conversion only while the cue shows")
    func burnIn() async throws {
        let tools = try MediaFixtures.requireTools()
        let movie = try await MediaFixtures.shared.movie()
        let server = try await MediaServer.start(.init(host: "127.0.0.1"))
        // Segment 6 is 15-18 s; the ASS cue "Seize secondes" shows from 16 s to 18 s.
        func segment6(_ options: ConversionOptions) async throws -> (String, [Int]) {
            let conversion = try await MediaConversion.publish(file: movie, profile: .chromecast3, options: options, on: server, tools: tools)
            let media = await conversion.media
            let path = NSTemporaryDirectory() + "castor-burn-\(UUID().uuidString).ts"
            #expect(try await HTTPFetch.get(media.url.replacingOccurrences(of: "master.m3u8", with: "segment-6.ts"), into: path).status == 200)
            await conversion.stop()
            return (path, media.textTracks.map(\.streamIndex))
        }
        let (burnt, burntTracks) = try await segment6(ConversionOptions(burnSubtitleStream: 3))
        let (plain, plainTracks) = try await segment6(ConversionOptions())
        defer { unlink(burnt); unlink(plain) }
        #expect(burntTracks == [2] && plainTracks == [2, 3])
        #expect(try await FFprobe.codecs(burnt)["video"] == ["h264"])
        // The luma of the frame 0.5 s and 2 s into the segment (15.5 s: no cue; 17 s: the cue).
        func luma(_ path: String, at offset: Double) async throws -> [UInt8] {
            let output = NSTemporaryDirectory() + "castor-frame-\(UUID().uuidString).gray"
            defer { unlink(output) }
            let run = try ChildProcess(tools.ffmpeg, ["-v", "error", "-nostdin", "-y", "-i", path, "-ss", String(offset),
                                                      "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", output])
            #expect(await run.waitForExit() == 0, "\(run.errorOutput)")
            return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        let before = (try await luma(burnt, at: 0.5), try await luma(plain, at: 0.5))
        let during = (try await luma(burnt, at: 2), try await luma(plain, at: 2))
        #expect(!before.0.isEmpty && before.0 == before.1, "no cue yet: the same picture")
        #expect(!during.0.isEmpty && during.0 != during.1, "the cue is drawn")
        await server.shutdown()
    }

    static func segments(_ playlist: String) -> [(name: String, duration: Double)] {
        var result: [(String, Double)] = []
        var pending: Double?
        for line in playlist.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst(8).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), let duration = pending {
                result.append((String(line), duration))
                pending = nil
            }
        }
        return result
    }
}

/// The processes whose command line mentions a string, read from /proc.
enum ProcessTable {
    static func processes(mentioning text: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var found: [String] = []
        for name in names where name.allSatisfy(\.isNumber) {
            guard let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"), !data.isEmpty else { continue }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            // A zombie has an empty cmdline; a process being reaped has gone from the table.
            if line.contains(text), line.hasPrefix("ffmpeg") || line.contains("/ffmpeg ") { found.append("\(name): \(line)") }
        }
        return found
    }
}
