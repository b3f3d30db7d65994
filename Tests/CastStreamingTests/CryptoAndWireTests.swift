import CastStreaming
import CastTestSupport
import Foundation
import Testing

@Suite("Frame encryption and the wire format")
struct CryptoAndWireTests {
    @Test("AES-128-CTR per frame matches OpenSSL's aes-128-ctr with the frame's nonce")
    func cryptoAgainstOpenSSL() async throws {
        let key: [UInt8] = (0..<16).map { UInt8($0 * 7 + 3) }
        let mask: [UInt8] = (0..<16).map { UInt8(255 - $0 * 5) }
        let crypto = try FrameCrypto(key: key, ivMask: mask)
        let frame = FrameID(0x1_2345_6789)  // only the low 32 bits enter the nonce
        let nonce = crypto.nonce(for: frame)
        #expect(Array(nonce[8...11]) == [mask[8] ^ 0x23, mask[9] ^ 0x45, mask[10] ^ 0x67, mask[11] ^ 0x89])
        #expect(Array(nonce[0...7]) == Array(mask[0...7]))
        let plaintext = Array("The quick brown fox jumps over the lazy dog, forty-seven bytes and more.".utf8)
        let ours = crypto.crypt(plaintext, frame: frame)
        #expect(ours != plaintext)
        #expect(crypto.crypt(ours, frame: frame) == plaintext)
        #expect(crypto.crypt(plaintext, frame: FrameID(1)) != ours)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("castor-crypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("plain"), output = directory.appendingPathComponent("cipher")
        try Data(plaintext).write(to: input)
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        let openssl = try ChildProcess("/usr/bin/openssl", ["enc", "-aes-128-ctr", "-K", hex(key), "-iv", hex(nonce),
                                                            "-in", input.path, "-out", output.path])
        #expect(await openssl.waitForExit() == 0)
        #expect(Array(try Data(contentsOf: output)) == ours)
    }

    @Test("Frame ids expand from their low 8 bits around a reference, below a maximum, above a minimum")
    func frameIDs() {
        #expect(FrameID.expanded(0x02, near: FrameID(0x1FE)) == FrameID(0x202))
        #expect(FrameID.expanded(0xFE, near: FrameID(0x202)) == FrameID(0x1FE))
        #expect(FrameID.expanded(0x0a, atOrBelow: FrameID(0x22a)) == FrameID(0x20a))
        #expect(FrameID.expanded(0x2a, atOrBelow: FrameID(0x22a)) == FrameID(0x22a))
        #expect(FrameID.expanded(0x0b, above: FrameID(10)) == FrameID(11))
        #expect(FrameID.expanded(0x0a, above: FrameID(10)) == FrameID(266))
    }

    @Test("Packetizing splits a frame into packets the parser reads back")
    func packetizer() throws {
        var packetizer = RTPPacketizer(payloadType: 100, ssrc: 0xAB, firstSequenceNumber: 0xFFFE)
        let data = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        let frame = RTPPacketizer.Frame(frameID: FrameID(300), referencedFrameID: FrameID(299), isKeyFrame: false,
                                        rtpTimestamp: 0x1_0000_0010, newPlayoutDelay: 250, data: data)
        let packets = packetizer.packets(of: frame)
        #expect(packets.count == 4)
        #expect(packets.map(\.sequenceNumber) == [0xFFFE, 0xFFFF, 0, 1])
        #expect(packets.map(\.marker) == [false, false, false, true])
        var joined: [UInt8] = []
        for (index, packet) in packets.enumerated() {
            let bytes = packet.serialized()
            #expect(bytes.count <= RTPPacket.maximumSize)
            let parsed = try RTPPacket(parsing: bytes)
            #expect(parsed == packet)
            #expect(parsed.frameID == 44 && parsed.referencedFrameID == 43 && parsed.rtpTimestamp == 0x10)
            #expect(parsed.newPlayoutDelay == (index == 0 ? 250 : nil))
            joined += parsed.payload
        }
        #expect(joined == data)
        #expect(packetizer.packets(of: RTPPacketizer.Frame(frameID: .first, referencedFrameID: .first, isKeyFrame: true, rtpTimestamp: 0, data: [])).count == 1)
    }

