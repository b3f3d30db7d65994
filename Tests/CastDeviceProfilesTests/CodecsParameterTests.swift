import CastDeviceProfiles
import Testing

@Suite("RFC 6381 codecs parameter")
struct CodecsParameterTests {
    @Test("H.264 profile and level from avc1")
    func avc() {
        let codecs = CodecsParameter("avc1.64001F, mp4a.40.2")
        #expect(codecs.video == [VideoStreamDescription(codec: .h264, profile: .high, level: CodecLevel(3, 1))])
        #expect(codecs.audio == [AudioStreamDescription(codec: .aac, profile: .lc)])
        #expect(CodecsParameter("avc1.42E01E").video.first?.profile == .constrainedBaseline)
        #expect(CodecsParameter("avc3.4D4028").video.first?.level == CodecLevel(4, 0))
        #expect(CodecsParameter("avc1.66.30").video.first == VideoStreamDescription(codec: .h264, profile: .baseline, level: CodecLevel(3, 0)))
    }

    @Test("HEVC, VP9 and AV1 profiles, levels and depths")
    func modernVideo() {
        #expect(CodecsParameter("hvc1.1.6.L93.B0").video == [VideoStreamDescription(codec: .hevc, profile: .main, level: CodecLevel(3, 1))])
        #expect(CodecsParameter("hev1.2.4.L153.B0").video == [VideoStreamDescription(codec: .hevc, profile: .main10, level: CodecLevel(5, 1))])
        #expect(CodecsParameter("vp09.02.51.10.01.09.16.09.00").video
            == [VideoStreamDescription(codec: .vp9, profile: .vp9(2), level: CodecLevel(5, 1), bitDepth: 10)])
        #expect(CodecsParameter("av01.0.13M.10").video
            == [VideoStreamDescription(codec: .av1, profile: .av1(0), level: CodecLevel(5, 1), bitDepth: 10)])
        #expect(CodecsParameter("vp8").video == [VideoStreamDescription(codec: .vp8)])
    }

    @Test("Audio names and object types")
    func audio() {
        let codecs = CodecsParameter("mp4a.40.5,mp4a.40.29,mp4a.69,mp4a.6B,mp4a.40.34,ac-3,ec-3,opus,vorbis,fLaC,mp4a.a5")
        #expect(codecs.audio.map(\.codec) == [.aac, .aac, .mp3, .mp3, .mp3, .ac3, .eac3, .opus, .vorbis, .flac, .ac3])
        #expect(codecs.audio.prefix(2).map(\.profile) == [.heAAC, .heAACv2])
    }

    @Test("From a content type, quoted or not; none without the parameter")
    func contentType() {
        #expect(CodecsParameter(contentType: "video/mp4; codecs=\"avc1.640028, mp4a.40.2\"")?.entries.count == 2)
        #expect(CodecsParameter(contentType: "audio/webm;codecs=opus")?.audio.first?.codec == .opus)
        #expect(CodecsParameter(contentType: "video/mp4") == nil)
    }

    @Test("What it cannot read is kept as unknown; input is bounded")
    func unknownAndBounded() {
        let codecs = CodecsParameter("avc1.ZZZZZZ, xyz1.2, hvc1")
        #expect(codecs.video.map(\.codec) == [.h264, .hevc])
        #expect(codecs.video[0].profile == nil)
        #expect(codecs.unknown == ["xyz1.2"])
        let long = CodecsParameter(Array(repeating: "opus", count: 1000).joined(separator: ","))
        #expect(long.entries.count == CodecsParameter.maximumEntries)
    }
}

@Suite("Codec levels")
struct CodecLevelTests {
    @Test("Each codec's coding of a level reads the same")
    func codings() {
        #expect(CodecLevel(h264LevelIDC: 41) == CodecLevel(4, 1))
        #expect(CodecLevel(h264LevelIDC: 9) == CodecLevel(1, 0))
        #expect(CodecLevel(hevcLevelIDC: 153) == CodecLevel(5, 1))
        #expect(CodecLevel(hevcLevelIDC: 123) == CodecLevel(4, 1))
        #expect(CodecLevel(hevcLevelIDC: 124) == nil)
        #expect(CodecLevel(vp9Level: 40) == CodecLevel(4, 0))
        #expect(CodecLevel(av1SequenceLevelIndex: 8) == CodecLevel(4, 0))
        #expect(CodecLevel(av1SequenceLevelIndex: 31) == nil)
        #expect(CodecLevel(4, 2) > CodecLevel(4, 1))
        #expect(CodecLevel(5, 0) > CodecLevel(4, 2))
    }
}
