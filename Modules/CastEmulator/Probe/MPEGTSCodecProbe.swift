import CastDeviceProfiles

/// MPEG-2 transport streams: the PAT names the first program's PMT; the PMT lists each elementary
/// stream's `stream_type` and descriptors (language, AC-3, E-AC-3, DVB subtitles, registration);
/// the first PES of an H.264 or HEVC stream gives its SPS (profile, level, size, bit depth), of an
/// AAC stream its ADTS header, of an MPEG audio stream its layer. Only the fetched prefix is read.
enum MPEGTSCodecProbe {
    static let packetLength = 188
    /// The most packets read, and the most payload bytes gathered from one stream's first PES.
    static let maximumPackets = 4096
    static let maximumPESBytes = 16 * 1024

    static func looksLikeTransportStream(_ prefix: [UInt8]) -> Bool {
        syncOffset(prefix) != nil
    }

    /// The offset of the first of three packets in a row that start with the sync byte.
    static func syncOffset(_ bytes: [UInt8]) -> Int? {
        for offset in 0..<min(packetLength, bytes.count) where bytes[offset] == 0x47 {
            let second = offset + packetLength, third = offset + 2 * packetLength
            if second < bytes.count, bytes[second] == 0x47, third >= bytes.count || bytes[third] == 0x47 { return offset }
        }
        return nil
    }

    /// One elementary stream the PMT lists.
    struct ElementaryStream: Sendable, Hashable {
        var pid: Int
        var streamType: Int
        var descriptors: [(tag: Int, body: [UInt8])] = []
        var payload: [UInt8] = []
        var collecting = false
        var done = false

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.pid == rhs.pid && lhs.streamType == rhs.streamType }
        func hash(into hasher: inout Hasher) { hasher.combine(pid) }

        var language: String? {
            guard let body = descriptors.first(where: { $0.tag == 0x0A })?.body, body.count >= 3 else { return nil }
            let code = String(decoding: body.prefix(3), as: UTF8.self)
            return code.allSatisfy(\.isLetter) ? code : nil
        }

        var registration: String? {
            guard let body = descriptors.first(where: { $0.tag == 0x05 })?.body, body.count >= 4 else { return nil }
            return String(decoding: body.prefix(4), as: UTF8.self)
        }

        /// The codec by stream type and descriptors; `nil` for data streams.
        var codec: MediaCodec? {
            switch streamType {
            case 0x01: return MediaCodec("mpeg1video")
            case 0x02: return .mpeg2video
            case 0x03, 0x04: return .mp3  // refined from the first frame's layer
            case 0x0F: return .aac
            case 0x11: return MediaCodec("aac_latm")
            case 0x10: return .mpeg4
            case 0x1B: return .h264
            case 0x24: return .hevc
            case 0xEA: return .vc1
            case 0x81: return .ac3
            case 0x82, 0x85, 0x8A: return .dts
            case 0x83: return .truehd
            case 0x84, 0x87: return .eac3
            case 0x90: return .pgs
            case 0x06:
                if descriptors.contains(where: { $0.tag == 0x6A }) { return .ac3 }
                if descriptors.contains(where: { $0.tag == 0x7A }) { return .eac3 }
                if descriptors.contains(where: { $0.tag == 0x7B }) { return .dts }
                if descriptors.contains(where: { $0.tag == 0x59 }) { return .dvbSubtitle }
                if descriptors.contains(where: { $0.tag == 0x56 }) { return MediaCodec("dvb_teletext") }
                switch registration {
                case "AC-3": return .ac3
                case "EAC3": return .eac3
                case "Opus": return .opus
                case "HEVC": return .hevc
                case "DTS1", "DTS2", "DTS3": return .dts
                default: return nil
                }
            default:
                return nil
            }
        }

