@testable import CastConversion
import CastDeviceProfiles
import Testing

/// The format picker's decisions, table by table: a single format that plays, else the best video-only and
/// audio-only pair for the conversion (copyable first), else a typed error. Pure: no yt-dlp, no ffmpeg.
@Suite struct YTDLPFormatChoiceTests {
    typealias Format = YTDLPInfo.Format

    /// YouTube-like formats: video-only H.264 720p and 1080p, VP9 1080p and 2160p; audio-only AAC and Opus.
    static let h264720 = Format(id: "136", url: "https://cdn.example/136.mp4", ext: "mp4", transport: "https", videoCodec: "avc1.4d401f",
                                audioCodec: "none", width: 1280, height: 720, bitrate: 1500)
    static let h2641080 = Format(id: "137", url: "https://cdn.example/137.mp4", ext: "mp4", transport: "https", videoCodec: "avc1.640028",
                                 audioCodec: "none", width: 1920, height: 1080, bitrate: 4000)
    static let vp91080 = Format(id: "248", url: "https://cdn.example/248.webm", ext: "webm", transport: "https", videoCodec: "vp9",
                                audioCodec: "none", width: 1920, height: 1080, bitrate: 2500)
    static let vp92160 = Format(id: "313", url: "https://cdn.example/313.webm", ext: "webm", transport: "https", videoCodec: "vp9",
                                audioCodec: "none", width: 3840, height: 2160, bitrate: 15000)
    static let aac = Format(id: "140", url: "https://cdn.example/140.m4a", ext: "m4a", transport: "https", videoCodec: "none",
                            audioCodec: "mp4a.40.2", bitrate: 129, httpHeaders: ["User-Agent": "UA/1", "Referer": "https://site.example/watch"])
    static let opus = Format(id: "251", url: "https://cdn.example/251.webm", ext: "webm", transport: "https", videoCodec: "none",
                             audioCodec: "opus", bitrate: 140)
    static let muxed360 = Format(id: "18", url: "https://cdn.example/18.mp4", ext: "mp4", transport: "https", videoCodec: "avc1.42001E",
                                 audioCodec: "mp4a.40.2", width: 640, height: 360, bitrate: 600)
    static let muxedHEVC = Format(id: "hevc", url: "https://cdn.example/hevc.mp4", ext: "mp4", transport: "https",
                                  videoCodec: "hvc1.2.4.L153.B0", audioCodec: "mp4a.40.2", width: 3840, height: 2160, bitrate: 20000)
    static let muxed360HEVC = Format(id: "18h", url: "https://cdn.example/18h.mp4", ext: "mp4", transport: "https", videoCodec: "hvc1.1.6.L93.B0",
                                     audioCodec: "mp4a.40.2", width: 640, height: 360, bitrate: 500)
    static let muxedDASH = Format(id: "dash-muxed", url: "https://cdn.example/m.mpd", ext: "mp4", transport: "http_dash_segments",
                                  videoCodec: "avc1.640028", audioCodec: "mp4a.40.2", width: 1920, height: 1080, manifestURL: "https://cdn.example/m.mpd")
    static let hevc2160 = Format(id: "hevc-v", url: "https://cdn.example/hv.mp4", ext: "mp4", transport: "https", videoCodec: "hvc1.2.4.L153.B0",
                                 audioCodec: "none", width: 3840, height: 2160, bitrate: 12000)
    static let av11080 = Format(id: "399", url: "https://cdn.example/399.mp4", ext: "mp4", transport: "https", videoCodec: "av01.0.08M.08",
                                audioCodec: "none", width: 1920, height: 1080, bitrate: 2000)
    static let rtmpVideo = Format(id: "rtmp", url: "https://cdn.example/live", transport: "rtmp", videoCodec: "avc1.640028", audioCodec: "none",
                                  width: 1920, height: 1080)
    static let dashNoManifest = Format(id: "d", url: "https://cdn.example/x.mpd", ext: "m4a", transport: "http_dash_segments", videoCodec: "none",
                                       audioCodec: "mp4a.40.2")

