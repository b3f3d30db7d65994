import CastStreaming
import Testing

/// The sender machine against the receiver machine, in memory, with a network that can lose datagrams.
@Suite("Stream sender: frames out, feedback in, loss and back-pressure")
struct StreamSenderTests {
    static let key: [UInt8] = Array(repeating: 0x55, count: 16)
    static let mask: [UInt8] = (0..<16).map { UInt8($0 &* 17) }
    static let timeline = NTPTimeline(local: .zero, wallClock: .seconds(1_700_000_000))

    static func pair(delay: Duration = .milliseconds(400)) throws -> (StreamSender, StreamReceiver) {
        let crypto = try FrameCrypto(key: key, ivMask: mask)
        let sender = StreamSender(configuration: .init(
            senderSSRC: 10, receiverSSRC: 11, payloadType: 100, timeBase: 90_000, targetDelay: delay, crypto: crypto,
            ntpTimeline: timeline, maximumPacketSize: 200), firstSequenceNumber: 1)
        let receiver = StreamReceiver(configuration: .init(
            senderSSRC: 10, receiverSSRC: 11, timeBase: 90_000, targetDelay: delay, crypto: crypto, sendsPictureLoss: true,
            ntpTimeline: timeline))
        return (sender, receiver)
    }

    /// Moves datagrams between the two, losing those `lose` says, and returns the frames played.
    struct Link {
        var sender: StreamSender
        var receiver: StreamReceiver
        var lose: (Int, [UInt8]) -> Bool = { _, _ in false }
        var count = 0
        var played: [ReceivedFrame] = []
        var skipped = 0

        mutating func toReceiver(_ actions: [StreamSender.Action], at now: Duration) throws {
            for action in actions {
                let bytes: [UInt8]
                switch action {
                case .sendRTP(let b), .sendRTCP(let b): bytes = b
                }
                count += 1
                if lose(count, bytes) { continue }
                let replies: [StreamReceiver.Action]
                if RTPPacket.looksLikeRTP(bytes) {
                    replies = receiver.receive(try RTPPacket(parsing: bytes), at: now)
                } else {
                    replies = receiver.receive(try RTCPPacket.parseCompound(bytes), at: now)
                }
                try toSender(replies, at: now)
            }
        }

        mutating func toSender(_ actions: [StreamReceiver.Action], at now: Duration) throws {
            for action in actions {
                switch action {
                case .sendRTCP(let bytes): try toReceiver(sender.receive(try RTCPPacket.parseCompound(bytes), at: now), at: now)
                case .play(let frame): played.append(frame)
                case .skip(let range): skipped += Int(range.upperBound.value - range.lowerBound.value + 1)
                }
            }
        }

        /// Runs both machines' timers up to `end`.
        mutating func run(until end: Duration, from start: inout Duration) throws {
            while true {
                let next = [sender.nextDeadline, receiver.nextDeadline].compactMap { $0 }.filter { $0 > start }.min()
                guard let next, next <= end else { break }
                start = next
                try toReceiver(sender.tick(now: next), at: next)
                try toSender(receiver.tick(now: next), at: next)
            }
            start = end
        }
    }

    static func frame(_ n: Int, key: Bool = false) -> StreamSender.Frame {
        StreamSender.Frame(data: (0..<700).map { UInt8(truncatingIfNeeded: $0 &+ n) }, isKeyFrame: key,
                           captureTime: .milliseconds(Int64(n) * 33), rtpTimestamp: Int64(n) * 3000)
    }

    @Test("Frames reach the receiver whole and in order; a sender report goes first; acknowledged frames leave the sender")
    func delivery() throws {
        var (sender, receiver) = try Self.pair()
        var link = Link(sender: sender, receiver: receiver)
        var now = Duration.zero
        for n in 0..<30 {
            now = .milliseconds(Int64(n) * 33)
            let sent = try link.sender.send(Self.frame(n, key: n == 0), at: now).get()
            if n == 0, case .sendRTCP = sent[0] {} else if n == 0 { Issue.record("no sender report before the first frame") }
            try link.toReceiver(sent, at: now)
            try link.run(until: now + .milliseconds(33), from: &now)
        }
        #expect(link.played.map(\.frameID.value) == Array(0..<30))
        #expect(link.played.allSatisfy { $0.data == Self.frame(Int($0.frameID.value)).data })
        #expect(link.sender.framesInFlight == 0)
        #expect(link.sender.statistics.framesAcknowledged == 30)
        #expect(link.sender.statistics.roundTripTime != nil)
        #expect(link.sender.statistics.retransmissions == 0)
        (sender, receiver) = (link.sender, link.receiver)
        _ = (sender, receiver)
    }