        /// Whether the first PES payload refines the stream (size, profile, layer).
        var wantsPayload: Bool {
            guard let codec else { return false }
            return [.h264, .hevc, .aac, .mp3, .ac3].contains(codec)
        }
    }

    static func probe(_ data: ProbeBytes) -> CodecProbeResult {
        let bytes = data.prefix
        guard let start = syncOffset(bytes) else { return .unknown }
        var pmtPID: Int?
        var streams: [ElementaryStream]?
        var offset = start
        var packets = 0
        while offset + packetLength <= bytes.count, packets < maximumPackets {
            defer {
                offset += packetLength
                packets += 1
            }
            guard bytes[offset] == 0x47 else { break }
            let unitStart = bytes[offset + 1] & 0x40 != 0
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            let adaptation = (bytes[offset + 3] >> 4) & 3
            var payload = offset + 4
            if adaptation & 2 != 0 { payload += 1 + Int(bytes[offset + 4]) }
            guard adaptation & 1 != 0, payload < offset + packetLength else { continue }
            let body = bytes[payload..<(offset + packetLength)]
            if pid == 0, unitStart, pmtPID == nil {
                pmtPID = programMapPID(body)
            } else if pid == pmtPID, unitStart, streams == nil {
                streams = programMap(body)
            } else if var list = streams, let index = list.firstIndex(where: { $0.pid == pid }), list[index].wantsPayload,
                !list[index].done
            {
                if unitStart {
                    if list[index].collecting { list[index].done = true } else { list[index].collecting = true }
                }
                if list[index].collecting, !list[index].done {
                    list[index].payload += body.prefix(maximumPESBytes - list[index].payload.count)
                    if list[index].payload.count >= maximumPESBytes { list[index].done = true }
                }
                streams = list
                if list.allSatisfy({ !$0.wantsPayload || $0.done }) { break }
            }
        }
        guard let streams else { return .unknown }
        var media = MediaDescription(container: .mpegts)
        for stream in streams {
            describe(stream, index: media.video.count + media.audio.count + media.subtitles.count, into: &media)
        }
        return .found(media)
    }

    /// The PMT PID of the first program a PAT section lists (program 0 is the network PID).
    static func programMapPID(_ payload: ArraySlice<UInt8>) -> Int? {
        guard let section = section(payload, tableID: 0) else { return nil }
        var offset = 8
        while offset + 4 <= section.count - 4 {
            let program = Int(section[section.startIndex + offset]) << 8 | Int(section[section.startIndex + offset + 1])
            let pid = Int(section[section.startIndex + offset + 2] & 0x1F) << 8 | Int(section[section.startIndex + offset + 3])
            if program != 0 { return pid }
            offset += 4
        }
        return nil
    }

    /// The elementary streams of a PMT section.
    static func programMap(_ payload: ArraySlice<UInt8>) -> [ElementaryStream]? {
        guard let section = section(payload, tableID: 2), section.count >= 12 else { return nil }
        let base = section.startIndex
        let infoLength = Int(section[base + 10] & 0x0F) << 8 | Int(section[base + 11])
        var offset = 12 + infoLength
        var streams: [ElementaryStream] = []
        while offset + 5 <= section.count - 4, streams.count < 32 {
            let type = Int(section[base + offset])
            let pid = Int(section[base + offset + 1] & 0x1F) << 8 | Int(section[base + offset + 2])
            let length = Int(section[base + offset + 3] & 0x0F) << 8 | Int(section[base + offset + 4])
            var stream = ElementaryStream(pid: pid, streamType: type)
            var position = offset + 5
            let end = min(position + length, section.count - 4)
            while position + 2 <= end {
                let tag = Int(section[base + position]), size = Int(section[base + position + 1])
                guard position + 2 + size <= end else { break }
                stream.descriptors.append((tag, Array(section[(base + position + 2)..<(base + position + 2 + size)])))
                position += 2 + size
            }
            streams.append(stream)
            offset += 5 + length
        }
        return streams
    }

    /// A PSI section of `tableID` in a packet payload (after its pointer field), trimmed to its
    /// `section_length`; the section must fit the packet.
    static func section(_ payload: ArraySlice<UInt8>, tableID: UInt8) -> ArraySlice<UInt8>? {
        guard let pointer = payload.first else { return nil }
        let start = payload.startIndex + 1 + Int(pointer)
        guard start + 3 <= payload.endIndex, payload[start] == tableID else { return nil }
        let length = Int(payload[start + 1] & 0x0F) << 8 | Int(payload[start + 2])
        guard length >= 9, start + 3 + length <= payload.endIndex else { return nil }
        return payload[start..<(start + 3 + length)]
    }

    /// The payload of a PES packet after its header.
    static func elementaryData(_ pes: [UInt8]) -> ArraySlice<UInt8>? {
        guard pes.count >= 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { return nil }
        let start = 9 + Int(pes[8])
        guard start <= pes.count else { return nil }
        return pes[start...]
    }

    private static func describe(_ stream: ElementaryStream, index: Int, into media: inout MediaDescription) {
        guard let codec = stream.codec else { return }
        let data = elementaryData(stream.payload) ?? []
        switch codec.kind {
        case .video:
            var video = VideoStreamDescription(index: index, codec: codec)
            let units = annexBUnits(data)
            let sequence: ParameterSets.Sequence? = switch codec {
            case .h264: units.lazy.compactMap(ParameterSets.h264).first
            case .hevc: units.lazy.compactMap(ParameterSets.hevc).first
            default: nil
            }
            if let sequence {
                video.profile = sequence.profile
                video.level = sequence.level
                video.width = sequence.width
                video.height = sequence.height
                video.bitDepth = sequence.bitDepth
            }
            media.video.append(video)
        case .audio:
            var audio = AudioStreamDescription(index: index, codec: codec, language: stream.language)
            if codec == .aac, let header = ADTSHeader(data, at: 0) {
                audio.profile = .aac(objectType: header.objectType)
                audio.sampleRate = header.sampleRate
                audio.channels = header.channels
            } else if codec == .mp3, let frame = MP3DurationProbe.FrameHeader(data, at: 0) {
                audio.codec = [1: MediaCodec("mp1"), 2: .mp2][frame.layer] ?? .mp3
                audio.sampleRate = frame.sampleRate
                audio.channels = frame.isMono ? 1 : 2
            } else if codec == .ac3, let header = AC3Header(data) {
                audio.sampleRate = header.sampleRate
                audio.channels = header.channels
            }
            media.audio.append(audio)
        case .subtitle:
            media.subtitles.append(SubtitleStreamDescription(index: index, codec: codec, language: stream.language))
        case .other:
            break
        }
    }
}

