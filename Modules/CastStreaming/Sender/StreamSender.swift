/// The sending side of one Cast Streaming stream, as a state machine.
///
/// It takes encoded frames, RTCP from the receiver and the passing of time, and returns datagrams to
/// send: each frame encrypted and cut into RTP packets, sender reports every 500 ms (and before the
/// first frame, so the receiver can place it in time), packets the receiver NACKs sent again once a
/// round trip has passed since they last went out, and a "kickstart" (the last frame's last packet
/// again) when the receiver has not shown it knows the newest frame. It tells the encoder when the
/// receiver lost the picture (a key frame is due), and refuses frames when too much media is in flight
/// (more than half the playout delay plus half a round trip, or 120 frames), so a sender that falls
/// behind drops frames instead of queueing them. It does no I/O and reads no clock.
///
/// It follows Open Screen's sender (`cast/streaming/sender.cc`).
public struct StreamSender: Sendable {
    /// What the sender needs to know about the stream, from the OFFER and ANSWER.
    public struct Configuration: Sendable {
        /// This sender's SSRC.
        public var senderSSRC: UInt32
        /// The receiver's SSRC (from the ANSWER).
        public var receiverSSRC: UInt32
        /// The RTP payload type.
        public var payloadType: UInt8
        /// RTP ticks per second.
        public var timeBase: Int
        /// The target playout delay.
        public var targetDelay: Duration
        /// The stream's frame encryption.
        public var crypto: FrameCrypto
        /// Maps `now` onto the NTP timeline of sender reports.
        public var ntpTimeline: NTPTimeline
        /// The largest RTP packet sent.
        public var maximumPacketSize: Int

        /// Creates a configuration.
        public init(senderSSRC: UInt32, receiverSSRC: UInt32, payloadType: UInt8, timeBase: Int, targetDelay: Duration,
                    crypto: FrameCrypto, ntpTimeline: NTPTimeline, maximumPacketSize: Int = RTPPacket.maximumSize) {
            self.senderSSRC = senderSSRC
            self.receiverSSRC = receiverSSRC
            self.payloadType = payloadType
            self.timeBase = max(1, timeBase)
            self.targetDelay = targetDelay
            self.crypto = crypto
            self.ntpTimeline = ntpTimeline
            self.maximumPacketSize = maximumPacketSize
        }
    }

    /// An encoded frame to send.
    public struct Frame: Sendable, Hashable {
        /// The encoded bytes (not yet encrypted).
        public var data: [UInt8]
        /// Whether it is a key frame (decodable alone).
        public var isKeyFrame: Bool
        /// When it was captured, on the sender's clock (`now`'s timeline).
        public var captureTime: Duration
        /// Its RTP timestamp (capture time in the stream's time base, from the stream's origin).
        public var rtpTimestamp: Int64

        /// Creates a frame.
        public init(data: [UInt8], isKeyFrame: Bool, captureTime: Duration, rtpTimestamp: Int64) {
            self.data = data
            self.isKeyFrame = isKeyFrame
            self.captureTime = captureTime
            self.rtpTimestamp = rtpTimestamp
        }
    }

    /// What the I/O shell must do.
    public enum Action: Sendable, Hashable {
        /// Send this RTP packet.
        case sendRTP([UInt8])
        /// Send this RTCP datagram (a sender report).
        case sendRTCP([UInt8])
    }

    /// Why a frame was not taken.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// 120 frames are already in flight.
        case tooManyFramesInFlight
        /// The media in flight would last longer than the sender may keep unacknowledged.
        case tooMuchMediaInFlight(Duration)
        /// The frame needs more packets than a frame may have.
        case frameTooLarge

