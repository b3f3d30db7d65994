import CastDeviceProfiles
import CastJSON
import Foundation
import Testing
@testable import CastEmulator

/// The receiver's codec probes against ffprobe (the field's tool, which we did not write) on the
/// same ffmpeg-made files: every stream ffprobe finds, the probe finds with the same codec, profile,
/// level, size, bit depth, channels and rate (where the probe reads them).
@Suite("Codec probes agree with ffprobe", .enabled(if: ProbeMedia.available, "needs ffmpeg and ffprobe (apt-get install ffmpeg)"))
struct CodecProbeTests {
    /// Inspects a fixture the way the fetcher does: its first 64 KiB (a 206 with the total size),
    /// then each follow-up range or resource served from the fixture directory.
    static func inspect(_ fixture: CodecFixture) async throws -> (ProbedMedia, requests: Int) {
        let library = CodecFixtures.library
        let file = try await library.file(fixture)
        let root = library.directory
        let bytes = Array(try Data(contentsOf: file))
        let url = "http://fixtures/" + fixture.path
        func response(_ bytes: [UInt8], _ range: ClosedRange<Int>) -> MediaInspection.Response {
            let end = min(bytes.count, range.upperBound + 1)
            let body = range.lowerBound < end ? Array(bytes[range.lowerBound..<end]) : []
            return MediaInspection.Response(statusCode: 206, contentType: nil, body: body, totalLength: bytes.count, acceptsRanges: true)
        }
        var inspection = MediaInspection(
            url: url, first: response(bytes, 0...65_535), declaredContentType: nil, wantsDuration: true, wantsCodecs: true)
        var requests = 0
        while true {
            switch inspection.next() {
            case .finished(let probed):
                return (probed, requests)
            case .fetch(let target, let range):
                requests += 1
                let path = String(target.dropFirst("http://fixtures/".count))
                let other = Array((try? Data(contentsOf: root.appendingPathComponent(path))) ?? Data())
                inspection.received(other.isEmpty ? nil : response(other, range), for: target, range: range)
            }
        }
    }

    static func streams(_ report: JSONValue, _ kind: String) -> [JSONValue] {
        (report["streams"]?.arrayValue ?? []).filter {
            $0["codec_type"]?.stringValue == kind && $0["disposition"]?["attached_pic"]?.intValue != 1
        }
    }

    /// ffprobe's level, read as each codec codes it.
    static func level(_ stream: JSONValue, codec: MediaCodec) -> CodecLevel? {
        guard let value = stream["level"]?.intValue, value >= 0 else { return nil }
        switch codec {
        case .h264: return CodecLevel(h264LevelIDC: value)
        case .hevc: return CodecLevel(hevcLevelIDC: value)
        case .av1: return CodecLevel(av1SequenceLevelIndex: value)
        default: return nil
        }
    }

    @Test("Each fixture", arguments: CodecFixtures.all)
    func agreesWithFFprobe(fixture: CodecFixture) async throws {
        let report = try await CodecFixtures.library.ffprobe(fixture)
        let (probed, requests) = try await Self.inspect(fixture)
        #expect(requests <= MediaFetcher.maximumProbeRequests)
        let media = try #require(probed.alternatives.first ?? probed.description, "no description of \(fixture)")
        guard fixture.probesStreams else {
            #expect(media.video.isEmpty && media.audio.isEmpty)
            return
        }
        if let found = fixture.found { #expect(media.description.contains(found), "\(media) should name \(found)") }
        let videos = Self.streams(report, "video")
        let audios = Self.streams(report, "audio")
        #expect(media.video.map(\.codec.name) == videos.compactMap { $0["codec_name"]?.stringValue }, "\(fixture): \(media)")
        #expect(media.audio.map(\.codec.name) == audios.compactMap { $0["codec_name"]?.stringValue }, "\(fixture): \(media)")
        let adaptive = media.container == .hls || media.container == .dash
        for (ours, theirs) in zip(media.video, videos) {
            let profile = theirs["profile"]?.stringValue.flatMap { $0 == "unknown" ? nil : CodecProfile($0) }
            if [.h264, .hevc, .vp9, .av1].contains(ours.codec) {
                #expect(ours.profile == profile, "\(fixture) profile: \(ours)")
            }
            if let level = Self.level(theirs, codec: ours.codec), ours.level != nil || !adaptive {
                #expect(ours.level == level, "\(fixture) level: \(ours)")
            }
            if ours.width != nil || !adaptive {
                #expect(ours.width == theirs["width"]?.intValue && ours.height == theirs["height"]?.intValue, "\(fixture) size: \(ours)")
            }
            if let depth = ours.bitDepth, let format = theirs["pix_fmt"]?.stringValue {
                #expect(depth == (format.contains("10") ? 10 : format.contains("12") ? 12 : 8), "\(fixture) depth: \(ours) \(format)")
            }
            if let rate = ours.frameRate, let text = theirs["r_frame_rate"]?.stringValue {
                let parts = text.split(separator: "/").compactMap { Double($0) }
                if parts.count == 2, parts[1] > 0 { #expect(abs(rate - parts[0] / parts[1]) < 0.01, "\(fixture) rate: \(ours)") }
            }
        }
        for (ours, theirs) in zip(media.audio, audios) {
            // In a transport stream the profile is in the first ADTS frame, which may lie past the fetched prefix.
            if ours.codec == .aac, let profile = theirs["profile"]?.stringValue, ours.profile != nil || media.container != .mpegts {
                #expect(ours.profile == CodecProfile(profile), "\(fixture): \(ours)")
            }
            if let channels = ours.channels { #expect(channels == theirs["channels"]?.intValue, "\(fixture) channels: \(ours)") }
            if let rate = ours.sampleRate { #expect(String(rate) == theirs["sample_rate"]?.stringValue, "\(fixture) rate: \(ours)") }
        }
        let subtitles = Self.streams(report, "subtitle").compactMap { $0["codec_name"]?.stringValue }
        if !adaptive { #expect(media.subtitles.map(\.codec.name) == subtitles, "\(fixture): \(media.subtitles)") }
    }
}