    @Test("A lost packet is NACKed, sent again a round trip later, and the frame completes")
    func retransmission() throws {
        let (sender, receiver) = try Self.pair()
        // The 8th datagram (a packet of an early frame) is lost once.
        var link = Link(sender: sender, receiver: receiver, lose: { count, _ in count == 8 })
        var now = Duration.zero
        for n in 0..<20 {
            now = .milliseconds(Int64(n) * 33)
            try link.toReceiver(try link.sender.send(Self.frame(n, key: n == 0), at: now).get(), at: now)
            try link.run(until: now + .milliseconds(33), from: &now)
        }
        try link.run(until: .seconds(2), from: &now)
        #expect(link.played.map(\.frameID.value) == Array(0..<20))
        #expect(link.sender.statistics.retransmissions >= 1)
        #expect(link.receiver.statistics.retransmissionsReceived >= 1)
        #expect(link.skipped == 0)
    }

    @Test("With the receiver silent, frames pile up until the sender refuses them, and it kickstarts")
    func backPressure() throws {
        let (sender, receiver) = try Self.pair(delay: .milliseconds(200))
        // Everything after the first frame is lost: no feedback for the later ones.
        var link = Link(sender: sender, receiver: receiver, lose: { count, _ in count > 6 })
        var now = Duration.zero
        var refused: [StreamSender.Refusal] = []
        for n in 0..<20 {
            now = .milliseconds(Int64(n) * 33)
            switch link.sender.send(Self.frame(n, key: n == 0), at: now) {
            case .success(let actions): try link.toReceiver(actions, at: now)
            case .failure(let refusal): refused.append(refusal)
            }
            try link.run(until: now + .milliseconds(33), from: &now)
        }
        #expect(!refused.isEmpty)
        if case .tooMuchMediaInFlight = refused[0] {} else { Issue.record("\(refused[0])") }
        #expect(link.sender.statistics.framesRefused == refused.count)
        #expect(link.sender.statistics.kickstarts > 0)
    }

    @Test("A picture-loss indication asks for a key frame until one is sent")
    func pictureLoss() throws {
        var (sender, _) = try Self.pair()
        #expect(sender.needsKeyFrame)  // the first frame
        _ = try sender.send(Self.frame(0, key: true), at: .zero).get()
        _ = try sender.send(Self.frame(1), at: .milliseconds(33)).get()
        #expect(!sender.needsKeyFrame)
        let feedback = CastFeedback(receiverSSRC: 11, senderSSRC: 10, checkpoint: FrameID(0), playoutDelay: 400, missing: [],
                                    received: [], feedbackCount: 0)
        _ = sender.receive([.pictureLoss(receiverSSRC: 11, senderSSRC: 10), .castFeedback(feedback)], at: .milliseconds(40))
        #expect(sender.needsKeyFrame)
        #expect(sender.statistics.pictureLossIndications == 1)
        _ = try sender.send(Self.frame(2, key: true), at: .milliseconds(66)).get()
        #expect(!sender.needsKeyFrame)
        // Another for a stranger's SSRC is ignored.
        _ = sender.receive([.pictureLoss(receiverSSRC: 99, senderSSRC: 10)], at: .milliseconds(70))
        #expect(sender.statistics.pictureLossIndications == 1)
    }

    @Test("The bit rate falls on reported loss or refused frames and rises when acknowledgements keep pace")
    func bitrate() {
        var controller = BitrateController(minimum: 300_000, maximum: 4_000_000, initial: 2_000_000)
        var stats = StreamSender.Statistics()
        #expect(controller.update(at: .zero, statistics: stats) == nil)
        stats.bytesAcknowledged = 250_000  // 2 Mbit in a second
        #expect(controller.update(at: .seconds(1), statistics: stats) == 2_200_000)
        stats.fractionLost = 40
        #expect(controller.update(at: .seconds(2), statistics: stats) == 1_760_000)
        stats.fractionLost = 0
        stats.framesRefused = 3
        #expect(controller.update(at: .seconds(3), statistics: stats) == 1_408_000)
        for second in 4..<40 { _ = controller.update(at: .seconds(Int64(second)), statistics: stats) }
        #expect(controller.current >= 300_000 && controller.current <= 4_000_000)
    }
}