        /// `too much media in flight (0.25 seconds)`.
        public var description: String {
            switch self {
            case .tooManyFramesInFlight: "too many frames in flight"
            case .tooMuchMediaInFlight(let duration): "too much media in flight (\(duration))"
            case .frameTooLarge: "frame too large"
            }
        }
    }

    /// What the sender counted.
    public struct Statistics: Sendable, Hashable, CustomStringConvertible {
        /// Frames taken and sent.
        public var framesSent = 0
        /// Frames refused (in flight too long, too many).
        public var framesRefused = 0
        /// Frames the receiver acknowledged (by checkpoint or ACK).
        public var framesAcknowledged = 0
        /// RTP packets sent, retransmissions and kickstarts included.
        public var packetsSent = 0
        /// Packets sent again because the receiver NACKed them.
        public var retransmissions = 0
        /// Packets sent again to show the receiver the newest frame.
        public var kickstarts = 0
        /// NACKed packets the receiver asked for.
        public var nacksReceived = 0
        /// Picture-loss indications received.
        public var pictureLossIndications = 0
        /// Payload bytes the receiver acknowledged.
        public var bytesAcknowledged = 0
        /// The receiver's last report of the fraction of packets lost, in 1/256ths.
        public var fractionLost: UInt8 = 0
        /// The smoothed round-trip time, once measured.
        public var roundTripTime: Duration?

        /// Creates zeroed statistics.
        public init() {}

        /// `frames 240 (refused 2, acked 238), packets 700 (resent 12, kickstarts 0), NACKs 14, PLI 0, RTT 1.2 ms`.
        public var description: String {
            let rtt = roundTripTime.map { String(format: "%.1f ms", Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000) } ?? "?"
            return "frames \(framesSent) (refused \(framesRefused), acked \(framesAcknowledged)), packets \(packetsSent) (resent \(retransmissions), kickstarts \(kickstarts)), NACKs \(nacksReceived), PLI \(pictureLossIndications), RTT \(rtt)"
        }
    }

    /// Frames beyond the receiver's checkpoint the sender keeps at most.
    public static let maximumFramesInFlight = 120
    /// How often sender reports go out.
    public static let reportInterval = Duration.milliseconds(500)

    public let configuration: Configuration
    /// What the sender counted.
    public private(set) var statistics = Statistics()

    private var packetizer: RTPPacketizer
    private var slots: [Int64: Slot] = [:]
    private var checkpoint = FrameID.leader
    private var lastEnqueued = FrameID.leader
    private var latestExpected = FrameID.leader
    private var lastKeyFrame = FrameID.leader
    private var pictureLostAt: FrameID?
    private var lastFrame: (rtpTimestamp: Int64, captureTime: Duration)?
    private var reportsSent: [(id: UInt32, at: Duration)] = []
    private var nextReport: Duration?
    private var packetCount: UInt32 = 0
    private var octetCount: UInt32 = 0

    private struct Slot: Sendable {
        var frame: RTPPacketizer.Frame
        var captureTime: Duration
        var sentAt: [Duration?]
    }

    /// Creates a sender for one negotiated stream.
    public init(configuration: Configuration, firstSequenceNumber: UInt16 = UInt16.random(in: 0...UInt16.max)) {
        self.configuration = configuration
        packetizer = RTPPacketizer(payloadType: configuration.payloadType, ssrc: configuration.senderSSRC,
                                   maximumPacketSize: configuration.maximumPacketSize, firstSequenceNumber: firstSequenceNumber)
    }

    // MARK: State

    /// Whether the next frame should be a key frame: the receiver lost the picture since the last one.
    public var needsKeyFrame: Bool {
        guard let lost = pictureLostAt else { return lastKeyFrame == .leader }
        return lastKeyFrame <= lost
    }

    /// The id the next frame will get.
    public var nextFrameID: FrameID { lastEnqueued.advanced(by: 1) }

    /// Frames sent and not yet acknowledged.
    public var framesInFlight: Int { slots.count }

    /// How much media the frames in flight hold, had a frame with `rtpTimestamp` been added.
    public func mediaInFlight(before rtpTimestamp: Int64) -> Duration {
        guard let oldest = slots[checkpoint.value + 1] ?? slots.min(by: { $0.key < $1.key })?.value else { return .zero }
        let ticks = rtpTimestamp - oldest.frame.rtpTimestamp
        return .nanoseconds(ticks * 1_000_000_000 / Int64(configuration.timeBase))
    }

    /// The most media the sender keeps unacknowledged: half the playout delay plus half a round trip.
    public var maximumMediaInFlight: Duration {
        configuration.targetDelay / 2 + (statistics.roundTripTime ?? .zero) / 2
    }

    /// The next instant ``tick(now:)`` has something to do (a sender report, a kickstart).
    public var nextDeadline: Duration? {
        var earliest = nextReport
        if let kickstart = kickstartTime, earliest.map({ kickstart < $0 }) ?? true { earliest = kickstart }
        return earliest
    }

    // MARK: Inputs

    /// Sends a frame: encrypts it, cuts it into packets and returns them (after a sender report when
    /// none was sent yet); or refuses it when too much is in flight.
    public mutating func send(_ frame: Frame, at now: Duration) -> Result<[Action], Refusal> {
        let frameID = nextFrameID
        guard frameID.value - checkpoint.value <= Int64(Self.maximumFramesInFlight) else {
            statistics.framesRefused += 1
            return .failure(.tooManyFramesInFlight)
        }
        let inFlight = mediaInFlight(before: frame.rtpTimestamp)
        if !slots.isEmpty, inFlight > maximumMediaInFlight {
            statistics.framesRefused += 1
            return .failure(.tooMuchMediaInFlight(inFlight))
        }
        guard packetizer.packetCount(forFrameOf: frame.data.count) <= Int(RTPPacket.allPacketsLost) - 1 else {
            statistics.framesRefused += 1
            return .failure(.frameTooLarge)
        }
        let packetized = RTPPacketizer.Frame(
            frameID: frameID, referencedFrameID: frame.isKeyFrame ? frameID : lastEnqueued, isKeyFrame: frame.isKeyFrame,
            rtpTimestamp: frame.rtpTimestamp, data: configuration.crypto.crypt(frame.data, frame: frameID))
        var actions: [Action] = []
        lastEnqueued = frameID
        if frame.isKeyFrame { lastKeyFrame = frameID }
        lastFrame = (frame.rtpTimestamp, frame.captureTime)
        statistics.framesSent += 1
        // The receiver needs a sender report to place the first frame in time: one goes out first while
        // no round trip has been measured (no report of ours has come back yet).
        if statistics.roundTripTime == nil || nextReport == nil { actions.append(senderReport(at: now)) }
        var slot = Slot(frame: packetized, captureTime: frame.captureTime, sentAt: [])
        for packet in packetizer.packets(of: packetized) {
            actions.append(.sendRTP(packet.serialized()))
            slot.sentAt.append(now)
            count(packet)
        }
        slots[frameID.value] = slot
        return .success(actions)
    }

    /// RTCP from the receiver: reports, feedback, picture loss.
    public mutating func receive(_ packets: [RTCPPacket], at now: Duration) -> [Action] {
        var actions: [Action] = []
        var pictureLost = false
        // As Open Screen's parser hands them over: reports and feedback first, picture loss last (judged
        // against the checkpoint the same datagram carries).
        for packet in packets {
            switch packet {
            case .receiverReport(let ssrc, let blocks) where ssrc == configuration.receiverSSRC:
                if let block = blocks.first(where: { $0.ssrc == configuration.senderSSRC }) { noteReport(block, at: now) }
            case .pictureLoss(let receiver, let sender) where receiver == configuration.receiverSSRC && sender == configuration.senderSSRC:
                pictureLost = true
            case .castFeedback(let feedback) where feedback.receiverSSRC == configuration.receiverSSRC && feedback.senderSSRC == configuration.senderSSRC:
                actions += handle(feedback, at: now)
            default:
                continue
            }
        }
        if pictureLost {
            statistics.pictureLossIndications += 1
            // A key frame already on its way answers it.
            if checkpoint >= lastKeyFrame { pictureLostAt = checkpoint }
        }
        return actions
    }

    /// Time passed: a sender report when one is due, a kickstart when the receiver seems not to know
    /// the newest frame.
    public mutating func tick(now: Duration) -> [Action] {
        var actions: [Action] = []
        if let due = nextReport, due <= now { actions.append(senderReport(at: now)) }
        if let due = kickstartTime, due <= now, var slot = slots[lastEnqueued.value] {
            let last = slot.sentAt.count - 1
            let packet = packetizer.packet(last, of: slot.frame)
            actions.append(.sendRTP(packet.serialized()))
            slot.sentAt[last] = now
            slots[lastEnqueued.value] = slot
            count(packet)
            statistics.kickstarts += 1
        }
        return actions
    }

    // MARK: Feedback

    private mutating func handle(_ feedback: CastFeedback, at now: Duration) -> [Action] {
        let reported = feedback.checkpointFrame(atOrBelow: lastEnqueued)
        guard reported <= lastEnqueued else { return [] }
        while checkpoint < reported {
            checkpoint = checkpoint.advanced(by: 1)
            acknowledge(checkpoint)
        }
        latestExpected = max(latestExpected, checkpoint)
        for frame in feedback.received(after: checkpoint) where frame <= lastEnqueued {
            acknowledge(frame)
            latestExpected = max(latestExpected, frame)
        }
        var actions: [Action] = []
        let tooRecent = now - (statistics.roundTripTime ?? .zero)
        for (frame, packet) in feedback.missing(after: checkpoint) where frame <= lastEnqueued {
            guard var slot = slots[frame.value] else { continue }
            latestExpected = max(latestExpected, frame)
            let packets: [Int] = packet.map { Int($0) < slot.sentAt.count ? [Int($0)] : [] } ?? Array(slot.sentAt.indices)
            for index in packets {
                statistics.nacksReceived += 1
                // A NACK sent while the packet was still on its way is stale: only resend what went out a
                // round trip ago or earlier.
                guard let sent = slot.sentAt[index], sent <= tooRecent else { continue }
                let resent = packetizer.packet(index, of: slot.frame)
                actions.append(.sendRTP(resent.serialized()))
                slot.sentAt[index] = now
                count(resent)
                statistics.retransmissions += 1
            }
            slots[frame.value] = slot
        }
        return actions
    }

    private mutating func acknowledge(_ frame: FrameID) {
        guard let slot = slots.removeValue(forKey: frame.value) else { return }
        statistics.framesAcknowledged += 1
        statistics.bytesAcknowledged += slot.frame.data.count
    }

    private mutating func noteReport(_ block: ReportBlock, at now: Duration) {
        statistics.fractionLost = block.fractionLost
        guard let sent = reportsSent.last(where: { $0.id == block.lastReportID })?.at else { return }
        let processing = Duration.nanoseconds(Int64(block.delaySinceLastReport) * 1_000_000_000 / 65_536)
        let measured = max(now - sent - processing, .microseconds(75))
        guard measured <= configuration.targetDelay else { return }  // implausible: ignored, as Open Screen does
        if let current = statistics.roundTripTime {
            statistics.roundTripTime = (current * 7 + measured) / 8
        } else {
            statistics.roundTripTime = measured
        }
    }

    // MARK: Sending

    private var kickstartTime: Duration? {
        guard latestExpected < lastEnqueued, let slot = slots[lastEnqueued.value], let sent = slot.sentAt.last ?? nil else { return nil }
        let interval = max(configuration.targetDelay / 20, (statistics.roundTripTime ?? .zero) * 2)
        return sent + interval
    }

    private mutating func senderReport(at now: Duration) -> Action {
        nextReport = now + Self.reportInterval
        // The RTP timestamp of `now`, from the last frame's capture (lip sync).
        var rtp: Int64 = 0
        if let last = lastFrame {
            let elapsed = now - last.captureTime
            rtp = last.rtpTimestamp + Int64((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * Double(configuration.timeBase))
        }
        let ntp = configuration.ntpTimeline.ntp(at: now)
        reportsSent.append((ntp.reportID, now))
        if reportsSent.count > 16 { reportsSent.removeFirst(reportsSent.count - 16) }
        let report = SenderReport(ssrc: configuration.senderSSRC, ntpTime: ntp, rtpTimestamp: UInt32(truncatingIfNeeded: rtp),
                                  packetCount: packetCount, octetCount: octetCount)
        return .sendRTCP(RTCPPacket.serializeCompound([.senderReport(report)]))
    }

    private mutating func count(_ packet: RTPPacket) {
        statistics.packetsSent += 1
        packetCount &+= 1
        octetCount &+= UInt32(packet.payload.count)
    }
}
