/// A whole frame a stream receiver released to the player, decrypted, with its timing.
public struct ReceivedFrame: Sendable, Hashable {
    /// The frame's id.
    public var frameID: FrameID
    /// The frame it depends on (itself for a key frame or an independent one).
    public var referencedFrameID: FrameID
    /// Whether it is a key frame.
    public var isKeyFrame: Bool
    /// The frame's RTP timestamp, expanded to 64 bits (the stream's time base).
    public var rtpTimestamp: Int64
    /// When the sender captured it, on the receiver's clock (from the sender reports).
    public var captureTime: Duration
    /// When it is due on screen or speaker: capture time plus the target playout delay.
    public var playoutTime: Duration
    /// When its last packet arrived.
    public var completedAt: Duration
    /// The decrypted encoded frame (a VP8 frame, an Opus packet, …).
    public var data: [UInt8]

    /// Creates a frame.
    public init(frameID: FrameID, referencedFrameID: FrameID, isKeyFrame: Bool, rtpTimestamp: Int64, captureTime: Duration,
                playoutTime: Duration, completedAt: Duration, data: [UInt8]) {
        self.frameID = frameID
        self.referencedFrameID = referencedFrameID
        self.isKeyFrame = isKeyFrame
        self.rtpTimestamp = rtpTimestamp
        self.captureTime = captureTime
        self.playoutTime = playoutTime
        self.completedAt = completedAt
        self.data = data
    }

    /// Whether it completed after it was due.
    public var isLate: Bool { completedAt > playoutTime }
}

/// What a stream receiver counted: the figures a test or a log reads.
public struct StreamReceiverStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Valid RTP packets received (duplicates included).
    public var packetsReceived = 0
    /// Payload bytes received.
    public var bytesReceived = 0
    /// Packets that were already held (a retransmission that crossed the original, a duplicate).
    public var duplicatePackets = 0
    /// Packets refused: malformed, for another SSRC, beyond the frame window, inconsistent with their frame.
    public var packetsRefused = 0
    /// Frames released to the player, whole.
    public var framesReceived = 0
    /// Frames released after they were due.
    public var framesLate = 0
    /// Frames skipped because they were still incomplete when due.
    public var framesDropped = 0
    /// Packets asked for again (each packet of each NACK word, every time feedback lists it).
    public var retransmissionsRequested = 0
    /// Packets that arrived after this receiver had asked for them.
    public var retransmissionsReceived = 0
    /// Picture-loss indications sent.
    public var pictureLossIndications = 0
    /// Sender reports received.
    public var senderReports = 0
    /// RTCP datagrams sent.
    public var rtcpSent = 0

    /// Creates zeroed statistics.
    public init() {}

    /// `frames 290 (late 0, dropped 2), packets 612 (dup 3, refused 0), NACKed 14, retransmitted 12, PLI 1, SR 20`.
    public var description: String {
        "frames \(framesReceived) (late \(framesLate), dropped \(framesDropped)), packets \(packetsReceived) (dup \(duplicatePackets), refused \(packetsRefused)), NACKed \(retransmissionsRequested), retransmitted \(retransmissionsReceived), PLI \(pictureLossIndications), SR \(senderReports)"
    }
}
