/// Splits encrypted frames into Cast RTP packets, as Open Screen's sender does: every packet carries
/// the referenced frame id; the first carries a new playout delay when one is set; the payload is cut
/// into as few packets as fit ``RTPPacket/maximumSize``; sequence numbers count every packet sent.
public struct RTPPacketizer: Sendable {
    /// The RTP payload type.
    public let payloadType: UInt8
    /// The sender's SSRC.
    public let ssrc: UInt32
    /// The largest packet made, headers included.
    public let maximumPacketSize: Int
    private var sequenceNumber: UInt16

    /// The largest header a packet carries: 18 bytes, the referenced frame id and one extension.
    static let maximumHeaderSize = 18 + 1 + 4

    /// Creates a packetizer; `firstSequenceNumber` is random in a real sender.
    public init(payloadType: UInt8, ssrc: UInt32, maximumPacketSize: Int = RTPPacket.maximumSize,
                firstSequenceNumber: UInt16 = UInt16.random(in: 0...UInt16.max)) {
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.maximumPacketSize = max(Self.maximumHeaderSize + 1, maximumPacketSize)
        sequenceNumber = firstSequenceNumber
    }

    /// The payload bytes each packet carries (the last may carry fewer).
    public var maximumPayloadSize: Int { maximumPacketSize - Self.maximumHeaderSize }

    /// How many packets a frame of `size` bytes takes (at least one, even when empty).
    public func packetCount(forFrameOf size: Int) -> Int { max(1, (size + maximumPayloadSize - 1) / maximumPayloadSize) }

    /// A frame to packetize.
    public struct Frame: Sendable, Hashable {
        /// The frame's id.
        public var frameID: FrameID
        /// The frame it depends on.
        public var referencedFrameID: FrameID
        /// Whether it is a key frame.
        public var isKeyFrame: Bool
        /// Its RTP timestamp.
        public var rtpTimestamp: Int64
        /// A new target playout delay to announce with it, in milliseconds.
        public var newPlayoutDelay: UInt16?
        /// The encrypted payload.
        public var data: [UInt8]

        /// Creates a frame.
        public init(frameID: FrameID, referencedFrameID: FrameID, isKeyFrame: Bool, rtpTimestamp: Int64,
                    newPlayoutDelay: UInt16? = nil, data: [UInt8]) {
            self.frameID = frameID
            self.referencedFrameID = referencedFrameID
            self.isKeyFrame = isKeyFrame
            self.rtpTimestamp = rtpTimestamp
            self.newPlayoutDelay = newPlayoutDelay
            self.data = data
        }
    }

    /// Packet `packetID` of `frame` (a first send or a retransmission), with the next sequence number.
    public mutating func packet(_ packetID: Int, of frame: Frame) -> RTPPacket {
        let count = packetCount(forFrameOf: frame.data.count)
        precondition(packetID >= 0 && packetID < count, "packet \(packetID) of a \(count)-packet frame")
        let start = min(frame.data.count, packetID * maximumPayloadSize)
        let end = min(frame.data.count, start + maximumPayloadSize)
        let packet = RTPPacket(
            payloadType: payloadType, marker: packetID == count - 1, sequenceNumber: sequenceNumber,
            rtpTimestamp: UInt32(truncatingIfNeeded: frame.rtpTimestamp), ssrc: ssrc, isKeyFrame: frame.isKeyFrame,
            frameID: frame.frameID.low8, packetID: UInt16(packetID), maxPacketID: UInt16(count - 1),
            referencedFrameID: frame.referencedFrameID.low8, newPlayoutDelay: packetID == 0 ? frame.newPlayoutDelay : nil,
            payload: frame.data[start..<end])
        sequenceNumber &+= 1
        return packet
    }

    /// Every packet of a frame, in order.
    public mutating func packets(of frame: Frame) -> [RTPPacket] {
        (0..<packetCount(forFrameOf: frame.data.count)).map { packet($0, of: frame) }
    }
}
