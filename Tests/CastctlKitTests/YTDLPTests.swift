import CastConversion
import CastDeviceProfiles
import CastMedia
import Castor
@testable import CastctlKit
import Foundation
import Synchronization
import Testing

/// yt-dlp's real reports (YTDLP/README.md says how they were captured) read, chosen from and turned into assets.
@Suite struct YTDLPTests {
    static func report(_ name: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("YTDLP")
        return [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    @Test func aPageWithOneVideoResolvesToItsClipAndWebVTTSubtitles() throws {
        let info = try YTDLPInfo(json: Self.report("html5-video.json"))
        #expect(info.kind == .video && info.title == "A test clip (1)")
        #expect(info.formats.count == 1 && info.formats[0].url == "http://127.0.0.1:18765/clip.mp4")
        #expect(info.formats[0].hasVideo == nil && info.formats[0].hasAudio == nil, "codecs unknown: vcodec null, no acodec")
        #expect(info.subtitles == [YTDLPInfo.Subtitle(language: "en", url: "http://127.0.0.1:18765/subs.vtt", ext: "vtt")])
        let resolution = try YTDLPResolver.resolution(of: info, profile: .chromecast3, userFormat: false)
        #expect(resolution.assets.count == 1)
        let media = resolution.assets[0].mediaInformation
        #expect(media.contentId == "http://127.0.0.1:18765/clip.mp4" && media.contentType == "video/mp4")
        #expect(media.metadata?.title == "A test clip (1)")
        let track = try #require(media.tracks?.first)
        #expect(media.tracks?.count == 1)
        #expect(track.trackId == 1 && track.type == .text && track.subtype == .subtitles && track.contentType == "text/vtt")
        #expect(track.contentId == "http://127.0.0.1:18765/subs.vtt" && track.language == "en")
    }

    @Test func aPageWithTwoVideosIsAPlaylistQueuedInOrder() throws {
        let info = try YTDLPInfo(json: Self.report("html5-two-videos.json"))
        #expect(info.kind == .playlist && info.entries.count == 2)
        let resolution = try YTDLPResolver.resolution(of: info, profile: .chromecast3, userFormat: false)
        #expect(resolution.assets.map(\.mediaInformation.contentId)
            == ["http://127.0.0.1:18765/clip.mp4", "http://127.0.0.1:18765/clip2.webm"])
        #expect(resolution.assets.map(\.mediaInformation.contentType) == ["video/mp4", "video/webm"])
        #expect(resolution.assets[0].tracks?.count == 1 && resolution.assets[1].tracks == nil)
    }

    /// The HLS master: a muxed 360p H.264/AAC variant, video-only 1080p H.264 and 2160p HEVC, one audio rendition.
    @Test func theProgressiveFormatTheProfileDecodesWins() throws {
        let info = try YTDLPInfo(json: Self.report("hls-master.json"))
        #expect(info.formats.map(\.id) == ["aud-English", "800", "5000", "9000"])
        #expect(info.selected.map(\.id) == ["9000", "aud-English"], "yt-dlp's own choice merges 2160p video with the audio")
        let choice = try YTDLPFormatChoice.choose(for: info, profile: .chromecast3, userFormat: false)
        #expect(choice == .single(info.formats[1]))
        let (asset, inputs) = try YTDLPResolver.asset(of: info, profile: .ultra, userFormat: false) { _ in }
        #expect(inputs == nil)
        #expect(asset.mediaInformation.contentId == "http://127.0.0.1:18765/muxed360.m3u8")
        #expect(asset.mediaInformation.contentType == "application/x-mpegURL")
    }

    @Test func onlySeparateVideoAndAudioGoToTheConversionAsTwoInputs() throws {
        var info = try YTDLPInfo(json: Self.report("hls-master.json"))
        info.formats.removeAll { $0.id == "800" }
        // chromecast-1 (1080p H.264 at most): the 1080p H.264 video (copied) and the AAC audio; HEVC 2160p would be converted.
        let choice = try YTDLPFormatChoice.choose(for: info, profile: .chromecast1, userFormat: false)
        #expect(choice == .separate(video: info.formats[1], audio: info.formats[0]))
        let lines = Lines()
        let resolution = try YTDLPResolver.resolution(of: info, profile: .chromecast1, userFormat: false) { lines.add($0) }
        let inputs = try #require(resolution.conversionInputs[0])
        #expect(inputs.map(\.location) == [info.formats[1].url, info.formats[0].url])
        #expect(inputs.allSatisfy(\.isRemote) && inputs.allSatisfy { $0.representation == nil })
        #expect(lines.all.contains { $0.contains("5000") && $0.contains("aud-English") && $0.contains("(copied)") }, "\(lines.all)")
        #expect(resolution.assets[0].mediaInformation.metadata?.title == info.title)
    }

    /// The page's DASH presentation: a video-only and an audio-only representation, read by ffmpeg from the manifest.
    @Test func aDASHPageResolvesToTheManifestsTwoRepresentationsWithYTDLPsHeaders() throws {
        let info = try YTDLPInfo(json: Self.report("dash-page.json"))
        #expect(info.formats.map(\.id) == ["1", "0"] && info.formats.allSatisfy { $0.transport == "http_dash_segments" })
        #expect(info.formats[1].hasVideo == true && info.formats[1].hasAudio == false && info.formats[0].hasVideo == false)
        let resolution = try YTDLPResolver.resolution(of: info, profile: .chromecast3, userFormat: false)
        let inputs = try #require(resolution.conversionInputs[0])
        #expect(inputs.map(\.location) == ["http://127.0.0.1:18731/site2/clip.mpd", "http://127.0.0.1:18731/site2/clip.mpd"])
        #expect(inputs.map(\.representation) == ["0", "1"])
        #expect(inputs[0].headers["Referer"] == "http://127.0.0.1:18731/site2/page.html")
        #expect(inputs[0].inputOptions.contains("-user_agent") && inputs[0].inputOptions.contains("-headers"))
    }

    @Test func aFormatOfTheUsersIsTakenAsYTDLPSelectedIt() throws {
        let info = try YTDLPInfo(json: Self.report("hls-master.json"))
        let choice = try YTDLPFormatChoice.choose(for: info, profile: .chromecast1, userFormat: true)
        #expect(choice == .separate(video: info.formats[3], audio: info.formats[0]))
        let single = try YTDLPInfo(json: Self.report("html5-video.json"))
        #expect(try YTDLPFormatChoice.choose(for: single, profile: .chromecast1, userFormat: true) == .single(single.formats[0]))
    }

    @Test func aFormatTheProfileRefusesIsConvertedAndOneNobodyCanReadIsNamed() throws {
        let hevc = YTDLPInfo.Format(id: "hevc4k", url: "https://cdn.example/a.mp4", ext: "mp4", transport: "https", videoCodec: "hvc1.2.4.L153.B0",
                                    audioCodec: "mp4a.40.2", width: 3840, height: 2160)
        let info = YTDLPInfo.video(formats: [hevc])
        #expect(try YTDLPFormatChoice.choose(for: info, profile: .chromecast3, userFormat: false) == .converted(hevc))
        let (_, inputs) = try YTDLPResolver.asset(of: info, profile: .chromecast3, userFormat: false) { _ in }
        #expect(inputs?.map(\.location) == [hevc.url])
        #expect(try YTDLPFormatChoice.choose(for: info, profile: .ultra, userFormat: false) == .single(hevc))
        var rtmp = hevc
        rtmp.transport = "rtmp"
        let unreadable = YTDLPInfo.video(formats: [rtmp])
        let error = #expect(throws: ConversionError.self) { try YTDLPFormatChoice.choose(for: unreadable, profile: .chromecast3, userFormat: false) }
        #expect(error?.code == .noPlayableStream && error?.message.contains("rtmp") == true, "\(error?.message ?? "")")
        let castctl = #expect(throws: CastctlError.self) {
            try YTDLPResolver.asset(of: unreadable, profile: .chromecast3, userFormat: false) { _ in }
        }
        #expect(castctl?.code == .noPlayableFormat)
    }

