/// The receiving side of one Cast Streaming stream (audio or video), as a state machine.
///
/// It takes RTP packets, RTCP packets and the passing of time, and returns what to do: RTCP to send
/// back (receiver report, reference time, picture-loss indication, Cast feedback with the checkpoint,
/// NACKs of missing packets and ACKs of later whole frames), frames to hand to the player in order,
/// decrypted, with their capture and playout times, and frames skipped because they were still
/// incomplete when due. It does no I/O and reads no clock: every input carries `now`, the receiver's
/// time as a `Duration` since any origin.
///
/// It follows Open Screen's receiver (`cast/streaming/receiver.cc`): a window of at most
/// ``maximumPendingFrames`` frames beyond the last one played; packet 0 of a frame is held back until
/// a sender report has placed the stream in time; feedback every 30 ms while frames are incomplete,
/// every 500 ms otherwise (and within 30 ms of a packet that shows an earlier frame is missing pieces,
/// where Open Screen waits for the next report); an incomplete frame that is due is skipped when a
/// later whole frame does not depend on it, and a key frame is asked for when it stays stuck.
public struct StreamReceiver: Sendable {
    /// What the receiver needs to know about the stream, from the OFFER and ANSWER.
    public struct Configuration: Sendable {
        /// The sender's SSRC (packets with another are refused).
        public var senderSSRC: UInt32
        /// This receiver's SSRC (the sender's + 1, as Open Screen's receiver chooses).
        public var receiverSSRC: UInt32
        /// RTP ticks per second.
        public var timeBase: Int
        /// The target playout delay.
        public var targetDelay: Duration
        /// The stream's frame encryption.
        public var crypto: FrameCrypto
        /// Whether picture-loss indications may be sent (video).
        public var sendsPictureLoss: Bool
        /// The largest frame accepted, in bytes (packets of a larger frame are refused).
        public var maximumFrameBytes: Int
        /// The most bytes held in incomplete frames at once.
        public var maximumBufferedBytes: Int
        /// The wall-clock time (since the Unix epoch) at the receiver's `now` = 0, for the NTP
        /// timestamps of its reference-time reports.
        public var ntpTimeline: NTPTimeline

        /// Creates a configuration.
        public init(senderSSRC: UInt32, receiverSSRC: UInt32, timeBase: Int, targetDelay: Duration, crypto: FrameCrypto,
                    sendsPictureLoss: Bool, maximumFrameBytes: Int = 8 << 20, maximumBufferedBytes: Int = 64 << 20,
                    ntpTimeline: NTPTimeline = NTPTimeline(local: .zero, wallClock: .zero)) {
            self.senderSSRC = senderSSRC
            self.receiverSSRC = receiverSSRC
            self.timeBase = max(1, timeBase)
            self.targetDelay = targetDelay
            self.crypto = crypto
            self.sendsPictureLoss = sendsPictureLoss
            self.maximumFrameBytes = maximumFrameBytes
            self.maximumBufferedBytes = maximumBufferedBytes
            self.ntpTimeline = ntpTimeline
        }
    }

    /// What the I/O shell must do.
    public enum Action: Sendable, Hashable {
        /// Send this compound RTCP datagram to the sender.
        case sendRTCP([UInt8])
        /// Hand this frame to the player.
        case play(ReceivedFrame)
        /// These frames were skipped: still incomplete when due.
        case skip(ClosedRange<FrameID>)
    }

    /// Frames beyond the last one played that the receiver holds at most (Open Screen's `kMaxUnackedFrames`).
    public static let maximumPendingFrames = 120
    /// How often feedback is sent while frames are incomplete.
    public static let nackInterval = Duration.milliseconds(30)
    /// How often a report is sent otherwise.
    public static let reportInterval = Duration.milliseconds(500)

    public let configuration: Configuration
    /// What the receiver counted.
    public private(set) var statistics = StreamReceiverStatistics()

