/// One packet of a compound RTCP datagram, as Cast Streaming uses them.
///
/// Senders send ``SenderReport``s; receivers send a receiver report, a receiver reference-time
/// report (an extended report), a picture-loss indicator when they need a key frame, and
/// ``CastFeedback`` (the checkpoint, NACKs of missing packets and ACKs of later whole frames).
/// Packet kinds Cast Streaming does not use are kept as ``other(type:subtype:)``.
public enum RTCPPacket: Sendable, Hashable {
    /// A sender report (type 200).
    case senderReport(SenderReport)
    /// A receiver report (type 201): the reporter's SSRC and its report blocks.
    case receiverReport(ssrc: UInt32, blocks: [ReportBlock])
    /// An extended report (type 207) holding a receiver reference-time block.
    case receiverReferenceTime(ssrc: UInt32, time: NTPTimestamp)
    /// A picture-loss indicator (type 206, subtype 1): the receiver needs a key frame.
    case pictureLoss(receiverSSRC: UInt32, senderSSRC: UInt32)
    /// Cast feedback (type 206, subtype 15).
    case castFeedback(CastFeedback)
    /// A packet of another type or subtype, skipped.
    case other(type: UInt8, subtype: UInt8)

    static let senderReportType: UInt8 = 200
    static let receiverReportType: UInt8 = 201
    static let payloadSpecificType: UInt8 = 206
    static let extendedReportType: UInt8 = 207
    static let pictureLossSubtype: UInt8 = 1
    static let feedbackSubtype: UInt8 = 15
    static let receiverReferenceTimeBlock: UInt8 = 4

    /// Reads a compound RTCP datagram: every packet in it, in order.
    /// - Throws: ``StreamingError`` `.malformedPacket` when a header or a known packet's body is cut off or invalid.
    public static func parseCompound(_ bytes: [UInt8]) throws(StreamingError) -> [RTCPPacket] {
        guard !bytes.isEmpty else { throw .malformed("empty RTCP datagram") }
        guard bytes.count <= 65_535 else { throw .malformed("RTCP datagram of \(bytes.count) bytes") }
        var packets: [RTCPPacket] = []
        var reader = ByteReader(bytes)
        while !reader.isAtEnd {
            guard let first = reader.u8(), let type = reader.u8(), let words = reader.u16() else {
                throw .malformed("RTCP header cut off at byte \(reader.offset)")
            }
            guard first >> 5 == 0b100 else { throw .malformed("RTCP first byte 0x\(String(first, radix: 16)): version 2 without padding required") }
            let count = first & 0x1F
            let length = Int(words) * 4
            guard reader.remaining >= length else { throw .malformed("RTCP packet of type \(type) claims \(length) bytes, \(reader.remaining) left") }
            var body = ByteReader(bytes, from: reader.offset, to: reader.offset + length)
            _ = reader.skip(length)
            switch type {
            case senderReportType:
                packets.append(.senderReport(try SenderReport(reading: &body, blockCount: Int(count))))
            case receiverReportType:
                guard let ssrc = body.u32() else { throw .malformed("receiver report without its SSRC") }
                packets.append(.receiverReport(ssrc: ssrc, blocks: try ReportBlock.read(&body, count: Int(count))))
            case extendedReportType:
                guard let ssrc = body.u32() else { throw .malformed("extended report without its SSRC") }
                var time: NTPTimestamp?
                while !body.isAtEnd {
                    guard let blockType = body.u8(), body.skip(1), let blockWords = body.u16() else {
                        throw .malformed("extended report block header cut off")
                    }
                    let blockLength = Int(blockWords) * 4
                    guard body.remaining >= blockLength else { throw .malformed("extended report block of \(blockLength) bytes cut off") }
                    if blockType == receiverReferenceTimeBlock {
                        guard blockLength == 8 else { throw .malformed("receiver reference time block of \(blockLength) bytes, not 8") }
                        time = NTPTimestamp(rawValue: body.u64()!)
                    } else {
                        _ = body.skip(blockLength)
                    }
                }
                if let time { packets.append(.receiverReferenceTime(ssrc: ssrc, time: time)) } else { packets.append(.other(type: type, subtype: 0)) }
            case payloadSpecificType where count == pictureLossSubtype:
                guard let receiver = body.u32(), let sender = body.u32() else { throw .malformed("picture loss indicator cut off") }
                packets.append(.pictureLoss(receiverSSRC: receiver, senderSSRC: sender))
            case payloadSpecificType where count == feedbackSubtype:
                packets.append(.castFeedback(try CastFeedback(reading: &body)))
            default:
                guard (192...223).contains(type) else { throw .malformed("RTCP packet type \(type)") }
                packets.append(.other(type: type, subtype: count))
            }
        }
        return packets
    }