/// An AAC ADTS frame header: the object type, sample rate and channels.
struct ADTSHeader: Sendable, Hashable {
    var objectType: Int
    var sampleRate: Int
    var channels: Int?

    init?(_ bytes: ArraySlice<UInt8>, at offset: Int) {
        guard ADTSDurationProbe.FrameHeader(bytes, at: offset) != nil, let word = bytes.uint(bigEndianAt: offset, width: 4) else {
            return nil
        }
        objectType = Int(word >> 14) & 3 + 1
        let rateIndex = Int(word >> 10) & 0xF
        guard rateIndex < ADTSDurationProbe.sampleRates.count else { return nil }
        sampleRate = ADTSDurationProbe.sampleRates[rateIndex]
        let configuration = Int(word >> 6) & 7
        channels = configuration == 0 ? nil : configuration == 7 ? 8 : configuration
    }
}

/// An AC-3 sync frame's header (`0B 77`, CRC, `fscod`/`frmsizecod`, then the bit stream info).
struct AC3Header: Sendable, Hashable {
    var sampleRate: Int?
    var channels: Int

    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.uint(bigEndianAt: 0, width: 2) == 0x0B77, let code = bytes.uint(bigEndianAt: 4, width: 1),
            let info = bytes.uint(bigEndianAt: 5, width: 2)
        else { return nil }
        let bsid = Int(info >> 11)
        guard bsid <= 10 else { return nil }  // E-AC-3 (bsid 16) has another header
        sampleRate = [48_000, 44_100, 32_000, 0][Int(code >> 6)].nonZero
        let acmod = Int(info >> 5) & 7
        // After acmod, in the 5 bits left of `info`: cmixlev (2) with 3 front channels, surmixlev (2)
        // with surround, dsurmod (2) for 2/0; then lfeon.
        var consumed = 0
        if acmod & 1 != 0, acmod != 1 { consumed += 2 }
        if acmod & 4 != 0 { consumed += 2 }
        if acmod == 2 { consumed += 2 }
        let lfe = Int(info >> (4 - consumed)) & 1
        channels = CodecConfigurations.ac3Channels[acmod] + lfe
    }
}