    private var pending: [Int64: PendingFrame] = [:]
    private var bufferedBytes = 0
    private var lastPlayed = FrameID.leader
    private var checkpoint = FrameID.leader
    private var latestExpected = FrameID.leader
    private var highestSeenFrame = FrameID.leader
    private var rtpExpander = RTPTimestampExpander()
    private var senderReport: (ntp: NTPTimestamp, rtpTimestamp: Int64, arrival: Duration)?
    private var clockOffset: ClockOffsetSmoother?
    private var delayChanges: [(frame: FrameID, delay: Duration)]
    private var pictureLost = false
    private var lastKeyFrame: FrameID?
    private var nextFeedback: Duration?
    private var feedbackCount: UInt8 = 0
    private var reportBlockPending = false
    private var nacked: Set<PacketKey> = []
    /// Frames NACKed whole (none of their packets had come): any packet of theirs that comes counts as
    /// a retransmission.
    private var nackedFrames: Set<Int64> = []
    private var sequence = SequenceStatistics()
    /// The latest `now` an input carried: a due time at or before it has been acted on already.
    private var evaluatedAt: Duration?

    private struct PacketKey: Hashable, Sendable {
        var frame: Int64
        var packet: UInt16
    }

    /// Creates a receiver for one negotiated stream.
    public init(configuration: Configuration) {
        self.configuration = configuration
        delayChanges = [(FrameID.leader, configuration.targetDelay)]
    }

    /// The next instant ``tick(now:)`` has something to do: feedback, or a frame that falls due.
    ///
    /// Always later than the last input's `now`: a frame that fell due and could not be skipped (nothing
    /// decodable after it yet) was acted on then, and only a new packet changes that, so its due time
    /// is not reported again (a deadline in the past would have the shell call ``tick(now:)`` in a loop).
    public var nextDeadline: Duration? {
        var earliest = nextFeedback
        func consider(_ instant: Duration) {
            guard evaluatedAt.map({ instant > $0 }) ?? true, earliest.map({ instant < $0 }) ?? true else { return }
            earliest = instant
        }
        if let due = nextDueIncompleteFrame {
            consider(due)
            if !pictureLost { consider(due + pictureLossGrace) }
        }
        return earliest
    }

    /// How long a frame may stay due and incomplete, with nothing decodable after it, before a key frame
    /// is asked for: a quarter of the target playout delay.
    private var pictureLossGrace: Duration { configuration.targetDelay / 4 }

    /// The frame after the last played, its playout time, when it is incomplete and placed in time.
    private var nextDueIncompleteFrame: Duration? {
        let next = lastPlayed.advanced(by: 1)
        guard next <= latestExpected, let entry = pending[next.value], !entry.isComplete, let capture = entry.captureTime else { return nil }
        return capture + delay(for: next)
    }

    // MARK: Inputs

