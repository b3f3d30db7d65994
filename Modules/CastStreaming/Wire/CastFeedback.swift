/// Cast feedback from a receiver: every frame up to the checkpoint has arrived whole; these packets
/// of later frames are missing (NACKs); these later frames have arrived whole (ACKs); and the
/// playout delay the receiver is using.
///
/// ```
/// | receiver SSRC | sender SSRC | 'CAST' | checkpoint (8) | loss count (8) | playout delay ms (16) |
/// | loss fields: frame (8), packet id (16, 0xFFFF = all), bitmap of the next 8 packets (8) | …
/// | 'CST2' | feedback count (8) | ack octets (8) | ACK bit vector, bit 0 = checkpoint + 2 … |
/// ```
public struct CastFeedback: Sendable, Hashable {
    /// One NACK word: a missing packet of a frame and which of the 8 packets after it are missing too.
    public struct Loss: Sendable, Hashable {
        /// The low 8 bits of the frame id (after the checkpoint).
        public var frameID: UInt8
        /// The first missing packet, or ``RTPPacket/allPacketsLost``.
        public var packetID: UInt16
        /// Bit n set: packet `packetID + n + 1` is missing too.
        public var bitmap: UInt8

        /// Creates a loss field.
        public init(frameID: UInt8, packetID: UInt16, bitmap: UInt8) {
            self.frameID = frameID
            self.packetID = packetID
            self.bitmap = bitmap
        }
    }

    /// The receiver's SSRC.
    public var receiverSSRC: UInt32
    /// The sender's SSRC.
    public var senderSSRC: UInt32
    /// The low 8 bits of the checkpoint frame: it and every frame before it arrived whole.
    public var checkpoint: UInt8
    /// The playout delay the receiver uses, in milliseconds.
    public var playoutDelay: UInt16
    /// The NACK words (at most 255).
    public var losses: [Loss]
    /// The wrap-around count of feedback messages sent before this one; `nil` without the ACK part.
    public var feedbackCount: UInt8?
    /// The ACK bit vector (bit 0 of byte 0 is frame checkpoint + 2); empty without the ACK part.
    public var ackBitVector: [UInt8]

    static let castIdentifier: UInt32 = 0x4341_5354  // "CAST"
    static let cst2Identifier: UInt32 = 0x4353_5432  // "CST2"

    /// Creates feedback from its wire fields.
    public init(receiverSSRC: UInt32, senderSSRC: UInt32, checkpoint: UInt8, playoutDelay: UInt16, losses: [Loss] = [],
                feedbackCount: UInt8? = nil, ackBitVector: [UInt8] = []) {
        self.receiverSSRC = receiverSSRC
        self.senderSSRC = senderSSRC
        self.checkpoint = checkpoint
        self.playoutDelay = playoutDelay
        self.losses = Array(losses.prefix(255))
        self.feedbackCount = feedbackCount
        self.ackBitVector = ackBitVector
    }

    /// Feedback from full frame ids: the checkpoint, missing packets (`nil` packet id = the whole
    /// frame) and frames after the checkpoint received whole. NACKs are packed into loss words, ACKs
    /// into a bit vector of 2 + 4n octets (at most 254), as much as fits in `maximumSize` bytes.
    public init(receiverSSRC: UInt32, senderSSRC: UInt32, checkpoint: FrameID, playoutDelay: UInt16,
                missing: [(frame: FrameID, packet: UInt16?)], received: [FrameID], feedbackCount: UInt8,
                maximumSize: Int = 1400) {
        var losses: [Loss] = []
        let sorted = missing.filter { $0.frame > checkpoint }
            .sorted { ($0.frame, $0.packet.map { Int($0) } ?? -1) < ($1.frame, $1.packet.map { Int($0) } ?? -1) }
        let lossBudget = min(255, max(0, (maximumSize - 16 - 8) / 4))
        var index = 0
        while index < sorted.count, losses.count < lossBudget {
            let (frame, packet) = sorted[index]
            index += 1
            guard let first = packet else {
                losses.append(Loss(frameID: frame.low8, packetID: RTPPacket.allPacketsLost, bitmap: 0))
                while index < sorted.count, sorted[index].frame == frame { index += 1 }
                continue
            }
            var bitmap: UInt8 = 0
            while index < sorted.count, sorted[index].frame == frame, let next = sorted[index].packet {
                let shift = Int(next) - Int(first) - 1
                guard shift < 8 else { break }
                if shift >= 0 { bitmap |= 1 << UInt8(shift) }
                index += 1
            }
            losses.append(Loss(frameID: frame.low8, packetID: first, bitmap: bitmap))
        }
        var octets = 2
        var vector = [UInt8](repeating: 0, count: 2)
        let room = maximumSize - 16 - 4 * losses.count - 6
        for frame in received.sorted() {
            let bit = Int(frame.value - checkpoint.value - 2)
            guard bit >= 0 else { continue }
            let octet = bit / 8
            if octet >= octets {
                let grown = 2 + ((octet - 2) / 4 + 1) * 4
                guard grown <= 254, grown <= room else { break }
                vector += [UInt8](repeating: 0, count: grown - octets)
                octets = grown
            }
            vector[octet] |= 1 << UInt8(bit % 8)
        }
        self.init(receiverSSRC: receiverSSRC, senderSSRC: senderSSRC, checkpoint: checkpoint.low8, playoutDelay: playoutDelay,
                  losses: losses, feedbackCount: feedbackCount, ackBitVector: room >= 8 ? vector : [])
    }

