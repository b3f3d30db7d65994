/// One Cast RTP packet: the RTP header (version 2, no padding, extensions or CSRCs), the Cast header
/// (key-frame flag, frame id, packet id and last packet id, an optional referenced frame id and
/// extensions such as a new playout delay) and a piece of one encrypted frame.
///
/// ```
/// |V=2|P|X| CC=0 |M|  PT  | sequence number | RTP timestamp | SSRC |
/// |K|R| ext count | frame id (8) | packet id (16) | max packet id (16) | [ref frame id (8)] | ext… | payload
/// ```
/// Frame ids travel as their low 8 bits; ``FrameID/expanded(_:near:)`` recovers them.
public struct RTPPacket: Sendable, Hashable {
    /// The 7-bit payload type (96 Opus, 97 AAC, 100 VP8, 101 H.264, 103 VP9, 104 AV1, …).
    public var payloadType: UInt8
    /// Whether the marker bit is set (the last packet of a frame).
    public var marker: Bool
    /// The RTP sequence number, counting every packet a sender sends on the stream.
    public var sequenceNumber: UInt16
    /// The low 32 bits of the frame's RTP timestamp.
    public var rtpTimestamp: UInt32
    /// The sender's SSRC.
    public var ssrc: UInt32
    /// Whether the frame is a key frame.
    public var isKeyFrame: Bool
    /// The low 8 bits of the frame id.
    public var frameID: UInt8
    /// This packet's index within its frame.
    public var packetID: UInt16
    /// The index of the frame's last packet.
    public var maxPacketID: UInt16
    /// The low 8 bits of the frame this one depends on, when the packet says; without it a key frame
    /// depends on itself and any other frame on the one before.
    public var referencedFrameID: UInt8?
    /// A new target playout delay (the Adaptive Latency extension), in milliseconds.
    public var newPlayoutDelay: UInt16?
    /// The payload: a piece of the encrypted frame.
    public var payload: ArraySlice<UInt8>

    /// The largest RTP packet Cast Streaming sends over IPv4 on Ethernet (1500 − 20 − 8).
    public static let maximumSize = 1472
    /// The smallest well-formed packet (headers only).
    public static let minimumSize = 18
    /// The packet id value that means "every packet of the frame" in feedback; no packet may use it.
    public static let allPacketsLost: UInt16 = 0xFFFF
    /// The Adaptive Latency extension's type.
    static let adaptiveLatencyType: UInt8 = 1

    /// Creates a packet.
    public init(
        payloadType: UInt8, marker: Bool, sequenceNumber: UInt16, rtpTimestamp: UInt32, ssrc: UInt32, isKeyFrame: Bool,
        frameID: UInt8, packetID: UInt16, maxPacketID: UInt16, referencedFrameID: UInt8?, newPlayoutDelay: UInt16? = nil,
        payload: ArraySlice<UInt8>
    ) {
        self.payloadType = payloadType
        self.marker = marker
        self.sequenceNumber = sequenceNumber
        self.rtpTimestamp = rtpTimestamp
        self.ssrc = ssrc
        self.isKeyFrame = isKeyFrame
        self.frameID = frameID
        self.packetID = packetID
        self.maxPacketID = maxPacketID
        self.referencedFrameID = referencedFrameID
        self.newPlayoutDelay = newPlayoutDelay
        self.payload = payload
    }

    /// Whether the first byte of a datagram says RTP rather than RTCP: both start with version 2; RTCP's
    /// second byte is a packet type (200–207), RTP's a marker bit and a payload type.
    public static func looksLikeRTP(_ datagram: [UInt8]) -> Bool {
        guard datagram.count >= 2, datagram[0] >> 6 == 2 else { return false }
        let type = datagram[1]
        return !(200...207).contains(type)
    }

    /// Reads a packet.
    /// - Throws: ``StreamingError`` `.malformedPacket` naming the first thing wrong.
    public init(parsing bytes: [UInt8]) throws(StreamingError) {
        guard bytes.count >= Self.minimumSize else { throw .malformed("RTP packet of \(bytes.count) bytes is shorter than 18") }
        guard bytes.count <= 65_535 else { throw .malformed("RTP packet of \(bytes.count) bytes") }
        var reader = ByteReader(bytes)
        guard reader.u8() == 0b1000_0000 else {
            throw .malformed("RTP first byte 0x\(String(bytes[0], radix: 16)): version 2, no padding, extension or CSRCs required")
        }
        let second = reader.u8()!
        marker = second & 0x80 != 0
        payloadType = second & 0x7F
        guard payloadType != 0 else { throw .malformed("RTP payload type 0") }
        sequenceNumber = reader.u16()!
        rtpTimestamp = reader.u32()!
        ssrc = reader.u32()!
        let flags = reader.u8()!
        isKeyFrame = flags & 0x80 != 0
        let hasReference = flags & 0x40 != 0
        let extensionCount = Int(flags & 0x3F)
        frameID = reader.u8()!
        packetID = reader.u16()!
        maxPacketID = reader.u16()!
        guard maxPacketID != Self.allPacketsLost else { throw .malformed("max packet id 0xFFFF is reserved") }
        guard packetID <= maxPacketID else { throw .malformed("packet id \(packetID) above max packet id \(maxPacketID)") }
        if hasReference {
            guard let reference = reader.u8() else { throw .malformed("referenced frame id missing") }
            referencedFrameID = reference
        } else {
            referencedFrameID = nil
        }
        newPlayoutDelay = nil
        for _ in 0..<extensionCount {
            guard let typeAndSize = reader.u16() else { throw .malformed("Cast extension header cut off") }
            let type = UInt8(typeAndSize >> 10)
            let size = Int(typeAndSize & 0x3FF)
            guard let data = reader.take(size) else { throw .malformed("Cast extension of \(size) bytes cut off") }
            if type == Self.adaptiveLatencyType {
                guard size == 2 else { throw .malformed("adaptive latency extension of \(size) bytes, not 2") }
                newPlayoutDelay = UInt16(data[data.startIndex]) << 8 | UInt16(data[data.startIndex + 1])
            }
        }
        payload = reader.rest()
    }

    /// The packet's bytes.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.minimumSize + 6 + payload.count)
        writer.u8(0b1000_0000)
        writer.u8((marker ? 0x80 : 0) | (payloadType & 0x7F))
        writer.u16(sequenceNumber)
        writer.u32(rtpTimestamp)
        writer.u32(ssrc)
        let extensions: UInt8 = newPlayoutDelay == nil ? 0 : 1
        writer.u8((isKeyFrame ? 0x80 : 0) | (referencedFrameID == nil ? 0 : 0x40) | extensions)
        writer.u8(frameID)
        writer.u16(packetID)
        writer.u16(maxPacketID)
        if let referencedFrameID { writer.u8(referencedFrameID) }
        if let newPlayoutDelay {
            writer.u16(UInt16(Self.adaptiveLatencyType) << 10 | 2)
            writer.u16(newPlayoutDelay)
        }
        writer.append(contentsOf: payload)
        return writer.bytes
    }
}
