import CastStreaming
import Foundation
import Testing

/// Open Screen's own byte vectors (see OpenScreen/README.md): its parser unit tests' inputs, quoted
/// here with the test they come from, and its fuzzer seeds, read from the source tree.
@Suite("Open Screen's RTP and RTCP vectors")
struct OpenScreenVectorTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("OpenScreen")

    static func seeds(_ folder: String) throws -> [(name: String, bytes: [UInt8])] {
        let url = directory.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).sorted().map {
            ($0, Array(try Data(contentsOf: url.appendingPathComponent($0))))
        }
    }

    // rtp_packet_parser_unittest.cc, ParsesPacketForKeyFrame
    @Test("A key frame's packet")
    func keyFramePacket() throws {
        let input: [UInt8] = [0b1000_0000, 96, 0xbe, 0xef, 9, 8, 7, 6, 1, 2, 3, 4, 0b1000_0000, 5, 0xa, 0xb, 0xa, 0xc,
                              0xf, 0xe, 0xd, 0xc, 0xb, 0xa, 0x9, 0x8]
        let packet = try RTPPacket(parsing: input)
        #expect(packet.payloadType == 96)
        #expect(packet.sequenceNumber == 0xbeef)
        #expect(packet.rtpTimestamp == 0x0908_0706)
        #expect(packet.ssrc == 0x0102_0304)
        #expect(packet.isKeyFrame)
        #expect(packet.frameID == 5)
        #expect(packet.packetID == 0x0a0b)
        #expect(packet.maxPacketID == 0x0a0c)
        #expect(packet.referencedFrameID == nil)
        #expect(Array(packet.payload) == Array(input[18...]))
        #expect(packet.serialized() == input)
    }

    // rtp_packet_parser_unittest.cc, ParsesPacketForNonKeyFrameWithReferenceFrameId
    @Test("A delta frame's packet with its referenced frame")
    func referencedFrame() throws {
        let input: [UInt8] = [0b1000_0000, 96, 0xde, 0xad, 2, 4, 6, 8, 0, 0, 1, 1, 0b0100_0000, 42, 0x0, 0xb, 0x0, 0xc, 39,
                              1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29]
        let packet = try RTPPacket(parsing: input)
        #expect(!packet.isKeyFrame)
        #expect(packet.referencedFrameID == 39)
        #expect(FrameID.expanded(39, near: FrameID(42)) == FrameID(39))
        #expect(packet.payload.count == 15)
        #expect(packet.serialized() == input)
    }

    // rtp_packet_parser_unittest.cc, ParsesPacketWithAdaptiveLatencyExtension
    @Test("A packet announcing a new playout delay")
    func adaptiveLatency() throws {
        let input: [UInt8] = [0b1000_0000, 96, 0xde, 0xad, 2, 4, 6, 8, 0, 0, 1, 1, 0b1100_0001, 64, 0x0, 0x0, 0x0, 0xc, 64,
                              4, 2, 1, 14, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29]
        let packet = try RTPPacket(parsing: input)
        #expect(packet.newPlayoutDelay == 270)
        #expect(packet.payload.count == 15)
        #expect(packet.serialized() == input)
    }

    // rtp_packet_parser_unittest.cc, RejectsPacketWithBadPacketId (the seed of the same name)
    @Test("Open Screen's RTP seeds: whole packets parse and write back the same; a packet id above the last is refused")
    func rtpSeeds() throws {
        for (name, bytes) in try Self.seeds("rtp_packet_parser_fuzzer_seeds") {
            let parsed = try? RTPPacket(parsing: bytes)
            if name.contains("bad_packet_id") {
                #expect(parsed == nil, "\(name)")
            } else if !name.contains("trunc") {
                let packet = try #require(parsed, "\(name)")
                if !name.contains("multiple_ext") { #expect(packet.serialized() == bytes, "\(name)") }
            }
        }
        #expect(throws: StreamingError.self) { try RTPPacket(parsing: [0x80]) }
    }

    // compound_rtcp_parser_unittest.cc, ParsesReceiverReportWithReportBlock
    @Test("A receiver report with its report block")
    func receiverReport() throws {
        let input: [UInt8] = [0b1000_0001, 201, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02,
                              0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x02, 0x03, 0x09, 0x09, 0x09, 0x02,
                              0x00, 0x00, 0x00, 0xaa, 0x0b, 0x0c, 0x8f, 0xed, 0x00, 0x01, 0x00, 0x00]
        let packets = try RTCPPacket.parseCompound(input)
        guard case .receiverReport(let ssrc, let blocks) = try #require(packets.first) else { Issue.record("\(packets)"); return }
        #expect(ssrc == 2)
        #expect(blocks == [ReportBlock(ssrc: 1, fractionLost: 5, cumulativeLost: 0x010203, extendedHighestSequence: 0x0909_0902,
                                       jitter: 0xaa, lastReportID: 0x0b0c_8fed, delaySinceLastReport: 0x0001_0000)])
        #expect(RTCPPacket.serializeCompound(packets) == input)
    }

    // compound_rtcp_parser_unittest.cc, ParsesFeedbackWithNacks
    @Test("Feedback with NACKs: single packets, runs, whole frames")
    func feedbackWithNacks() throws {
        let input: [UInt8] = [0b1000_0000 | 15, 206, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
                              0x43, 0x41, 0x53, 0x54, 0x0a, 0x07, 0x02, 0x28,
                              0x0b, 0x00, 0x03, 0b0000_0000, 0x0b, 0x00, 0x07, 0b1000_1101, 0x0d, 0xff, 0xff, 0b0000_0000,
                              0x0b, 0x00, 0x0b, 0b0000_0000, 0x0c, 0xff, 0xff, 0b0000_0000, 0x0d, 0x00, 0x01, 0b0000_0000,
                              0x0e, 0x00, 0x00, 0b0100_0010]
        let packets = try RTCPPacket.parseCompound(input)
        guard case .castFeedback(let feedback) = try #require(packets.first) else { Issue.record("\(packets)"); return }
        let checkpoint = feedback.checkpointFrame(atOrBelow: FrameID(10))
        #expect(checkpoint == FrameID(10))
        #expect(feedback.playoutDelay == 552)
        let missing = Set(feedback.missing(after: checkpoint).map { "\($0.frame.value):\($0.packet.map(String.init) ?? "all")" })
        #expect(missing == ["11:3", "11:7", "11:8", "11:10", "11:11", "11:15", "13:all", "12:all", "13:1", "14:0", "14:2", "14:7"])
        #expect(RTCPPacket.serializeCompound(packets) == input)
    }

    // compound_rtcp_parser_unittest.cc, ParsesFeedbackWithAcks
    @Test("Feedback with ACK bit vectors")
    func feedbackWithAcks() throws {
        let input: [UInt8] = [0b1000_0000 | 15, 206, 0x00, 0x08, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
                              0x43, 0x41, 0x53, 0x54, 0x0a, 0x00, 0x01, 0x26, 0x43, 0x53, 0x54, 0x32, 0x99, 0x0a,
                              0b1111_1111, 0b1111_1111, 0b0000_0000, 0b0000_0001, 0, 0, 0, 0, 0, 0b1000_0000]
        let packets = try RTCPPacket.parseCompound(input)
        guard case .castFeedback(let feedback) = try #require(packets.first) else { Issue.record("\(packets)"); return }
        #expect(feedback.received(after: FrameID(10)).map(\.value) == Array(12...27) + [36, 91])
        #expect(feedback.feedbackCount == 0x99)
    }

    @Test("Every compound RTCP seed parses, and writing it back gives the same bytes")
    func rtcpSeeds() throws {
        for (name, bytes) in try Self.seeds("compound_rtcp_parser_fuzzer_seeds") + Self.seeds("sender_report_parser_fuzzer_seeds") {
            let packets = try RTCPPacket.parseCompound(bytes)
            #expect(!packets.isEmpty, "\(name)")
            let known = packets.allSatisfy { if case .other = $0 { false } else { true } }
            if known && !name.contains("three_extended") {
                #expect(RTCPPacket.serializeCompound(packets) == bytes, "\(name)")
            }
        }
    }

    @Test("Open Screen's garbage is refused (compound_rtcp_parser_unittest.cc, ReturnsErrorForGarbage)")
    func garbage() {
        let garbage: [UInt8] = [0x42, 0x61, 0x16, 0x17, 0x26, 0x73, 0x74, 0x72, 0x65, 0x61, 0x6d, 0x69, 0x6e, 0x67, 0x2f, 0x63, 0x61,
                                0x73, 0x74, 0x2f, 0x63, 0x6f, 0x6d, 0x70, 0x6f, 0x75, 0x6e, 0x64, 0x5f, 0x72, 0x74, 0x63, 0x70, 0x5f]
        #expect(throws: StreamingError.self) { try RTCPPacket.parseCompound(garbage) }
    }
}
