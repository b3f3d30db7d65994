import CastTestSupport
import Foundation
import Testing
@testable import CastEmulator

/// Media files made by ffmpeg once per test run, in a temporary directory.
enum ProbeMedia {
    static let ffmpeg: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// In CI (`CI=true`) ffmpeg must be there (`make test` installs it): a missing one fails instead of skipping.
    static let available = ffmpeg != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("castor-probe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static let tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=7.5:sample_rate=44100"]
    static let video = ["-f", "lavfi", "-i", "testsrc=duration=5:size=320x240:rate=25"]

    /// Makes `name` with ffmpeg (once) and returns its bytes. ffmpeg runs as a child process awaited
    /// without blocking a thread of the test pool. Tests run in parallel: ffmpeg writes a file of its
    /// own, renamed into place when complete, so no test reads a file being written.
    static func file(_ name: String, _ arguments: [String]) async throws -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: url.path) {
            let scratch = directory.appendingPathComponent("part-\(UUID().uuidString)-\(name)")
            let child = try ChildProcess(
                try #require(ffmpeg, "ffmpeg is not installed"),
                ["-v", "error", "-y"] + arguments + [scratch.path])
            let status = await child.waitForExit()
            try #require(status == 0, "ffmpeg failed to make \(name): \(child.errorOutput)")
            // rename(2) replaces atomically: a reader sees the old complete file or the new one.
            try #require(rename(scratch.path, url.path) == 0, "cannot move \(name) into place")
        }
        return Array(try Data(contentsOf: url))
    }

    /// Probes `bytes` the way the fetcher does: a prefix (with the total size, as a 206 tells it),
    /// then at most three follow-up ranges served from the same bytes.
    static func probe(_ bytes: [UInt8], prefix: Int = 64 * 1024, contentType: String? = nil, url: String = "http://h/media")
        -> MediaProbeResult
    {
        var data = ProbeBytes(prefix: Array(bytes.prefix(prefix)), totalLength: bytes.count)
        var result = MediaDurationProbe.probe(data, contentType: contentType, url: url)
        for _ in 0..<3 {
            guard case .needsBytes(let range) = result, range.lowerBound < bytes.count else { return result }
            data.add(Array(bytes[range.lowerBound...min(range.upperBound, bytes.count - 1)]), at: range.lowerBound)
            result = MediaDurationProbe.probe(data, contentType: contentType, url: url)
        }
        return result
    }
}

/// Each duration probe on real files made by ffmpeg (and a few hand-made headers ffmpeg does not write).
@Suite("Media duration probes", .enabled(if: ProbeMedia.available, "needs ffmpeg to make the media files (apt-get install ffmpeg)"))
struct MediaDurationProbeTests {
    func expectSeconds(_ result: MediaProbeResult, _ expected: Double, tolerance: Double = 0.15, _ what: String) {
        guard case .found(.seconds(let seconds)) = result else {
            Issue.record("\(what): \(result)")
            return
        }
        #expect(abs(seconds - expected) <= tolerance, "\(what): \(seconds) s, expected \(expected) s")
    }

    @Test func mp4WithMoovFirstAndAtTheEnd() async throws {
        let fast = try await ProbeMedia.file("fast.mp4", ProbeMedia.video + ["-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+faststart"])
        expectSeconds(ProbeMedia.probe(fast), 5, "faststart MP4")
        let late = try await ProbeMedia.file("late.mp4", ProbeMedia.video + ["-c:v", "libx264", "-preset", "ultrafast"])
        try #require(late.count > 64 * 1024, "the clip must be longer than the prefix")
        // The prefix alone ends inside mdat: the probe asks for the bytes where moov starts.
        guard case .needsBytes(let range) = MediaDurationProbe.probe(
            ProbeBytes(prefix: Array(late.prefix(64 * 1024)), totalLength: late.count), contentType: "video/mp4", url: "http://h/a.mp4")
        else {
            Issue.record("expected a second range request for moov")
            return
        }
        #expect(range.lowerBound > 64 * 1024 && range.upperBound < late.count)
        #expect(late[range.lowerBound + 4..<range.lowerBound + 8].elementsEqual(Array("moov".utf8)))
        expectSeconds(ProbeMedia.probe(late), 5, "MP4 with moov at the end")
        let mov = try await ProbeMedia.file("clip.mov", ProbeMedia.video + ["-c:v", "mjpeg", "-q:v", "20"])
        expectSeconds(ProbeMedia.probe(mov), 5, "QuickTime")
    }

