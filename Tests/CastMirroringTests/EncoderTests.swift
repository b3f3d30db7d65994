import CastMirroring
import CastStreaming
import CastTestSupport
import Foundation
import Testing

/// The encoders' output read by ffmpeg (the independent decoder): VP8 and VP9 written as IVF decode
/// to the pattern's size and frame count; Opus written as Ogg decodes to the tone's frequency.
@Suite("Encoders: libvpx and libopus output that ffmpeg decodes")
struct EncoderTests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test("VP8 and VP9 frames of the test pattern: key frame first, on request, and ffprobe counts every frame",
          .enabled(if: inCI || ffmpeg != nil, "needs ffmpeg/ffprobe (apt-get install ffmpeg)"), arguments: [StreamingCodec.vp8, .vp9])
    func video(codec: StreamingCodec) async throws {
        let pattern = TestPatternSource(width: 320, height: 240, frameRate: 30)
        let encoder = try VPXEncoder(codec: codec, width: 320, height: 240, frameRate: 30, bitRate: 1_000_000)
        var ivf = Self.ivfHeader(fourcc: codec == .vp8 ? "VP80" : "VP90", width: 320, height: 240, frames: 45)
        var keys: [Bool] = []
        let start = ContinuousClock.now
        for index in 0..<45 {
            let frame = VideoFrame(width: 320, height: 240, i420: pattern.picture(index), captureTime: .milliseconds(Int64(index) * 33))
            let encoded = try encoder.encode(frame, keyFrame: index == 30)
            #expect(encoded.count == 1)
            for output in encoded {
                keys.append(output.isKeyFrame)
                ivf += Self.le32(UInt32(output.data.count)) + Self.le64(UInt64(index)) + output.data
            }
        }
        let perFrame = (ContinuousClock.now - start) / 45
        #expect(keys.first == true)
        #expect(keys[30] == true)
        #expect(keys.filter { $0 }.count <= 3)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("castor-\(codec)-\(UUID().uuidString).ivf")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(ivf).write(to: file)
        let probe = try ChildProcess("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                          "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", file.path])
        #expect(await probe.waitForExit() == 0)
        #expect(probe.output.first == "\(codec.name),320,240,45", "per frame \(perFrame)")
    }

    @Test("Opus frames of a 1 kHz tone decode to a 1 kHz tone",
          .enabled(if: inCI || ffmpeg != nil, "needs ffmpeg (apt-get install ffmpeg)"))
    func audio() async throws {
        let tone = ToneSource()
        let encoder = try OpusEncoder(channels: 2, bitRate: 128_000)
        var packets: [[UInt8]] = []
        for index in 0..<100 {
            let chunk = AudioChunk(samples: tone.samples(index), channels: 2, captureTime: .milliseconds(Int64(index) * 10))
            for frame in try encoder.encode(chunk) {
                #expect(frame.captureTime == .milliseconds(Int64(index) * 10))
                packets.append(frame.data)
            }
        }
        #expect(packets.count == 100)
        // Decode through ffmpeg from a minimal Ogg/Opus file written here.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("castor-opus-\(UUID().uuidString).ogg")
        let raw = file.deletingPathExtension().appendingPathExtension("s16")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: raw)
        }
        try Data(OggFile.opus(packets: packets, channels: 2)).write(to: file)
        let decode = try ChildProcess("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", file.path, "-f", "s16le", "-ac", "1", "-ar", "48000", raw.path])
        #expect(await decode.waitForExit() == 0, "\(decode.errorOutput)")
        let samples = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        var crossings = 0
        for i in 1..<samples.count where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
        let frequency = Double(crossings) / 2 / (Double(samples.count) / 48_000)
        #expect(abs(frequency - 1_000) < 20, "\(frequency) Hz from \(samples.count) samples")
    }

    static func ivfHeader(fourcc: String, width: Int, height: Int, frames: Int) -> [UInt8] {
        Array("DKIF".utf8) + [0, 0, 32, 0] + Array(fourcc.utf8) + le16(UInt16(width)) + le16(UInt16(height))
            + le32(30) + le32(1) + le32(UInt32(frames)) + le32(0)
    }
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
}

/// A minimal Ogg Opus writer for the test (one packet a page).
enum OggFile {
    static func opus(packets: [[UInt8]], channels: Int) -> [UInt8] {
        var sequence: UInt32 = 0
        var granule: Int64 = 0
        var out: [UInt8] = []
        func page(_ data: [UInt8], flags: UInt8) {
            var lacing: [UInt8] = Array(repeating: 255, count: data.count / 255) + [UInt8(data.count % 255)]
            if lacing.isEmpty { lacing = [0] }
            var bytes = Array("OggS".utf8) + [0, flags] + EncoderTests.le64(UInt64(granule)) + EncoderTests.le32(0xCA57) + EncoderTests.le32(sequence)
                + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing + data
            var crc: UInt32 = 0
            for byte in bytes {
                crc ^= UInt32(byte) << 24
                for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
            }
            bytes[22] = UInt8(crc & 0xFF); bytes[23] = UInt8((crc >> 8) & 0xFF); bytes[24] = UInt8((crc >> 16) & 0xFF); bytes[25] = UInt8(crc >> 24)
            out += bytes
            sequence += 1
        }
        page(Array("OpusHead".utf8) + [1, UInt8(channels)] + EncoderTests.le16(0) + EncoderTests.le32(48_000) + [0, 0, 0], flags: 2)
        page(Array("OpusTags".utf8) + EncoderTests.le32(4) + Array("test".utf8) + EncoderTests.le32(0), flags: 0)
        for (index, packet) in packets.enumerated() {
            granule += 480
            page(packet, flags: index == packets.count - 1 ? 4 : 0)
        }
        return out
    }
}
