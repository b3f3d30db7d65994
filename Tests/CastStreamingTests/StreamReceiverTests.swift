import CastStreaming
import Testing

/// A sender's end in memory: frames encrypted and packetized as Open Screen's sender does, and sender
/// reports that tie its RTP clock to its wall clock.
struct FakeSender {
    let ssrc: UInt32 = 0x1234
    let timeBase = 90_000
    let crypto: FrameCrypto
    var packetizer: RTPPacketizer
    /// The sender's wall clock at its time 0 (what it writes in sender reports).
    let wallClock = Duration.seconds(1_700_000_000)

    init() throws {
        crypto = try FrameCrypto(key: Array(repeating: 0x11, count: 16), ivMask: (0..<16).map { UInt8($0) })
        packetizer = RTPPacketizer(payloadType: 100, ssrc: 0x1234, maximumPacketSize: 100, firstSequenceNumber: 10)
    }

    /// Frame `n`, captured at n/30 s, `size` bytes (a key frame references itself).
    func plaintext(_ n: Int64, size: Int = 250) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: Int($0) &+ Int(n) &* 31) } }

    mutating func packets(_ n: Int64, key: Bool = false, reference: Int64? = nil, size: Int = 250) -> [RTPPacket] {
        let frame = RTPPacketizer.Frame(
            frameID: FrameID(n), referencedFrameID: FrameID(reference ?? (key ? n : n - 1)), isKeyFrame: key,
            rtpTimestamp: n * 3000, data: crypto.crypt(plaintext(n, size: size), frame: FrameID(n)))
        return packetizer.packets(of: frame)
    }

    /// A sender report written at sender time `at` (RTP timestamp of that moment).
    func report(at time: Duration) -> [RTCPPacket] {
        let seconds = Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
        return [.senderReport(SenderReport(ssrc: ssrc, ntpTime: NTPTimestamp(sinceUnixEpoch: wallClock + time),
                                           rtpTimestamp: UInt32(seconds * 90_000), packetCount: 0, octetCount: 0))]
    }
}

@Suite("Stream receiver: frames, feedback, loss and playout")
struct StreamReceiverTests {
    /// A receiver whose clock reads the same as the sender's (its `now` = the sender's time + 5 ms of travel).
    static func receiver(_ sender: FakeSender, delay: Duration = .milliseconds(400)) -> StreamReceiver {
        StreamReceiver(configuration: .init(
            senderSSRC: sender.ssrc, receiverSSRC: sender.ssrc + 1, timeBase: 90_000, targetDelay: delay,
            crypto: sender.crypto, sendsPictureLoss: true))
    }

    static func played(_ actions: [StreamReceiver.Action]) -> [ReceivedFrame] {
        actions.compactMap { if case .play(let frame) = $0 { frame } else { nil } }
    }

    static func feedback(_ actions: [StreamReceiver.Action]) throws -> [CastFeedback] {
        try actions.flatMap { action -> [CastFeedback] in
            guard case .sendRTCP(let bytes) = action else { return [] }
            return try RTCPPacket.parseCompound(bytes).compactMap { if case .castFeedback(let f) = $0 { f } else { nil } }
        }
    }

    static func hasPictureLoss(_ actions: [StreamReceiver.Action]) throws -> Bool {
        try actions.contains { action in
            guard case .sendRTCP(let bytes) = action else { return false }
            return try RTCPPacket.parseCompound(bytes).contains { if case .pictureLoss = $0 { true } else { false } }
        }
    }

    @Test("Frames in order play at once, decrypted, timed from the sender report; feedback acknowledges them")
    func inOrder() throws {
        var sender = try FakeSender()
        var receiver = Self.receiver(sender)
        let start = Duration.seconds(100)  // the receiver's clock: any origin
        let reportActions = receiver.receive(sender.report(at: .zero), at: start + .milliseconds(5))
        #expect(try Self.feedback(reportActions).count == 1)
        var frames: [ReceivedFrame] = []
        var acks: [CastFeedback] = []
        for n in Int64(0)..<5 {
            for packet in sender.packets(n, key: n == 0) {
                let actions = receiver.receive(packet, at: start + .milliseconds(Int64(n) * 33 + 6))
                frames += Self.played(actions)
                acks += try Self.feedback(actions)
            }
        }
        #expect(frames.map(\.frameID.value) == [0, 1, 2, 3, 4])
        for frame in frames {
            #expect(frame.data == sender.plaintext(frame.frameID.value))
            #expect(frame.rtpTimestamp == frame.frameID.value * 3000)
            #expect(frame.playoutTime - frame.captureTime == .milliseconds(400))
            #expect(!frame.isLate)
        }
        // Capture time: the report's moment on the receiver's clock (5 ms of travel included), plus the RTP offset.
        #expect(frames[3].captureTime == start + .milliseconds(5) + .milliseconds(100))
        #expect(acks.last?.checkpoint == 4)
        #expect(receiver.statistics.framesReceived == 5)
        #expect(receiver.statistics.retransmissionsRequested == 0)
        #expect(receiver.nextDeadline == start + .milliseconds(4 * 33 + 6) + StreamReceiver.reportInterval)
    }

