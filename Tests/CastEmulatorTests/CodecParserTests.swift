import CastDeviceProfiles
import Foundation
import Testing
@testable import CastEmulator

/// The codec parsers on hand-written bytes: what ffmpeg here cannot make (HE-AAC, HE-AAC v2),
/// the bit-level building blocks, and hostile or truncated input (which must end in `unknown`).
@Suite("Codec parsers")
struct CodecParserTests {
    @Test("AudioSpecificConfig: LC, HE-AAC and HE-AAC v2, signalled explicitly or backward-compatibly")
    func audioSpecificConfigs() {
        // AAC LC, 44.1 kHz, stereo: ffmpeg's two bytes.
        #expect(CodecConfigurations.audioSpecificConfig([0x12, 0x10])
            == AudioStreamDescription(codec: .aac, profile: .lc, channels: 2, sampleRate: 44_100))
        // LC 5.1 at 48 kHz.
        #expect(CodecConfigurations.audioSpecificConfig([0x11, 0xB0])?.channels == 6)
        // Explicit SBR (object type 5): core 24 kHz, output 48 kHz, then the core's object type 2.
        #expect(CodecConfigurations.audioSpecificConfig([0x2B, 0x11, 0x88, 0x00])
            == AudioStreamDescription(codec: .aac, profile: .heAAC, channels: 2, sampleRate: 48_000))
        // Explicit PS (object type 29): HE-AAC v2, mono core.
        #expect(CodecConfigurations.audioSpecificConfig([0xEB, 0x09, 0x88, 0x00])?.profile == .heAACv2)
        // ffmpeg's five bytes (LC with the sync extension 0x2B7, SBR absent), then with SBR present at 48 kHz.
        #expect(CodecConfigurations.audioSpecificConfig([0x12, 0x10, 0x56, 0xE5, 0x00])?.profile == .lc)
        let backward = CodecConfigurations.audioSpecificConfig([0x12, 0x10, 0x56, 0xE5, 0x98])
        #expect(backward?.profile == .heAAC && backward?.sampleRate == 48_000)
        #expect(CodecConfigurations.audioSpecificConfig([]) == nil)
        #expect(CodecConfigurations.audioSpecificConfig([0xF8]) == nil)  // an escaped object type cut short
    }

    @Test("Dolby: dac3, dec3 and an AC-3 sync frame header")
    func dolby() {
        // fscod 0 (48 kHz), bsid 8, bsmod 0, acmod 7 (3/2), lfeon 1, bit rate code 14.
        #expect(CodecConfigurations.dac3([0x10, 0x3D, 0xC0]) == AudioStreamDescription(codec: .ac3, channels: 6, sampleRate: 48_000))
        // data rate and one independent substream: fscod 0, bsid 16, acmod 7, lfeon 1.
        #expect(CodecConfigurations.dec3([0x06, 0x00, 0x20, 0x0F, 0x00]) == AudioStreamDescription(codec: .eac3, channels: 6, sampleRate: 48_000))
        // 0B 77, CRC, fscod/frmsizecod, then bsid 8, bsmod 0, acmod 7, cmixlev, surmixlev, lfeon 1.
        let header = AC3Header([0x0B, 0x77, 0x00, 0x00, 0x1C, 0x40, 0xE1])
        #expect(header?.sampleRate == 48_000 && header?.channels == 6)
        // acmod 2 (stereo) carries dsurmod before lfeon.
        #expect(AC3Header([0x0B, 0x77, 0x00, 0x00, 0x1C, 0x40, 0x40])?.channels == 2)
        #expect(AC3Header([0x0B, 0x77, 0x00]) == nil)
    }

    @Test("Exponential-Golomb codes and emulation prevention")
    func bits() throws {
        var reader = BitReader([0b1010_0110, 0b0100_0000])
        #expect(try reader.unsignedGolomb() == 0)  // 1
        #expect(try reader.unsignedGolomb() == 1)  // 010
        #expect(try reader.unsignedGolomb() == 2)  // 011
        #expect(try reader.signedGolomb() == 2)  // 00100: code 3, +2
        #expect(throws: ProbeStop.unreadable) { try reader.bits(32) }
        var zeros = BitReader([0, 0, 0, 0, 0])
        #expect(throws: ProbeStop.unreadable) { try zeros.unsignedGolomb() }
        #expect(removingEmulationPrevention([0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03]) == [0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(annexBUnits([0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xCE]).map(Array.init) == [[0x67, 0x42], [0x68, 0xCE]])
    }

    @Test("HLS attribute lists keep commas inside quotes; DASH frame rates are fractions")
    func manifests() {
        let attributes = HLSCodecProbe.attributes(#"BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970"#)
        #expect(attributes["CODECS"] == "avc1.64001f,mp4a.40.2")
        #expect(attributes["RESOLUTION"] == "1280x720")
        let variant = HLSCodecProbe.describe(attributes)
        #expect(variant?.description == "h264 High L3.1 1280x720 29.97fps, aac LC")
        #expect(DASHCodecProbe.frameRate("30000/1001").map { ($0 * 100).rounded() } == 2997)
        #expect(DASHCodecProbe.frameRate("0/0") == nil && DASHCodecProbe.frameRate("x") == nil)
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2,CODECS=\"hvc1.1.6.L93.B0\"\nhigh.m3u8\n"
        #expect(HLSCodecProbe.probe(master) == .follow("low.m3u8", .playlist), "a variant without CODECS: read its playlist")
        let media = "#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:2,\nseg0.m4s\n"
        #expect(HLSCodecProbe.probe(media) == .follow("init.mp4", .segment))
        #expect(HLSCodecProbe.probe("#EXTM3U\n") == .unknown)
    }

    @Test("Hostile and truncated input ends in unknown or a bounded request, never a crash")
    func hostile() {
        func probe(_ bytes: [UInt8], total: Int? = nil) -> CodecProbeResult {
            MediaCodecProbe.probe(ProbeBytes(prefix: bytes, totalLength: total), contentType: nil, url: "http://h/x")
        }
        // An MP4 whose moov claims more than the file holds.
        let moov: [UInt8] = [0, 0, 0, 0x10] + Array("ftypisom".utf8) + [0, 0, 0, 0] + [0x7F, 0xFF, 0xFF, 0xFF] + Array("moov".utf8)
        #expect(probe(moov, total: moov.count) == .unknown)
        // Without a total, the walk asks for the bytes it lacks, within the limit.
        if case .needsBytes(let range) = probe(moov) {
            #expect(range.count <= MediaDurationProbe.followUpLimit)
        }
        // A box whose size is smaller than its header.
        #expect(probe([0, 0, 0, 4] + Array("ftyp".utf8), total: 8) == .unknown)
        // A Matroska header and nothing else.
        #expect(probe([0x1A, 0x45, 0xDF, 0xA3, 0x80], total: 5) == .unknown)
        // A transport stream of sync bytes without tables.
        #expect(probe([UInt8](repeating: 0x47, count: 188 * 3), total: 564) == .unknown)
        // An Ogg page that does not begin a stream.
        #expect(probe(Array("OggS".utf8) + [0, 0] + [UInt8](repeating: 0, count: 22)) == .found(MediaDescription(container: .ogg)))
        // A WAV file without its fmt chunk.
        #expect(probe(Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEdata".utf8) + [0, 0, 0, 0], total: 20) == .unknown)
        #expect(probe([]) == .unknown)
    }

    @Test("Fuzz findings: sizes no stream has are dropped, not trapped on or reported")
    func fuzzFindings() throws {
        // FuzzMatroskaCodecs: a PixelWidth of 2^64 - 1 trapped converting to Int.
        func element(_ id: [UInt8], _ body: [UInt8]) -> [UInt8] { id + [0x80 | UInt8(body.count)] + body }
        let video = element([0xE0], element([0xB0], [UInt8](repeating: 0xFF, count: 8)) + element([0xBA], [0x01, 0x00]))
        let entry = element([0xAE], element([0x83], [1]) + element([0x86], Array("V_VP8".utf8)) + video)
        let tracks = element([0x16, 0x54, 0xAE, 0x6B], entry)
        let file = element([0x1A, 0x45, 0xDF, 0xA3], element([0x42, 0x82], Array("webm".utf8)))
            + [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + tracks
        guard case .found(let media) = MatroskaCodecProbe.probe(ProbeBytes(prefix: file, totalLength: file.count)) else {
            Issue.record("the tracks were not read")
            return
        }
        #expect(media.video.first?.width == nil && media.video.first?.height == 256)
        // FuzzHLSCodecs and FuzzDASHCodecs: negative sizes from RESOLUTION and width.
        let variant = try #require(HLSCodecProbe.describe(["CODECS": "avc1.64001f", "RESOLUTION": "38EXT-X-40x2160"]))
        #expect(variant.video.first?.width == nil)
        let manifest = #"<MPD type="static"><Period><AdaptationSet mimeType="video/mp4" codecs="avc1.4d401f"><Representation width="-280" height="720"/></AdaptationSet></Period></MPD>"#
        guard case .alternatives(let list) = DASHCodecProbe.probe(manifest) else {
            Issue.record("the representation was not read")
            return
        }
        #expect(list.first?.video.first?.width == nil && list.first?.video.first?.height == 720)
    }

    @Test("An MP4 whose moov follows its media data: the probe asks for the moov")
    func moovAtTheEnd() async throws {
        guard ProbeMedia.available else { return }
        let fixture = try #require(CodecFixtures.all.first { $0.path == "h264-main-mp3.mp4" })
        let bytes = try await CodecFixtures.library.bytes(fixture)
        let prefix = ProbeBytes(prefix: Array(bytes.prefix(4096)), totalLength: bytes.count)
        guard case .needsBytes(let range) = MP4CodecProbe.probe(prefix) else {
            Issue.record("expected a request for the moov")
            return
        }
        #expect(bytes[(range.lowerBound + 4)..<(range.lowerBound + 8)].elementsEqual(Array("moov".utf8)))
        var data = prefix
        data.add(Array(bytes[range]), at: range.lowerBound)
        guard case .found(let media) = MP4CodecProbe.probe(data) else {
            Issue.record("the moov was fetched but not read")
            return
        }
        #expect(media.description == "h264 Main L1.3 320x240 30fps, mp3 48000Hz")
    }
}