    init(reading body: inout ByteReader) throws(StreamingError) {
        guard let receiver = body.u32(), let sender = body.u32(), let identifier = body.u32(), let checkpoint = body.u8(),
            let lossCount = body.u8(), let delay = body.u16()
        else { throw .malformed("Cast feedback shorter than 16 bytes") }
        guard identifier == Self.castIdentifier else { throw .malformed("Cast feedback without its 'CAST' identifier") }
        receiverSSRC = receiver
        senderSSRC = sender
        self.checkpoint = checkpoint
        playoutDelay = delay
        guard body.remaining >= 4 * Int(lossCount) else { throw .malformed("\(lossCount) Cast feedback loss fields cut off") }
        losses = (0..<Int(lossCount)).map { _ in Loss(frameID: body.u8()!, packetID: body.u16()!, bitmap: body.u8()!) }
        feedbackCount = nil
        ackBitVector = []
        guard body.remaining >= 6, body.u32() == Self.cst2Identifier else { return }
        feedbackCount = body.u8()!
        let octets = Int(body.u8()!)
        guard let vector = body.take(octets) else { throw .malformed("ACK bit vector of \(octets) bytes cut off") }
        ackBitVector = Array(vector)
    }

    func body() -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + 4 * losses.count + ackBitVector.count)
        writer.u32(receiverSSRC)
        writer.u32(senderSSRC)
        writer.u32(Self.castIdentifier)
        writer.u8(checkpoint)
        writer.u8(UInt8(min(losses.count, 255)))
        writer.u16(playoutDelay)
        for loss in losses.prefix(255) {
            writer.u8(loss.frameID)
            writer.u16(loss.packetID)
            writer.u8(loss.bitmap)
        }
        if let feedbackCount, !ackBitVector.isEmpty {
            writer.u32(Self.cst2Identifier)
            writer.u8(feedbackCount)
            writer.u8(UInt8(min(ackBitVector.count, 255)))
            writer.append(contentsOf: ackBitVector.prefix(255))
            while writer.bytes.count % 4 != 0 { writer.u8(0) }
        }
        return writer.bytes
    }

    /// The checkpoint as a full frame id, given the highest frame the sender could be told about.
    public func checkpointFrame(atOrBelow maximum: FrameID) -> FrameID { FrameID.expanded(checkpoint, atOrBelow: maximum) }

    /// Every missing packet, as full frame ids after `checkpoint` (`nil` packet: the whole frame).
    public func missing(after checkpoint: FrameID) -> [(frame: FrameID, packet: UInt16?)] {
        var result: [(frame: FrameID, packet: UInt16?)] = []
        for loss in losses {
            let frame = FrameID.expanded(loss.frameID, above: checkpoint)
            if loss.packetID == RTPPacket.allPacketsLost {
                result.append((frame, nil))
                continue
            }
            result.append((frame, loss.packetID))
            var bits = loss.bitmap
            var packet = loss.packetID
            while bits != 0 {
                packet &+= 1
                if bits & 1 != 0 { result.append((frame, packet)) }
                bits >>= 1
            }
        }
        return result
    }

    /// Every frame the ACK vector says arrived whole, as full frame ids.
    public func received(after checkpoint: FrameID) -> [FrameID] {
        var frames: [FrameID] = []
        for (octet, bits) in ackBitVector.enumerated() {
            for bit in 0..<8 where bits & (1 << UInt8(bit)) != 0 {
                frames.append(FrameID(checkpoint.value + 2 + Int64(octet * 8 + bit)))
            }
        }
        return frames
    }
}