    /// An RTP packet arrived.
    public mutating func receive(_ packet: RTPPacket, at now: Duration) -> [Action] {
        evaluatedAt = max(evaluatedAt ?? now, now)
        guard packet.ssrc == configuration.senderSSRC else {
            statistics.packetsRefused += 1
            return []
        }
        let frameID = FrameID.expanded(packet.frameID, near: highestSeenFrame == .leader ? .first : highestSeenFrame)
        let rtpTimestamp = rtpExpander.peek(packet.rtpTimestamp)
        sequence.note(packet.sequenceNumber, rtpTimestamp: rtpTimestamp, arrival: now, timeBase: configuration.timeBase)
        statistics.packetsReceived += 1
        statistics.bytesReceived += packet.payload.count
        guard frameID > checkpoint else {
            statistics.duplicatePackets += 1  // a frame already whole (or skipped): a late retransmission
            return []
        }
        if frameID > latestExpected {
            guard frameID.value <= lastPlayed.value + Int64(Self.maximumPendingFrames) else {
                statistics.packetsRefused += 1
                return []
            }
            latestExpected = frameID
        }
        highestSeenFrame = max(highestSeenFrame, frameID)
        _ = rtpExpander.expand(packet.rtpTimestamp)
        // Packet 0 carries the frame's timing; without a sender report it cannot be placed in time.
        if senderReport == nil, packet.packetID == 0 {
            statistics.packetsRefused += 1
            return []
        }
        let packetCount = Int(packet.maxPacketID) + 1
        guard packetCount * RTPPacket.maximumSize <= configuration.maximumFrameBytes + RTPPacket.maximumSize else {
            statistics.packetsRefused += 1
            return []
        }
        var entry = pending[frameID.value] ?? PendingFrame(id: frameID, packetCount: packetCount)
        guard !entry.isComplete else {
            statistics.duplicatePackets += 1
            return []
        }
        guard entry.packetCount == packetCount else {
            statistics.packetsRefused += 1
            return []
        }
        if entry.chunks[Int(packet.packetID)] != nil {
            statistics.duplicatePackets += 1
            return []
        }
        guard bufferedBytes + packet.payload.count <= configuration.maximumBufferedBytes else {
            statistics.packetsRefused += 1
            return []
        }
        if nacked.remove(PacketKey(frame: frameID.value, packet: packet.packetID)) != nil || nackedFrames.contains(frameID.value) {
            statistics.retransmissionsReceived += 1
        }
        entry.chunks[Int(packet.packetID)] = packet.payload
        entry.missing -= 1
        bufferedBytes += packet.payload.count
        if packet.packetID == 0 {
            entry.isKeyFrame = packet.isKeyFrame
            entry.rtpTimestamp = rtpTimestamp
            if let reference = packet.referencedFrameID {
                entry.referencedFrame = FrameID.expanded(reference, near: frameID)
            } else {
                entry.referencedFrame = packet.isKeyFrame ? frameID : frameID.advanced(by: -1)
            }
            entry.captureTime = captureTime(of: rtpTimestamp)
            if let delay = packet.newPlayoutDelay, delay > 0 { recordDelay(.milliseconds(Int(delay)), from: frameID) }
        }
        if entry.isComplete { entry.completedAt = now }
        pending[frameID.value] = entry
        // A packet of a later frame while an earlier one still misses pieces: that frame lost a packet
        // (or it is still on its way). Feedback with its NACKs goes out within the NACK interval rather
        // than at the next half-second report, so the retransmission can still arrive in time.
        if checkpoint.advanced(by: 1) < frameID, let due = nextFeedback, due > now + Self.nackInterval {
            nextFeedback = now + Self.nackInterval
        }
        var actions: [Action] = []
        if entry.isComplete {
            if entry.isKeyFrame {
                pictureLost = false
                lastKeyFrame = frameID
            }
            if frameID == checkpoint.advanced(by: 1) {
                advanceCheckpoint()
                actions += feedback(at: now)
            }
        }
        actions += release(at: now)
        return actions
    }

    /// An RTCP datagram arrived (its packets, parsed). Only the sender report for this stream is used.
    public mutating func receive(_ packets: [RTCPPacket], at now: Duration) -> [Action] {
        evaluatedAt = max(evaluatedAt ?? now, now)
        var sawReport = false
        for case .senderReport(let report) in packets where report.ssrc == configuration.senderSSRC {
            let rtp = rtpExpander.expand(report.rtpTimestamp)
            senderReport = (report.ntpTime, rtp, now)
            let measured = now - report.ntpTime.sinceUnixEpoch
            if clockOffset == nil { clockOffset = ClockOffsetSmoother(offset: measured, at: now) } else { clockOffset!.update(measured, at: now) }
            statistics.senderReports += 1
            sawReport = true
        }
        guard sawReport else { return [] }
        reportBlockPending = true
        return feedback(at: now)
    }

    /// Time passed: sends feedback when it is due and skips frames that are due and still incomplete.
    public mutating func tick(now: Duration) -> [Action] {
        evaluatedAt = max(evaluatedAt ?? now, now)
        var actions = release(at: now)
        if let due = nextFeedback, due <= now { actions += feedback(at: now) }
        return actions
    }