    @Test func theHighestResolutionThatPlaysAndOnlyFetchableTransports() throws {
        let info = YTDLPInfo.video(formats: [
            .init(id: "18", url: "https://cdn.example/360.mp4", ext: "mp4", transport: "https", videoCodec: "avc1.42001E", audioCodec: "mp4a.40.2",
                  width: 640, height: 360),
            .init(id: "22", url: "https://cdn.example/720.mp4", ext: "mp4", transport: "https", videoCodec: "avc1.64001F", audioCodec: "mp4a.40.2",
                  width: 1280, height: 720),
            .init(id: "dash", url: "https://cdn.example/1080.mpd", ext: "mp4", transport: "http_dash_segments", videoCodec: "avc1.640028",
                  audioCodec: "mp4a.40.2", width: 1920, height: 1080),
            .init(id: "140", url: "https://cdn.example/a.m4a", ext: "m4a", transport: "https", videoCodec: "none", audioCodec: "mp4a.40.2"),
        ])
        #expect(try YTDLPFormatChoice.choose(for: info, profile: .chromecast3, userFormat: false) == .single(info.formats[1]))
        // A device without a screen gets the audio.
        let audio = try #require(CastDeviceProfile.presets.first { !$0.hasVideoOutput })
        #expect(try YTDLPFormatChoice.choose(for: info, profile: audio, userFormat: false) == .single(info.formats[3]))
        #expect(YTDLPFormatChoice.mimeType(of: info.formats[3]) == "audio/mp4")
        let none = YTDLPInfo.video(formats: [info.formats[2]])
        let error = #expect(throws: ConversionError.self) { try YTDLPFormatChoice.choose(for: none, profile: .chromecast3, userFormat: false) }
        #expect(error?.code == .noPlayableStream)
        let empty = #expect(throws: CastctlError.self) { try YTDLPResolver.asset(of: .video(formats: []), profile: .chromecast3, userFormat: false) { _ in } }
        #expect(empty?.code == .noMedia)
    }