    @Test func matroskaAndWebM() async throws {
        let mkv = try await ProbeMedia.file("clip.mkv", ProbeMedia.tone + ["-c:a", "flac"])
        expectSeconds(ProbeMedia.probe(mkv), 7.5, "Matroska")
        let webm = try await ProbeMedia.file("clip.webm", ProbeMedia.tone + ["-c:a", "libopus"])
        expectSeconds(ProbeMedia.probe(webm), 7.5, tolerance: 0.05, "WebM")
    }

    @Test func mp3WithXingAndConstantBitrate() async throws {
        let vbr = try await ProbeMedia.file("vbr.mp3", ProbeMedia.tone + ["-c:a", "libmp3lame", "-q:a", "4"])
        expectSeconds(ProbeMedia.probe(vbr, prefix: 4096), 7.5, tolerance: 0.1, "VBR MP3 (Xing)")
        let cbr = try await ProbeMedia.file("cbr.mp3", ProbeMedia.tone + ["-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0"])
        expectSeconds(ProbeMedia.probe(cbr, prefix: 4096), 7.5, tolerance: 0.15, "CBR MP3 (bitrate × length)")
        let tagged = try await ProbeMedia.file("tagged.mp3", ProbeMedia.tone + ["-c:a", "libmp3lame", "-b:a", "64k", "-metadata", "title=Castor", "-id3v2_version", "3"])
        expectSeconds(ProbeMedia.probe(tagged, prefix: 4096), 7.5, tolerance: 0.15, "MP3 after an ID3v2 tag")
    }

    @Test func mp3WithAVBRIHeader() {
        // ffmpeg does not write VBRI (Fraunhofer's encoder does): an MPEG-1 layer III frame at 44.1 kHz
        // with a VBRI header saying 100 frames → 100 × 1152 / 44100 s.
        var frame = [UInt8](repeating: 0, count: 417)
        frame[0...3] = [0xFF, 0xFB, 0x90, 0x00]
        frame[36..<40] = ArraySlice(Array("VBRI".utf8))
        frame[50..<54] = [0, 0, 0, 100]
        let bytes = frame + frame
        expectSeconds(MediaDurationProbe.probe(ProbeBytes(prefix: bytes, totalLength: nil), contentType: "audio/mpeg", url: "http://h/a.mp3"),
                      100 * 1152 / 44100, tolerance: 0.001, "VBRI")
    }

    @Test func aacInADTS() async throws {
        let aac = try await ProbeMedia.file("clip.aac", ProbeMedia.tone + ["-c:a", "aac", "-b:a", "96k"])
        expectSeconds(ProbeMedia.probe(aac, prefix: aac.count), 7.5, tolerance: 0.1, "ADTS, whole file")
        expectSeconds(ProbeMedia.probe(aac, prefix: 8192), 7.5, tolerance: 0.6, "ADTS, estimated from a prefix")
    }

    @Test func flacOggAndWAV() async throws {
        expectSeconds(ProbeMedia.probe(try await ProbeMedia.file("clip.flac", ProbeMedia.tone + ["-c:a", "flac"]), prefix: 4096), 7.5, tolerance: 0.01, "FLAC")
        expectSeconds(ProbeMedia.probe(try await ProbeMedia.file("vorbis.ogg", ProbeMedia.tone + ["-c:a", "libvorbis"]), prefix: 4096), 7.5, tolerance: 0.05, "Ogg Vorbis")
        expectSeconds(ProbeMedia.probe(try await ProbeMedia.file("clip.opus", ProbeMedia.tone + ["-c:a", "libopus"]), prefix: 4096), 7.5, tolerance: 0.05, "Ogg Opus")
        expectSeconds(ProbeMedia.probe(try await ProbeMedia.file("flac.oga", ProbeMedia.tone + ["-c:a", "flac", "-f", "ogg"]), prefix: 4096), 7.5, tolerance: 0.05, "Ogg FLAC")
        expectSeconds(ProbeMedia.probe(try await ProbeMedia.file("clip.wav", ProbeMedia.tone + ["-c:a", "pcm_s16le"]), prefix: 4096), 7.5, tolerance: 0.01, "WAV")
    }