    @Test("RTCP writes what it reads: sender report, receiver report, reference time, picture loss, feedback")
    func rtcpRoundTrip() throws {
        let block = ReportBlock(ssrc: 7, fractionLost: 3, cumulativeLost: 99, extendedHighestSequence: 0x1_0005, jitter: 12,
                                lastReportID: 0xAABB_CCDD, delaySinceLastReport: 65_536)
        let feedback = CastFeedback(receiverSSRC: 8, senderSSRC: 7, checkpoint: FrameID(300), playoutDelay: 400,
                                    missing: [(FrameID(302), 1), (FrameID(302), 2), (FrameID(302), 11), (FrameID(303), nil)],
                                    received: [FrameID(301), FrameID(304), FrameID(340)], feedbackCount: 5)
        let packets: [RTCPPacket] = [
            .senderReport(SenderReport(ssrc: 7, ntpTime: NTPTimestamp(rawValue: 0xe073_2e54_8000_0000), rtpTimestamp: 90_000,
                                       packetCount: 10, octetCount: 12_000, blocks: [block])),
            .receiverReport(ssrc: 8, blocks: [block]),
            .receiverReferenceTime(ssrc: 8, time: NTPTimestamp(rawValue: 0x1234)),
            .pictureLoss(receiverSSRC: 8, senderSSRC: 7),
            .castFeedback(feedback),
        ]
        let bytes = RTCPPacket.serializeCompound(packets)
        #expect(bytes.count % 4 == 0)
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed == packets)
        let checkpoint = feedback.checkpointFrame(atOrBelow: FrameID(340))
        #expect(checkpoint == FrameID(300))
        #expect(feedback.missing(after: checkpoint).map { "\($0.frame.value):\($0.packet.map(String.init) ?? "all")" }
            == ["302:1", "302:2", "302:11", "303:all"])
        #expect(feedback.received(after: checkpoint).map(\.value) == [304, 340])  // 301 is checkpoint + 1: implied, not in the vector
    }

    @Test("NTP timestamps and report ids")
    func ntp() {
        let time = NTPTimestamp(sinceUnixEpoch: .seconds(1_700_000_000) + .milliseconds(500))
        #expect(time.rawValue >> 32 == 1_700_000_000 + NTPTimestamp.unixEpochOffset)
        #expect(time.rawValue & 0xFFFF_FFFF == 0x8000_0000)
        #expect(NTPTimestamp(rawValue: 0x0192_a3b4_c5d6_e7f8).reportID == 0xa3b4_c5d6)
        let timeline = NTPTimeline(local: .seconds(10), wallClock: .seconds(1_700_000_000))
        #expect(timeline.local(of: timeline.ntp(at: .seconds(12) + .milliseconds(250))) == .seconds(12) + .milliseconds(250))
    }

    @Test("A timeline read from two clocks keeps the tightest of its reads, the wall time halfway")
    func sampling() {
        // Wall-clock reads around each local read: a thread preempted for 8 ms, then 4 ms, then 2 µs, then 1 ms.
        let walls: [Duration] = [.seconds(100), .seconds(100) + .milliseconds(8),
                                 .seconds(200), .seconds(200) + .milliseconds(4),
                                 .seconds(300), .seconds(300) + .microseconds(2),
                                 .seconds(400), .seconds(400) + .milliseconds(1)]
        var wallIndex = 0
        var localIndex = 0
        let timeline = NTPTimeline.sampling(
            local: { localIndex += 1; return .seconds(localIndex) },
            wallClock: { defer { wallIndex += 1 }; return walls[wallIndex] }, tries: 4)
        #expect(timeline.localOrigin == .seconds(3))
        #expect(timeline.wallClockAtOrigin == .seconds(300) + .microseconds(1))
        let system = NTPTimeline.sampling(local: { .zero })
        #expect(system.wallClockAtOrigin > .seconds(1_700_000_000))
    }
}