    /// Asks the sender for a key frame (a decoder lost the picture); sends at once unless already asked
    /// since the last key frame.
    public mutating func requestKeyFrame(at now: Duration) -> [Action] {
        evaluatedAt = max(evaluatedAt ?? now, now)
        guard configuration.sendsPictureLoss, !pictureLost else { return [] }
        pictureLost = true
        return feedback(at: now)
    }

    // MARK: Playout

    /// Hands over every frame that is next in order and whole; skips incomplete due frames when a later
    /// whole frame does not depend on them.
    private mutating func release(at now: Duration) -> [Action] {
        var actions: [Action] = []
        while true {
            let next = lastPlayed.advanced(by: 1)
            guard next <= latestExpected else { break }
            if let entry = pending[next.value], entry.isComplete, entry.captureTime != nil {
                actions.append(.play(take(next)))
                continue
            }
            // The next frame is missing pieces. Skip ahead only when it is due and a later whole frame
            // can be decoded without it.
            guard let entry = pending[next.value], let capture = entry.captureTime, capture + delay(for: next) <= now else { break }
            guard let target = firstIndependentWholeFrame(after: next) else {
                // Stuck behind a loss with nothing decodable after it. A late frame usually completes a moment
                // later; one still stuck a quarter of the playout delay after it was due gets a key frame asked
                // for, to skip to (a decoder that cannot go on asks the same).
                if configuration.sendsPictureLoss, !pictureLost, lastKeyFrame != nil, capture + delay(for: next) + pictureLossGrace <= now {
                    pictureLost = true
                    actions += feedback(at: now)
                }
                break
            }
            let skipped = next...target.advanced(by: -1)
            for frame in skipped.lowerBound.value...skipped.upperBound.value { drop(FrameID(frame)) }
            statistics.framesDropped += Int(target.value - next.value)
            lastPlayed = target.advanced(by: -1)
            if checkpoint < lastPlayed { checkpoint = lastPlayed }
            advanceCheckpoint()
            actions.append(.skip(skipped))
            if configuration.sendsPictureLoss { pictureLost = false }
            actions += feedback(at: now)
        }
        return actions
    }

    private func firstIndependentWholeFrame(after frame: FrameID) -> FrameID? {
        var candidate = frame.advanced(by: 1)
        while candidate <= latestExpected {
            if let entry = pending[candidate.value], entry.isComplete, entry.captureTime != nil,
                entry.isKeyFrame || entry.referencedFrame == candidate
            {
                return candidate
            }
            guard pending[candidate.value]?.captureTime != nil else { return nil }
            candidate = candidate.advanced(by: 1)
        }
        return nil
    }

    private mutating func take(_ frame: FrameID) -> ReceivedFrame {
        let entry = pending.removeValue(forKey: frame.value)!
        bufferedBytes -= entry.byteCount
        nackedFrames.remove(frame.value)
        lastPlayed = frame
        if checkpoint < frame { checkpoint = frame }
        let encrypted = entry.chunks.reduce(into: [UInt8]()) { $0 += $1 ?? [] }
        let capture = entry.captureTime ?? .zero
        let played = ReceivedFrame(
            frameID: frame, referencedFrameID: entry.referencedFrame ?? frame, isKeyFrame: entry.isKeyFrame,
            rtpTimestamp: entry.rtpTimestamp ?? 0, captureTime: capture, playoutTime: capture + delay(for: frame),
            completedAt: entry.completedAt ?? capture, data: configuration.crypto.crypt(encrypted, frame: frame))
        statistics.framesReceived += 1
        if played.isLate { statistics.framesLate += 1 }
        pruneDelays()
        return played
    }