    @Test func hlsPlaylists() async throws {
        _ = try await ProbeMedia.file("vod.m3u8", ProbeMedia.video + ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-hls_time", "1",
                                                               "-hls_list_size", "0", "-hls_playlist_type", "vod", "-f", "hls"])
        let playlist = Array(try Data(contentsOf: ProbeMedia.directory.appendingPathComponent("vod.m3u8")))
        expectSeconds(ProbeMedia.probe(playlist, contentType: "application/vnd.apple.mpegurl"), 5, tolerance: 0.05, "HLS VOD")
        // A long playlist arrives in pieces: the probe asks for the rest.
        expectSeconds(ProbeMedia.probe(playlist, prefix: 64, contentType: "application/x-mpegurl"), 5, tolerance: 0.05, "HLS VOD in pieces")
        let live = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2.0,\na.ts\n#EXTINF:2.0,\nb.ts\n".utf8)
        #expect(ProbeMedia.probe(live) == .found(.live))
        let master = Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n".utf8)
        #expect(ProbeMedia.probe(master) == .followPlaylist("low/index.m3u8"))
        #expect(HLSPlaylistProbe.resolve("low/index.m3u8", against: "http://h:8/v/master.m3u8?x=1") == "http://h:8/v/low/index.m3u8")
        #expect(HLSPlaylistProbe.resolve("/abs.m3u8", against: "http://h:8/v/master.m3u8") == "http://h:8/abs.m3u8")
        #expect(HLSPlaylistProbe.resolve("../hls/seg0.ts?t=1", against: "http://h:8/a/live/live.m3u8") == "http://h:8/a/hls/seg0.ts?t=1")
        #expect(HLSPlaylistProbe.resolve("./x/../y.ts", against: "http://h:8") == "http://h:8/y.ts")
    }

    @Test func dashManifests() async throws {
        _ = try await ProbeMedia.file("clip.mpd", ProbeMedia.video + ["-c:v", "libx264", "-preset", "ultrafast", "-f", "dash"])
        let manifest = Array(try Data(contentsOf: ProbeMedia.directory.appendingPathComponent("clip.mpd")))
        expectSeconds(ProbeMedia.probe(manifest, contentType: "application/dash+xml"), 5, tolerance: 0.1, "DASH static")
        let dynamic = Array(#"<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" minimumUpdatePeriod="PT2S"><Period id="0"/></MPD>"#.utf8)
        #expect(ProbeMedia.probe(dynamic) == .found(.live))
        let periods = Array(#"<MPD type="static"><Period duration="PT1M"/><Period duration="PT30.5S"/></MPD>"#.utf8)
        expectSeconds(ProbeMedia.probe(periods), 90.5, tolerance: 0.001, "DASH periods")
        #expect(DASHManifestProbe.isoSeconds("P1DT2H3M4.5S") == 93_784.5)
        #expect(DASHManifestProbe.isoSeconds("PT") == nil && DASHManifestProbe.isoSeconds("1H") == nil)
    }

    @Test func unknownAndTruncatedInputStayUnknown() async throws {
        #expect(ProbeMedia.probe(Array("hello, world".utf8)) == .unknown)
        #expect(ProbeMedia.probe([]) == .unknown)
        let fast = try await ProbeMedia.file("fast.mp4", ProbeMedia.video + ["-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+faststart"])
        // Without a total size and with the file cut short, the probe never asks for bytes twice.
        var data = ProbeBytes(prefix: Array(fast.prefix(20)), totalLength: nil)
        if case .needsBytes(let range) = MediaDurationProbe.probe(data, contentType: nil, url: "http://h/x") {
            data.add(Array(fast[range.lowerBound..<min(range.lowerBound + 4, fast.count)]), at: range.lowerBound)
            #expect(MediaDurationProbe.probe(data, contentType: nil, url: "http://h/x") == .unknown)
        }
    }
}