    /// The packets' bytes, one after the other, as one compound datagram.
    public static func serializeCompound(_ packets: [RTCPPacket]) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        for packet in packets { packet.write(to: &writer) }
        return writer.bytes
    }

    /// Appends the packet's bytes; ``other(type:subtype:)`` writes nothing.
    func write(to writer: inout ByteWriter) {
        func header(_ countOrSubtype: UInt8, _ type: UInt8, bodyLength: Int) {
            writer.u8(0b1000_0000 | (countOrSubtype & 0x1F))
            writer.u8(type)
            writer.u16(UInt16(bodyLength / 4))
        }
        switch self {
        case .senderReport(let report):
            header(UInt8(report.blocks.count), Self.senderReportType, bodyLength: 24 + 24 * report.blocks.count)
            report.writeBody(to: &writer)
        case .receiverReport(let ssrc, let blocks):
            header(UInt8(blocks.count), Self.receiverReportType, bodyLength: 4 + 24 * blocks.count)
            writer.u32(ssrc)
            for block in blocks { block.write(to: &writer) }
        case .receiverReferenceTime(let ssrc, let time):
            header(0, Self.extendedReportType, bodyLength: 16)
            writer.u32(ssrc)
            writer.u8(Self.receiverReferenceTimeBlock)
            writer.u8(0)
            writer.u16(2)
            writer.u64(time.rawValue)
        case .pictureLoss(let receiver, let sender):
            header(Self.pictureLossSubtype, Self.payloadSpecificType, bodyLength: 8)
            writer.u32(receiver)
            writer.u32(sender)
        case .castFeedback(let feedback):
            let body = feedback.body()
            header(Self.feedbackSubtype, Self.payloadSpecificType, bodyLength: body.count)
            writer.append(contentsOf: body)
        case .other:
            break
        }
    }
}

/// An RTCP sender report: the sender's clock (NTP) at a moment and the RTP timestamp of the same
/// moment, which lets a receiver place each frame in time and keep audio and video in sync.
public struct SenderReport: Sendable, Hashable {
    /// The sender's SSRC.
    public var ssrc: UInt32
    /// The sender's wall clock at the report.
    public var ntpTime: NTPTimestamp
    /// The RTP timestamp that corresponds to ``ntpTime`` (low 32 bits).
    public var rtpTimestamp: UInt32
    /// Packets sent so far.
    public var packetCount: UInt32
    /// Payload bytes sent so far.
    public var octetCount: UInt32
    /// Report blocks (Cast senders send none or one).
    public var blocks: [ReportBlock]

    /// Creates a report.
    public init(ssrc: UInt32, ntpTime: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32, blocks: [ReportBlock] = []) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.blocks = blocks
    }

    init(reading body: inout ByteReader, blockCount: Int) throws(StreamingError) {
        guard let ssrc = body.u32(), let ntp = body.u64(), let rtp = body.u32(), let packets = body.u32(), let octets = body.u32() else {
            throw .malformed("sender report shorter than 24 bytes")
        }
        self.ssrc = ssrc
        ntpTime = NTPTimestamp(rawValue: ntp)
        rtpTimestamp = rtp
        packetCount = packets
        octetCount = octets
        blocks = try ReportBlock.read(&body, count: blockCount)
    }

    func writeBody(to writer: inout ByteWriter) {
        writer.u32(ssrc)
        writer.u64(ntpTime.rawValue)
        writer.u32(rtpTimestamp)
        writer.u32(packetCount)
        writer.u32(octetCount)
        for block in blocks { block.write(to: &writer) }
    }
}

/// A report block: what one side received of the other's stream.
public struct ReportBlock: Sendable, Hashable {
    /// The SSRC the block reports on.
    public var ssrc: UInt32
    /// The fraction of packets lost since the last report, in 1/256ths.
    public var fractionLost: UInt8
    /// Packets lost since the start (24 bits).
    public var cumulativeLost: UInt32
    /// The highest sequence number received, extended with the count of wrap-arounds.
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter, in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the last sender report's NTP time (``NTPTimestamp/reportID``).
    public var lastReportID: UInt32
    /// The delay since that report arrived, in 1/65536 s.
    public var delaySinceLastReport: UInt32

    /// Creates a block.
    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: UInt32, extendedHighestSequence: UInt32, jitter: UInt32,
                lastReportID: UInt32, delaySinceLastReport: UInt32) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost & 0xFF_FFFF
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastReportID = lastReportID
        self.delaySinceLastReport = delaySinceLastReport
    }

    static func read(_ body: inout ByteReader, count: Int) throws(StreamingError) -> [ReportBlock] {
        guard body.remaining >= 24 * count else { throw .malformed("\(count) report block(s) cut off") }
        var blocks: [ReportBlock] = []
        for _ in 0..<count {
            let ssrc = body.u32()!, lost = body.u32()!
            blocks.append(ReportBlock(
                ssrc: ssrc, fractionLost: UInt8(lost >> 24), cumulativeLost: lost & 0xFF_FFFF,
                extendedHighestSequence: body.u32()!, jitter: body.u32()!, lastReportID: body.u32()!,
                delaySinceLastReport: body.u32()!))
        }
        return blocks
    }

    func write(to writer: inout ByteWriter) {
        writer.u32(ssrc)
        writer.u32(UInt32(fractionLost) << 24 | (cumulativeLost & 0xFF_FFFF))
        writer.u32(extendedHighestSequence)
        writer.u32(jitter)
        writer.u32(lastReportID)
        writer.u32(delaySinceLastReport)
    }
}