    private mutating func drop(_ frame: FrameID) {
        if let entry = pending.removeValue(forKey: frame.value) { bufferedBytes -= entry.byteCount }
        nacked = nacked.filter { $0.frame != frame.value }
        nackedFrames.remove(frame.value)
    }

    // MARK: Timing

    /// The capture time (receiver clock) of an RTP timestamp, from the last sender report.
    private func captureTime(of rtpTimestamp: Int64) -> Duration? {
        guard let report = senderReport, let offset = clockOffset?.offset else { return nil }
        let ticks = rtpTimestamp - report.rtpTimestamp
        let seconds = Double(ticks) / Double(configuration.timeBase)
        return report.ntp.sinceUnixEpoch + offset + .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    private func delay(for frame: FrameID) -> Duration {
        delayChanges.last { $0.frame <= frame }?.delay ?? configuration.targetDelay
    }

    private mutating func recordDelay(_ delay: Duration, from frame: FrameID) {
        delayChanges.removeAll { $0.frame >= frame }
        delayChanges.append((frame, delay))
        if delayChanges.count > 64 { delayChanges.removeFirst(delayChanges.count - 64) }
    }

    private mutating func pruneDelays() {
        while delayChanges.count > 1, delayChanges[1].frame <= lastPlayed.advanced(by: 1) { delayChanges.removeFirst() }
    }

    // MARK: Feedback

    private mutating func advanceCheckpoint() {
        while checkpoint < latestExpected, let entry = pending[checkpoint.value + 1], entry.isComplete {
            checkpoint = checkpoint.advanced(by: 1)
        }
    }

    /// Builds and "sends" the compound RTCP datagram, and schedules the next one.
    private mutating func feedback(at now: Duration) -> [Action] {
        var missing: [(frame: FrameID, packet: UInt16?)] = []
        var received: [FrameID] = []
        if checkpoint < latestExpected {
            for value in (checkpoint.value + 1)...latestExpected.value {
                let frame = FrameID(value)
                guard let entry = pending[value] else {
                    missing.append((frame, nil))
                    continue
                }
                if entry.isComplete {
                    received.append(frame)
                } else if entry.missing == entry.packetCount {
                    missing.append((frame, nil))
                } else {
                    for (index, chunk) in entry.chunks.enumerated() where chunk == nil { missing.append((frame, UInt16(index))) }
                }
            }
        }
        let target = delay(for: checkpoint.advanced(by: 1))
        let delayMilliseconds = UInt16(clamping: Int(target.components.seconds * 1000 + target.components.attoseconds / 1_000_000_000_000_000))
        let castFeedback = CastFeedback(
            receiverSSRC: configuration.receiverSSRC, senderSSRC: configuration.senderSSRC, checkpoint: checkpoint,
            playoutDelay: max(1, delayMilliseconds), missing: missing, received: received, feedbackCount: feedbackCount)
        feedbackCount &+= 1
        // Count what the feedback asks for again (a whole frame counts as its known packet count).
        let asked = castFeedback.missing(after: checkpoint)
        for (frame, packet) in asked {
            if let packet {
                nacked.insert(PacketKey(frame: frame.value, packet: packet))
                statistics.retransmissionsRequested += 1
            } else {
                nackedFrames.insert(frame.value)
                statistics.retransmissionsRequested += pending[frame.value]?.packetCount ?? 1
            }
        }
        var blocks: [ReportBlock] = []
        if reportBlockPending, let report = senderReport {
            reportBlockPending = false
            let elapsed = now - report.arrival
            let delay = UInt32(clamping: Int64(elapsed.components.seconds) * 65_536 + Int64(Double(elapsed.components.attoseconds) / 1e18 * 65_536))
            blocks.append(sequence.reportBlock(ssrc: configuration.senderSSRC, lastReportID: report.ntp.reportID, delay: delay))
        }
        var packets: [RTCPPacket] = [
            .receiverReport(ssrc: configuration.receiverSSRC, blocks: blocks),
            .receiverReferenceTime(ssrc: configuration.receiverSSRC, time: configuration.ntpTimeline.ntp(at: now)),
        ]
        if pictureLost, configuration.sendsPictureLoss, let key = lastKeyFrame, lastPlayed >= key {
            packets.append(.pictureLoss(receiverSSRC: configuration.receiverSSRC, senderSSRC: configuration.senderSSRC))
            statistics.pictureLossIndications += 1
        }
        packets.append(.castFeedback(castFeedback))
        statistics.rtcpSent += 1
        nextFeedback = now + (missing.isEmpty ? Self.reportInterval : Self.nackInterval)
        return [.sendRTCP(RTCPPacket.serializeCompound(packets))]
    }
}

/// A frame being collected from its packets.
private struct PendingFrame: Sendable {
    var id: FrameID
    var packetCount: Int
    var missing: Int
    var chunks: [ArraySlice<UInt8>?]
    var isKeyFrame = false
    var referencedFrame: FrameID?
    var rtpTimestamp: Int64?
    var captureTime: Duration?
    var completedAt: Duration?

