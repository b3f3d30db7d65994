import CastConversion
import CastDeviceProfiles
import Testing

/// The pure readers and writers: ffprobe's report, ffmpeg's progress, fragmented-MP4 segments, the playlists,
/// ffmpeg's command lines, language tags.
@Suite("Conversion: readers and writers")
struct ParsingTests {
    static let report = """
        {"streams": [
          {"index": 0, "codec_name": "hevc", "profile": "Main 10", "codec_type": "video", "width": 3840, "height": 2160,
           "pix_fmt": "yuv420p10le", "level": 153, "has_b_frames": 2, "avg_frame_rate": "24000/1001", "r_frame_rate": "24000/1001",
           "disposition": {"default": 1, "forced": 0, "attached_pic": 0}, "tags": {"DURATION": "01:00:00.000"}},
          {"index": 1, "codec_name": "eac3", "codec_type": "audio", "sample_rate": "48000", "channels": 6, "bit_rate": "640000",
           "disposition": {"default": 1}, "tags": {"language": "eng", "title": "Surround"}},
          {"index": 2, "codec_name": "aac", "profile": "HE-AAC", "codec_type": "audio", "sample_rate": "44100", "channels": 2,
           "tags": {"LANGUAGE": "fre"}},
          {"index": 3, "codec_name": "subrip", "codec_type": "subtitle", "disposition": {"default": 0, "forced": 1},
           "tags": {"language": "ger", "title": "Forced"}},
          {"index": 4, "codec_name": "hdmv_pgs_subtitle", "codec_type": "subtitle", "tags": {"language": "und"}},
          {"index": 5, "codec_name": "mjpeg", "codec_type": "video", "width": 600, "height": 600, "disposition": {"attached_pic": 1}},
          {"index": 6, "codec_name": "ttf", "codec_type": "attachment"},
          {"index": 7, "codec_name": "flac", "codec_type": "audio", "sample_rate": "96000", "channels": 2, "bits_per_raw_sample": "24"}
        ],
        "format": {"format_name": "matroska,webm", "duration": "3600.041000", "start_time": "0.000000", "bit_rate": "25000000"}}
        """

    @Test("ffprobe's report: every stream with index, codec, profile, level, size, rate, depth, language, title and dispositions")
    func ffprobeReport() throws {
        let media = try ProbedMedia(ffprobeJSON: Array(Self.report.utf8), path: "/m.mkv")
        #expect(media.duration == 3600.041 && media.startTime == 0 && media.bitRate == 25_000_000)
        #expect(media.media.container == .matroska && media.streams.count == 8)
        let video = try #require(media.stream(index: 0))
        #expect(video.codec == .hevc && video.profile == .main10 && video.level == CodecLevel(5, 1))
        #expect(video.width == 3840 && video.height == 2160 && video.bitDepth == 10 && video.hasReorderedFrames && video.isDefault)
        #expect(abs((video.frameRate ?? 0) - 23.976) < 0.001)
        let surround = try #require(media.stream(index: 1))
        #expect(surround.language == "eng" && surround.title == "Surround" && surround.channels == 6 && surround.bitRate == 640_000)
        #expect(media.stream(index: 2)?.language == "fre" && media.stream(index: 2)?.profile == .heAAC)
        let forced = try #require(media.stream(index: 3))
        #expect(forced.isForced && !forced.isDefault && forced.isTextSubtitle && forced.title == "Forced")
        #expect(media.stream(index: 4)?.language == nil && media.stream(index: 4)?.isImageSubtitle == true)
        #expect(media.stream(index: 5)?.isAttachedPicture == true && media.stream(index: 6)?.kind == .other)
        #expect(media.stream(index: 7)?.bitDepth == 24)
        #expect(media.videoStreams.map(\.index) == [0] && media.audioStreams.map(\.index) == [1, 2, 7])
        #expect(media.media.motionVideo.count == 1 && media.media.subtitles.count == 2)
        #expect(media.stream(index: 3)?.description == "#3 subrip ger \"Forced\" (forced)")
    }

    @Test("ffprobe's error object, not JSON, no format, absurd numbers")
    func badReports() throws {
        #expect(throws: ConversionError.self) { try ProbedMedia(ffprobeJSON: Array(#"{"error": {"code": -1094995529, "string": "Invalid data found when processing input"}}"#.utf8)) }
        #expect(throws: ConversionError.self) { try ProbedMedia(ffprobeJSON: Array("not json".utf8)) }
        #expect(throws: ConversionError.self) { try ProbedMedia(ffprobeJSON: Array("[]".utf8)) }
        #expect(throws: ConversionError.self) { try ProbedMedia(ffprobeJSON: Array(#"{"streams": []}"#.utf8)) }
        let absurd = #"{"streams": [{"index": -4, "codec_type": "video", "codec_name": "h264", "width": -5, "height": 1e300, "avg_frame_rate": "1/0", "level": -99}], "format": {"format_name": "mpegts", "duration": "N/A", "start_time": "-3"}}"#
        let media = try ProbedMedia(ffprobeJSON: Array(absurd.utf8))
        #expect(media.duration == nil && media.startTime == 0)
        #expect(media.streams[0].index == 0 && media.streams[0].width == nil && media.streams[0].height == nil)
        #expect(media.streams[0].frameRate == nil && media.streams[0].level == nil)
    }