    @Test func subtitlesBecomeOneWebVTTTrackALanguage() {
        var info = YTDLPInfo.video(formats: [])
        info.subtitles = [
            .init(language: "de", url: "https://s.example/de.srv3", ext: "srv3"),
            .init(language: "de", url: "https://s.example/de.vtt", ext: "vtt", name: "Deutsch"),
            .init(language: "en", url: "https://s.example/en.vtt", ext: "vtt"),
            .init(language: "en", url: "https://s.example/en2.vtt", ext: "vtt"),
            .init(language: "fr", url: "https://s.example/fr.ttml", ext: "ttml"),
        ]
        let tracks = YTDLPResolver.textTracks(of: info)
        #expect(tracks.map(\.contentId) == ["https://s.example/de.vtt", "https://s.example/en.vtt"])
        #expect(tracks.map(\.trackId) == [1, 2] && tracks.map(\.name) == ["Deutsch", "en"])
    }

    @Test func malformedAndOversizedReportsAreTypedErrors() {
        for text in ["", "[]", "{\"_type\": \"url\", \"url\": \"https://x\"}", "{\"formats\": [", "nul"] {
            let error = #expect(throws: ConversionError.self, "\(text)") { try YTDLPInfo(json: Array(text.utf8)) }
            #expect(error?.code == .malformedReport)
        }
        let large = #expect(throws: ConversionError.self) { try YTDLPInfo(json: [UInt8](repeating: 0x20, count: YTDLPInfo.maximumBytes + 1)) }
        #expect(large?.code == .tooLarge)
        // Fields of the wrong type, other schemes and nested playlists are left out, not errors.
        let odd = #"{"_type":"playlist","entries":[null,{"_type":"playlist","entries":[]},{"formats":[{"url":"rtmp://x/y","format_id":"r"},{"url":42},{"url":"https://ok.example/v.mp4","width":"wide","format_id":"ok"}],"subtitles":{"en":"nope"}}]}"#
        let info = try? YTDLPInfo(json: Array(odd.utf8))
        #expect(info?.entries.count == 1)
        #expect(info?.entries.first?.formats.map(\.id) == ["ok"] && info?.entries.first?.formats.first?.width == nil)
    }

    @Test func aPageIsHTMLByItsContentTypeOrAPathWithoutAMediaExtension() {
        let page = URL(string: "https://video.example/watch?v=abc")!
        #expect(YTDLPResolver.isPage(url: page, status: 200, contentType: "text/html; charset=utf-8"))
        #expect(YTDLPResolver.isPage(url: page, status: 200, contentType: "application/xhtml+xml"))
        #expect(!YTDLPResolver.isPage(url: page, status: 200, contentType: "video/mp4"))
        #expect(!YTDLPResolver.isPage(url: page, status: 200, contentType: "application/x-mpegURL"))
        #expect(YTDLPResolver.isPage(url: page, status: 405, contentType: nil), "HEAD refused: no media extension")
        #expect(!YTDLPResolver.isPage(url: URL(string: "https://cdn.example/a.MP4")!, status: 405, contentType: nil))
        #expect(!YTDLPResolver.isPage(url: page, status: nil, contentType: nil), "no answer: loaded as media, as before")
        #expect(YTDLPResolver.arguments(for: page, format: "18") == [
            "-J", "--no-warnings", "--no-progress", "--playlist-items", "1:50", "--socket-timeout", "20", "-f", "18", "--", page.absoluteString,
        ])
    }

    @Test func yt_dlpMissingIsOneLineAndATypedError() async throws {
        // The page step directly (the HEAD step is the interop test's, against a real server).
        let resolver = YTDLPResolver(program: "castctl-no-such-yt-dlp")
        let error = await #expect(throws: CastctlError.self) {
            try await resolver.resolvePage(URL(string: "http://127.0.0.1:9/page.html")!, in: MediaURLContext(timeout: .seconds(5)))
        }
        #expect(error?.code == .toolMissing && error?.message == YTDLPResolver.notInstalled)
    }
}

/// Progress lines, collected.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

extension YTDLPInfo {
    /// A video with these formats and nothing else.
    static func video(formats: [Format]) -> YTDLPInfo {
        var info = try! YTDLPInfo(json: Array(#"{"title":"t"}"#.utf8))
        info.formats = formats
        return info
    }
}