    @Test("A lost packet is NACKed every 30 ms until it comes again; later frames wait for it")
    func nackAndRetransmission() throws {
        var sender = try FakeSender()
        var receiver = Self.receiver(sender)
        _ = receiver.receive(sender.report(at: .zero), at: .zero)
        for packet in sender.packets(0, key: true) { _ = receiver.receive(packet, at: .milliseconds(1)) }
        let frame1 = sender.packets(1)
        #expect(frame1.count == 4)
        for packet in frame1 where packet.packetID != 2 { _ = receiver.receive(packet, at: .milliseconds(34)) }
        var waiting: [ReceivedFrame] = []
        for packet in sender.packets(2) { waiting += Self.played(receiver.receive(packet, at: .milliseconds(67))) }
        #expect(waiting.isEmpty)
        let deadline = try #require(receiver.nextDeadline)
        let tick = receiver.tick(now: deadline)
        let nack = try #require(Self.feedback(tick).last)
        #expect(nack.missing(after: FrameID(0)).map { "\($0.frame.value):\($0.packet.map(String.init) ?? "all")" } == ["1:2"])
        #expect(nack.received(after: FrameID(0)).map(\.value) == [2])
        // Next: feedback again in 30 ms, or frame 1 falling due (captured at 3000/90000 s, due 400 ms later), whichever first.
        #expect(receiver.nextDeadline == min(deadline + StreamReceiver.nackInterval, .nanoseconds(433_333_333)))
        let resent = try #require(frame1.first { $0.packetID == 2 })
        let after = receiver.receive(resent, at: deadline + .milliseconds(2))
        #expect(Self.played(after).map(\.frameID.value) == [1, 2])
        #expect(try Self.feedback(after).last?.checkpoint == 2)
        #expect(receiver.statistics.retransmissionsReceived == 1)
        #expect(receiver.statistics.retransmissionsRequested >= 1)
    }

    @Test("A frame lost whole is NACKed whole; its packets that come again count as retransmissions (one-packet audio frames)")
    func wholeFrameRetransmission() throws {
        var sender = try FakeSender()
        var receiver = Self.receiver(sender)
        _ = receiver.receive(sender.report(at: .zero), at: .zero)
        for packet in sender.packets(0, key: true, size: 40) { _ = receiver.receive(packet, at: .milliseconds(1)) }
        let lost = sender.packets(1, size: 40)
        #expect(lost.count == 1)
        for packet in sender.packets(2, size: 40) { _ = receiver.receive(packet, at: .milliseconds(67)) }
        let deadline = try #require(receiver.nextDeadline)
        let nack = try #require(Self.feedback(receiver.tick(now: deadline)).last)
        #expect(nack.missing(after: FrameID(0)).map { "\($0.frame.value):\($0.packet.map(String.init) ?? "all")" } == ["1:all"])
        let after = receiver.receive(lost[0], at: deadline + .milliseconds(2))
        #expect(Self.played(after).map(\.frameID.value) == [1, 2])
        #expect(receiver.statistics.retransmissionsReceived == 1)
    }