    static func video(_ formats: [Format]) -> YTDLPInfo {
        var info = try! YTDLPInfo(json: Array(#"{"title":"t"}"#.utf8))
        info.formats = formats
        return info
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var formats: [Format]
        var profile: CastDeviceProfile
        /// The ids chosen: one for a single format, video then audio for a pair; empty for an error.
        var expected: [String]
        var testDescription: String { name }
    }

    static let youtube = [h264720, h2641080, vp91080, vp92160, aac, opus]

    static let rows: [Row] = [
        Row(name: "a muxed format that plays wins over pairs", formats: [muxed360] + youtube, profile: .chromecast3, expected: ["18"]),
        Row(name: "chromecast-3: 1080p H.264 copied; Opus (higher rate) copied", formats: youtube, profile: .chromecast3, expected: ["137", "251"]),
        Row(name: "ultra: 2160p VP9 copied", formats: youtube, profile: .ultra, expected: ["313", "251"]),
        Row(name: "nest-hub (720p): the 720p H.264 copied, not a 1080p converted", formats: youtube, profile: .nestHub,
            expected: ["136", "251"]),
        Row(name: "a muxed HEVC the device refuses: the pair instead", formats: [muxedHEVC, h2641080, aac], profile: .chromecast3,
            expected: ["137", "140"]),
        Row(name: "nothing copyable: the 1080p AV1 within the device is converted, not 2160p HEVC", formats: [hevc2160, av11080, aac],
            profile: .chromecast3, expected: ["399", "140"]),
        Row(name: "nothing copyable nor within the device (720p): the smallest picture", formats: [hevc2160, vp91080, aac], profile: .nestHub,
            expected: ["248", "140"]),
        Row(name: "AAC copied before an audio codec to convert", formats: [h2641080, aac,
            Format(id: "ac4", url: "https://cdn.example/ac4.mp4", ext: "mp4", transport: "https", videoCodec: "none", audioCodec: "ac-4", bitrate: 640)],
            profile: .chromecast3, expected: ["137", "140"]),
        Row(name: "a device without a screen gets an audio-only format as it is", formats: youtube, profile: .audioOnly, expected: ["251"]),
        Row(name: "only a muxed HEVC the device refuses: converted whole", formats: [muxedHEVC, muxed360HEVC], profile: .chromecast3,
            expected: ["convert 18h"]),
        Row(name: "a muxed HEVC and audio alone, no video-only format: the muxed one converted", formats: [muxedHEVC, aac], profile: .chromecast3,
            expected: ["convert hevc"]),
        Row(name: "a muxed format fetched as DASH fragments: converted from its manifest", formats: [muxedDASH], profile: .chromecast3,
            expected: ["convert dash-muxed"]),
        Row(name: "video ffmpeg cannot read (RTMP), audio without its manifest: an error", formats: [rtmpVideo, dashNoManifest],
            profile: .chromecast3, expected: []),
        Row(name: "no format at all: an error", formats: [], profile: .chromecast3, expected: []),
    ]

    @Test(arguments: rows)
    func decides(_ row: Row) throws {
        let info = Self.video(row.formats)
        guard !row.expected.isEmpty else {
            let error = #expect(throws: ConversionError.self) { try YTDLPFormatChoice.choose(for: info, profile: row.profile, userFormat: false) }
            #expect(error?.code == .noPlayableStream)
            return
        }
        let choice = try YTDLPFormatChoice.choose(for: info, profile: row.profile, userFormat: false)
        switch choice {
        case .single(let format): #expect([format.id] == row.expected)
        case .separate(let video, let audio): #expect([video.id, audio.id] == row.expected)
        case .converted(let format): #expect(["convert " + format.id] == row.expected)
        }
    }

    @Test func copiedOrConvertedIsJudgedByTheProfileAndWhatSegmentsCarry() {
        #expect(YTDLPFormatChoice.conversion(ofVideo: Self.h2641080, profile: .chromecast3) == .copied)
        #expect(YTDLPFormatChoice.conversion(ofVideo: Self.vp92160, profile: .chromecast3) == .converted)
        #expect(YTDLPFormatChoice.conversion(ofVideo: Self.vp92160, profile: .ultra) == .copied)
        let vp8 = Format(id: "vp8", url: "https://cdn.example/v.webm", ext: "webm", videoCodec: "vp8", audioCodec: "none", width: 640, height: 360)
        #expect(YTDLPFormatChoice.conversion(ofVideo: vp8, profile: .chromecast3) == .converted, "HLS segments do not carry VP8")
        #expect(YTDLPFormatChoice.conversion(ofAudio: Self.aac, profile: .chromecast3) == .copied)
        let vorbis = Format(id: "v", url: "https://cdn.example/a.webm", ext: "webm", videoCodec: "none", audioCodec: "vorbis")
        #expect(YTDLPFormatChoice.conversion(ofAudio: vorbis, profile: .chromecast3) == .converted, "HLS segments do not carry Vorbis")
    }

    @Test func thePairOfTheUsersIsTakenAsYTDLPSelectedIt() throws {
        var info = Self.video(Self.youtube)
        info.selected = [Self.h2641080, Self.aac]
        #expect(try YTDLPFormatChoice.choose(for: info, profile: .chromecast1, userFormat: true) == .separate(video: Self.h2641080, audio: Self.aac))
        info.selected = [Self.rtmpVideo, Self.aac]
        #expect(throws: ConversionError.self) { try YTDLPFormatChoice.choose(for: info, profile: .chromecast1, userFormat: true) }
    }

    @Test func inputsCarryTheHeadersAndADASHRepresentation() throws {
        let input = try #require(YTDLPFormatChoice.input(for: Self.aac))
        #expect(input.location == Self.aac.url && input.representation == nil && input.isRemote)
        #expect(input.inputOptions == ["-rw_timeout", "20000000", "-user_agent", "UA/1", "-headers", "Referer: https://site.example/watch\r\n"])
        let dash = Format(id: "dash-v1", url: "https://cdn.example/m.mpd", ext: "mp4", transport: "http_dash_segments", videoCodec: "avc1.64001f",
                          audioCodec: "none", manifestURL: "https://cdn.example/m.mpd", httpHeaders: ["X-Bad\r\nInjected": "1", "Cookie": "a=b\r\nX: y"])
        let dashInput = try #require(YTDLPFormatChoice.input(for: dash))
        #expect(dashInput.location == "https://cdn.example/m.mpd" && dashInput.representation == "dash-v1")
        #expect(dashInput.isRepresentation("v1") && !dashInput.isRepresentation("1") && !dashInput.isRepresentation(nil))
        #expect(dashInput.inputOptions == ["-rw_timeout", "20000000"], "header names and values with line breaks are left out")
        #expect(MediaInput(path: "/m.mkv").inputOptions.isEmpty)
    }
}
