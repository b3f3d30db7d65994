/// Ogg pages of an Opus stream (RFC 7845): the OpusHead and OpusTags headers, then one page per
/// packet with its granule position (48 kHz samples at the packet's end), which ffmpeg reads and plays.
struct OggOpusWriter: Sendable {
    let serial: UInt32
    let channels: Int
    private var sequence: UInt32 = 0
    private var firstTimestamp: Int64?
    private(set) var granule: Int64 = 0
    /// The last packet, held back so the stream's final page can carry the end-of-stream flag.
    private var held: (data: [UInt8], granule: Int64)?

    init(serial: UInt32, channels: Int) {
        self.serial = serial
        self.channels = max(1, min(2, channels))
    }

    /// The two header pages.
    mutating func headers() -> [UInt8] {
        var head = Array("OpusHead".utf8)
        head += [1, UInt8(channels)] + le16(312) + le32(48_000) + le16(0) + [0]
        var tags = Array("OpusTags".utf8)
        let vendor = Array("Castor cast-receiver".utf8)
        tags += le32(UInt32(vendor.count)) + vendor + le32(0)
        return page(head, granule: 0, flags: 0x02) + page(tags, granule: 0, flags: 0)
    }

    /// Takes one Opus packet, placed by its RTP timestamp (48 kHz); returns the page of the packet before
    /// it (each packet is held until the next, so that the last page can be marked as the end).
    mutating func packet(_ data: [UInt8], rtpTimestamp: Int64) -> [UInt8] {
        let first = firstTimestamp ?? rtpTimestamp
        if firstTimestamp == nil { firstTimestamp = rtpTimestamp }
        let start = max(granule, rtpTimestamp - first)
        granule = start + Int64(Self.samples(in: data))
        let previous = held.map { page($0.data, granule: $0.granule, flags: 0) } ?? []
        held = (data, granule)
        return previous
    }

    /// The last packet's page, marked as the end of the stream.
    mutating func end() -> [UInt8] {
        guard let last = held else { return [] }
        held = nil
        return page(last.data, granule: last.granule, flags: 0x04)
    }

    /// The 48 kHz samples an Opus packet holds, from its TOC byte (RFC 6716 §3.1).
    static func samples(in packet: [UInt8]) -> Int {
        guard let toc = packet.first else { return 0 }
        let config = Int(toc >> 3)
        let frameSamples: Int
        switch config {
        case 0...11: frameSamples = [480, 960, 1920, 2880][config % 4]
        case 12...15: frameSamples = [480, 960][config % 2]
        default: frameSamples = [120, 240, 480, 960][config % 4]
        }
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default: frames = packet.count > 1 ? Int(packet[1] & 0x3F) : 0
        }
        return frameSamples * frames
    }

    private mutating func page(_ data: [UInt8], granule: Int64, flags: UInt8) -> [UInt8] {
        var lacing: [UInt8] = []
        var remaining = data.count
        repeat {
            let segment = min(255, remaining)
            lacing.append(UInt8(segment))
            remaining -= segment
            if segment < 255 { break }
        } while true
        var bytes = Array("OggS".utf8) + [0, flags]
        bytes += le64(UInt64(bitPattern: granule)) + le32(serial) + le32(sequence) + [0, 0, 0, 0]
        bytes.append(UInt8(lacing.count))
        bytes += lacing + data
        let crc = Self.crc(bytes)
        bytes[22] = UInt8(truncatingIfNeeded: crc)
        bytes[23] = UInt8(truncatingIfNeeded: crc >> 8)
        bytes[24] = UInt8(truncatingIfNeeded: crc >> 16)
        bytes[25] = UInt8(truncatingIfNeeded: crc >> 24)
        sequence += 1
        return bytes
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? value << 1 ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    /// Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0).
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = crc << 8 ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    private func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
}

/// ADTS framing for raw AAC frames: a 7-byte header per frame naming the object type, the sample rate
/// and the channels, which ffmpeg reads as an `.aac` file.
struct ADTSWriter: Sendable {
    let objectType: Int
    let sampleRateIndex: Int
    let channels: Int

    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    init(sampleRate: Int, channels: Int, codecParameter: String?) {
        sampleRateIndex = Self.sampleRates.firstIndex(of: sampleRate) ?? 3
        self.channels = max(1, min(7, channels))
        // `mp4a.40.N`: N is the object type (2 LC, 5 HE-AAC); ADTS can only say types 1…4, so HE-AAC is
        // written as its LC core, as encoders do.
        let named = codecParameter.flatMap { Int($0.split(separator: ".").last ?? "") } ?? 2
        objectType = (1...4).contains(named) ? named : 2
    }

    /// A frame behind its ADTS header.
    func frame(_ data: [UInt8]) -> [UInt8] {
        let length = data.count + 7
        guard length < 1 << 13 else { return [] }
        let profile = UInt8(objectType - 1)
        return [
            0xFF, 0xF1,
            profile << 6 | UInt8(sampleRateIndex) << 2 | UInt8(channels >> 2),
            UInt8(channels & 3) << 6 | UInt8(length >> 11),
            UInt8((length >> 3) & 0xFF),
            UInt8(length & 7) << 5 | 0x1F,
            0xFC,
        ] + data
    }
}