    @Test("An incomplete frame that falls due is skipped for a later key frame; a later delta frame waits and asks for one")
    func skipAndPictureLoss() throws {
        var sender = try FakeSender()
        var receiver = Self.receiver(sender, delay: .milliseconds(100))
        _ = receiver.receive(sender.report(at: .zero), at: .zero)
        for packet in sender.packets(0, key: true) { _ = receiver.receive(packet, at: .milliseconds(1)) }
        // Frame 1 loses its second packet for good; frame 2 depends on it.
        for packet in sender.packets(1) where packet.packetID != 1 { _ = receiver.receive(packet, at: .milliseconds(34)) }
        for packet in sender.packets(2) { _ = receiver.receive(packet, at: .milliseconds(67)) }
        // Frame 1 is due at 33 + 100 ms with nothing decodable after it: it may still complete, so the
        // receiver waits a quarter of the playout delay, then asks for a key frame.
        let due = receiver.tick(now: .milliseconds(134))
        #expect(Self.played(due).isEmpty)
        #expect(try !Self.hasPictureLoss(due))
        #expect(receiver.nextDeadline == .nanoseconds(33_333_333 + 100_000_000 + 25_000_000))
        let stuck = receiver.tick(now: .milliseconds(160))
        #expect(try Self.hasPictureLoss(stuck))
        #expect(receiver.statistics.pictureLossIndications == 1)
        // The sender answers with a key frame (3): frames 1 and 2 are skipped, 3 plays.
        var actions: [StreamReceiver.Action] = []
        for packet in sender.packets(3, key: true) { actions += receiver.receive(packet, at: .milliseconds(140)) }
        #expect(actions.contains(.skip(FrameID(1)...FrameID(2))))
        #expect(Self.played(actions).map(\.frameID.value) == [3])
        #expect(receiver.statistics.framesDropped == 2)
        #expect(try Self.feedback(actions).last?.checkpoint == 3)
        // No picture loss asked again once the key frame came.
        #expect(try !Self.hasPictureLoss(receiver.tick(now: .seconds(1))))
    }

    @Test("A frame that fell due and cannot be skipped is not reported as a deadline again (no timer loop)")
    func noPastDeadlines() throws {
        var sender = try FakeSender()
        var receiver = Self.receiver(sender, delay: .milliseconds(100))
        _ = receiver.receive(sender.report(at: .zero), at: .zero)
        for packet in sender.packets(0, key: true) { _ = receiver.receive(packet, at: .milliseconds(1)) }
        for packet in sender.packets(1) where packet.packetID != 1 { _ = receiver.receive(packet, at: .milliseconds(34)) }
        var now = Duration.milliseconds(34)
        // Follow the deadlines as a shell does: each is later than the instant before, for a second.
        var ticks = 0
        while let deadline = receiver.nextDeadline, deadline <= .seconds(1) {
            #expect(deadline > now, "deadline \(deadline) at \(now)")
            now = deadline
            _ = receiver.tick(now: now)
            ticks += 1
            if ticks > 100 { break }
        }
        #expect(ticks < 50, "\(ticks) ticks in a second: feedback every 30 ms and the frame's two instants")
    }

    @Test("Before a sender report, packet 0 is refused; the window, SSRC and packet count are enforced")
    func refusals() throws {
        var sender = try FakeSender()
        var receiver = Self.receiver(sender)
        let early = sender.packets(0, key: true)
        for packet in early { _ = receiver.receive(packet, at: .zero) }
        #expect(receiver.statistics.packetsRefused == 1)
        #expect(receiver.statistics.framesReceived == 0)
        _ = receiver.receive(sender.report(at: .zero), at: .milliseconds(1))
        let played = Self.played(receiver.receive(early[0], at: .milliseconds(2)))
        #expect(played.map(\.frameID.value) == [0])
        // A frame beyond the window of 120.
        var far = sender.packets(121, key: true)[0]
        far.frameID = FrameID(125).low8
        _ = receiver.receive(far, at: .milliseconds(3))
        #expect(receiver.statistics.packetsRefused == 2)
        var stranger = sender.packets(1)[0]
        stranger.ssrc = 99
        _ = receiver.receive(stranger, at: .milliseconds(4))
        #expect(receiver.statistics.packetsRefused == 3)
        // A packet claiming another packet count than its frame's first.
        let frame1 = sender.packets(1)
        _ = receiver.receive(frame1[0], at: .milliseconds(5))
        var odd = frame1[1]
        odd.maxPacketID += 3
        _ = receiver.receive(odd, at: .milliseconds(5))
        #expect(receiver.statistics.packetsRefused == 4)
        // A duplicate.
        _ = receiver.receive(frame1[0], at: .milliseconds(6))
        #expect(receiver.statistics.duplicatePackets == 1)
    }

    @Test("The receiver report after a sender report quotes it")
    func receiverReport() throws {
        let sender = try FakeSender()
        var receiver = Self.receiver(sender)
        let report = sender.report(at: .seconds(2))
        let actions = receiver.receive(report, at: .seconds(3))
        guard case .sendRTCP(let bytes) = try #require(actions.first) else { Issue.record("\(actions)"); return }
        let packets = try RTCPPacket.parseCompound(bytes)
        guard case .receiverReport(let ssrc, let blocks) = packets[0], case .senderReport(let sr) = report[0] else {
            Issue.record("\(packets)")
            return
        }
        #expect(ssrc == sender.ssrc + 1)
        #expect(blocks.first?.lastReportID == sr.ntpTime.reportID)
        #expect(packets.contains { if case .receiverReferenceTime = $0 { true } else { false } })
    }
}