    init(id: FrameID, packetCount: Int) {
        self.id = id
        self.packetCount = packetCount
        self.missing = packetCount
        self.chunks = Array(repeating: nil, count: packetCount)
    }

    var isComplete: Bool { missing == 0 }
    var byteCount: Int { chunks.reduce(0) { $0 + ($1?.count ?? 0) } }
}

/// Smooths the measured offset between the sender's clock and the receiver's, as Open Screen's
/// `ClockDriftSmoother` does (an exponential average with a 30 s time constant).
struct ClockOffsetSmoother: Sendable {
    private(set) var offset: Duration
    private var last: Duration
    static let timeConstant = 30.0

    init(offset: Duration, at now: Duration) {
        self.offset = offset
        last = now
    }

    mutating func update(_ measured: Duration, at now: Duration) {
        let elapsed = max(0, Double((now - last).components.seconds) + Double((now - last).components.attoseconds) / 1e18)
        last = now
        let weight = elapsed / (elapsed + Self.timeConstant)
        let difference = measured - offset
        offset += difference * weight
    }
}

/// Sequence-number statistics for receiver reports (RFC 3550 §6.4.1, A.3, A.8).
struct SequenceStatistics: Sendable {
    private var base: Int64?
    private var highest: Int64 = 0
    private var received: Int64 = 0
    private var expectedAtLastReport: Int64 = 0
    private var receivedAtLastReport: Int64 = 0
    private var jitter = 0.0
    private var lastTransit: Double?

    mutating func note(_ sequence: UInt16, rtpTimestamp: Int64, arrival: Duration, timeBase: Int) {
        received += 1
        if base == nil {
            base = Int64(sequence)
            highest = Int64(sequence)
        } else {
            let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest)))
            highest = max(highest, highest + delta)
        }
        let arrivalTicks = (Double(arrival.components.seconds) + Double(arrival.components.attoseconds) / 1e18) * Double(timeBase)
        let transit = arrivalTicks - Double(rtpTimestamp)
        if let lastTransit {
            let d = abs(transit - lastTransit)
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
    }

    mutating func reportBlock(ssrc: UInt32, lastReportID: UInt32, delay: UInt32) -> ReportBlock {
        let expected = base.map { highest - $0 + 1 } ?? 0
        let lost = max(0, expected - received)
        let expectedInterval = expected - expectedAtLastReport
        let receivedInterval = received - receivedAtLastReport
        expectedAtLastReport = expected
        receivedAtLastReport = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction = expectedInterval > 0 && lostInterval > 0 ? UInt8(clamping: (lostInterval << 8) / expectedInterval) : 0
        return ReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: UInt32(clamping: min(lost, 0xFF_FFFF)),
            extendedHighestSequence: UInt32(truncatingIfNeeded: highest), jitter: UInt32(clamping: Int64(jitter)),
            lastReportID: lastReportID, delaySinceLastReport: delay)
    }
}