    @Test("ffmpeg's -progress blocks")
    func progress() {
        var reader = FFmpegProgress.Reader()
        #expect(reader.read("frame=120") == nil)
        #expect(reader.read("out_time_us=4800000") == nil)
        #expect(reader.read("speed=3.21x") == nil)
        #expect(reader.read("progress=continue") == FFmpegProgress(outputTime: 4.8, speed: 3.21, frames: 120))
        #expect(reader.read("speed=N/A") == nil)
        #expect(reader.read("out_time_us=-9223372036854775807") == nil)
        #expect(reader.read("progress=end") == FFmpegProgress(isEnd: true))
    }

    @Test("A self-initializing fMP4 segment splits before its first moof")
    func fragmentedMP4() {
        func box(_ type: String, _ body: Int) -> [UInt8] {
            let size = 8 + body
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8)
                + [UInt8](repeating: 0, count: body)
        }
        let segment = box("ftyp", 16) + box("moov", 700) + box("moof", 100) + box("mdat", 1000)
        #expect(FragmentedMP4.initializationLength(segment) == 24 + 708)
        #expect(FragmentedMP4.initializationLength(box("moov", 10) + box("moof", 10)) == nil)  // no ftyp
        #expect(FragmentedMP4.initializationLength(box("ftyp", 8) + box("moov", 8) + box("mdat", 10)) == nil)
        // A box whose size runs to nearly Int.max (found by FuzzFragmentedMP4: it overflowed the next offset).
        let huge: [UInt8] = [0, 0, 0, 1] + Array("ftyp".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0]
        #expect(FragmentedMP4.initializationLength(huge + box("moov", 8)) == nil)
        #expect(FragmentedMP4.initializationLength(Array(segment.prefix(30))) == nil)
        #expect(FragmentedMP4.initializationLength([0, 0, 0, 4] + Array("ftyp".utf8)) == nil)  // a size below its header
        let large: [UInt8] = [0, 0, 0, 1] + Array("ftyp".utf8) + [0, 0, 0, 0, 0, 0, 0, 24] + [UInt8](repeating: 0, count: 8)
        #expect(FragmentedMP4.initializationLength(large + box("moov", 4) + box("moof", 4)) == 24 + 12)
    }

    @Test("Language tags: ISO 639-2 to BCP 47")
    func languages() {
        #expect(LanguageTag.bcp47("eng") == "en" && LanguageTag.bcp47("fre") == "fr" && LanguageTag.bcp47("fra") == "fr")
        #expect(LanguageTag.bcp47("pt-BR") == "pt-BR" && LanguageTag.bcp47("gsw") == "gsw")
        #expect(LanguageTag.bcp47("und") == nil && LanguageTag.bcp47("") == nil && LanguageTag.bcp47("en glish") == nil)
    }

    @Test("The playlists: the master names what is sent; the media playlist lists every segment, VOD, with EXT-X-MAP for fMP4")
    func playlists() throws {
        let media = try ProbedMedia(ffprobeJSON: Array(ParsingTests.report.utf8), path: "/m.mkv")
        let plan = try ConversionPlan(for: media, profile: .ultra)
        let layout = try SegmentLayout.regular(duration: 7.5, target: 3)
        let playlists = HLSPlaylists(plan: plan, layout: layout)
        #expect(playlists.format == .fmp4)
        #expect(playlists.codecs == ["hvc1.2.4.L153.90", "mp4a.40.2"])
        #expect(playlists.master.contains("CODECS=\"hvc1.2.4.L153.90,mp4a.40.2\",RESOLUTION=3840x2160,FRAME-RATE=23.976"))
        #expect(playlists.media == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:3
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init-0.mp4"
            #EXTINF:1.000000,
            segment-0.m4s
            #EXT-X-MAP:URI="init-1.mp4"
            #EXTINF:2.000000,
            segment-1.m4s
            #EXT-X-MAP:URI="init-2.mp4"
            #EXTINF:3.000000,
            segment-2.m4s
            #EXT-X-MAP:URI="init-3.mp4"
            #EXTINF:1.500000,
            segment-3.m4s
            #EXT-X-ENDLIST

            """)
        #expect(playlists.entry(named: "segment-3.m4s") == .segment(3) && playlists.entry(named: "init-2.mp4") == .initialization(2))
        #expect(playlists.entry(named: "segment-4.m4s") == nil && playlists.entry(named: "segment-03.m4s") == nil)
        #expect(playlists.entry(named: "segment-1.ts") == nil && playlists.entry(named: "segment-.m4s") == nil)
        let chromecast = HLSPlaylists(plan: try ConversionPlan(for: media, profile: .chromecast3), layout: layout)
        #expect(chromecast.codecs == ["avc1.640028", "mp4a.40.2"] && chromecast.format == .mpegts)
        #expect(chromecast.master.contains("RESOLUTION=1920x1080"))
    }

    @Test("ffmpeg's arguments: a run from segment 6 seeks there, forces key frames and cuts at the layout's starts, keeps the timestamps")
    func arguments() throws {
        let media = try ProbedMedia(ffprobeJSON: Array(ParsingTests.report.utf8), path: "/m.mkv")
        let layout = try SegmentLayout.regular(duration: 30, target: 3)
        let transcode = FFmpegArguments(plan: try ConversionPlan(for: media, profile: .chromecast3), layout: layout, source: "/m.mkv",
                                        options: ConversionOptions(), sourceHasReorderedFrames: true)
        let run = transcode.segmentRun(from: 6, directory: "/tmp/x")
        let text = run.joined(separator: " ")
        #expect(text.contains("-ss 15 -copyts -start_at_zero -avoid_negative_ts disabled -i /m.mkv"))
        #expect(text.contains("-force_key_frames 15,18,21,24,27"))
        #expect(text.contains("-segment_times 17.999,20.999,23.999,26.999 -segment_start_number 6"))
        #expect(text.contains("-map 0:1 -c:a aac -b:a 192000 -ac 2 -ar 48000"))
        #expect(text.contains("[0:0]scale=1920:1080,format=yuv420p[v]") && text.contains("-c:v libx264"))
        #expect(text.contains("-progress pipe:3") && text.contains("-segment_list pipe:1") && run.last == "/tmp/x/segment-%d.ts")
        let copy = FFmpegArguments(plan: try ConversionPlan(for: media, profile: .ultra), layout: layout, source: "/m.mkv",
                                   options: ConversionOptions(), sourceHasReorderedFrames: true)
        let copied = copy.segmentRun(from: 2, directory: "/tmp/x").joined(separator: " ")
        #expect(copied.contains("-ss 3.14 -noaccurate_seek -copyts"), "a copy run asks for a point past ffmpeg's 3/23 s seek-back")
        #expect(copied.contains("-c:v copy -tag:v hvc1") && copied.contains("-segment_format mp4") && !copied.contains("force_key_frames"))
        #expect(copied.contains("movflags=+frag_keyframe+empty_moov+default_base_moof+frag_discont"))
        #expect(copy.subtitleExtraction(streams: [3], directory: "/d") .joined(separator: " ").hasSuffix("-map 0:3 -c:s webvtt -f webvtt /d/subtitles-3.vtt"))
    }

    @Test("A file name in a filter graph is escaped twice: for the option, then for the graph (ffmpeg 5.1 opens /a:b's [x],y.mkv so)")
    func filterEscaping() throws {
        let media = try ProbedMedia(ffprobeJSON: Array(ParsingTests.report.utf8), path: "/m.mkv")
        let plan = try ConversionPlan(for: media, profile: .chromecast3, options: ConversionOptions(burnSubtitleStream: 3))
        let run = FFmpegArguments(plan: plan, layout: try SegmentLayout.regular(duration: 30, target: 3), source: "/a:b's [x],y.mkv",
                                  options: ConversionOptions(), sourceHasReorderedFrames: true).segmentRun(from: 0, directory: "/t")
        let graph = try #require(run.firstIndex(of: "-filter_complex").map { run[$0 + 1] })
        #expect(graph == #"[0:0]subtitles=filename=/a\\:b\\\'s \[x\]\,y.mkv:si=0,scale=1920:1080,format=yuv420p[v]"#)
        let pgs = try ConversionPlan(for: media, profile: .chromecast3, options: ConversionOptions(burnSubtitleStream: 4))
        let overlay = FFmpegArguments(plan: pgs, layout: try SegmentLayout.regular(duration: 30, target: 3), source: "/m.mkv",
                                      options: ConversionOptions(), sourceHasReorderedFrames: true).segmentRun(from: 0, directory: "/t")
        #expect(overlay.contains("[0:0][0:4]overlay=eof_action=pass:repeatlast=0,scale=1920:1080,format=yuv420p[v]"))
    }
}
