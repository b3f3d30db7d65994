import CastDeviceProfiles

/// Matroska and WebM: `Segment/Tracks/TrackEntry` gives each track's type, `CodecID` and
/// `CodecPrivate` (an `avcC`, `hvcC`, `av1C`, VP9 features or an AAC `AudioSpecificConfig`),
/// language, name and flags, `Video/PixelWidth`/`PixelHeight` and `Audio` rate and channels.
/// A VP9 track without `CodecPrivate` takes its profile from its first frame in the first cluster.
enum MatroskaCodecProbe {
    static let tracks: UInt64 = 0x1654_AE6B
    static let trackEntry: UInt64 = 0xAE
    static let docType: UInt64 = 0x4282
    /// The most elements walked at one level, and the most tracks read.
    static let maximumElements = 512
    static let maximumTracks = 32

    struct Element: Sendable, Hashable {
        var id: UInt64
        var body: Int
        /// `nil` for an element of unknown size (it runs to its parent's end).
        var end: Int?
    }

    static func probe(_ data: ProbeBytes) -> CodecProbeResult {
        do {
            return .found(try describe(ProbeReader(data)))
        } catch .needs(let range) {
            return .needsBytes(range)
        } catch {
            return .unknown
        }
    }

    static func describe(_ reader: ProbeReader) throws(ProbeStop) -> MediaDescription {
        let limit = reader.data.totalLength ?? Int(Int32.max)
        let header = try element(at: 0, reader)
        guard header.id == MatroskaDurationProbe.ebmlHeader, let headerEnd = header.end else { throw .unreadable }
        var isWebM = false
        var offset = header.body
        for _ in 0..<16 where offset < headerEnd {
            let field = try element(at: offset, reader)
            guard let end = field.end else { throw .unreadable }
            if field.id == docType { isWebM = try reader.bytes(at: field.body, count: min(end - field.body, 16)).elementsEqual(Array("webm".utf8)) }
            offset = end
        }
        let segment = try element(at: headerEnd, reader)
        guard segment.id == MatroskaDurationProbe.segment else { throw .unreadable }
        let segmentEnd = segment.end ?? limit
        offset = segment.body
        var media = MediaDescription(container: isWebM ? .webm : .matroska)
        var vp9WithoutPrivate: [(track: UInt64, index: Int)] = []
        for _ in 0..<maximumElements where offset < segmentEnd {
            let child = try element(at: offset, reader)
            if child.id == MatroskaDurationProbe.cluster {
                if !vp9WithoutPrivate.isEmpty { try firstFrames(in: child, reader, vp9WithoutPrivate, into: &media) }
                break
            }
            guard let end = child.end else { throw .unreadable }
            if child.id == tracks { vp9WithoutPrivate = try readTracks(child.body, end, reader, into: &media) }
            offset = end
        }
        return media
    }

    /// An element header at `offset` (an id of 1 to 4 bytes and a size of 1 to 8).
    static func element(at offset: Int, _ reader: ProbeReader) throws(ProbeStop) -> Element {
        var head = try reader.available(at: offset, count: 12)
        if head.count < 12 {
            // The window ends inside the header: the rest, unless the resource ends there too.
            let left = reader.data.totalLength.map { $0 - offset } ?? 12
            if head.count < min(12, left) { head = try reader.bytes(at: offset, count: min(12, left)) }
        }
        guard let (id, idLength) = MatroskaDurationProbe.elementID(head, at: 0),
            let (size, sizeLength) = MatroskaDurationProbe.elementSize(head, at: idLength)
        else { throw .unreadable }
        let body = offset + idLength + sizeLength
        return Element(id: id, body: body, end: size.map { body + $0 })
    }

    /// Reads `Tracks`; returns the VP9 tracks that had no `CodecPrivate`, by track number.
    private static func readTracks(
        _ start: Int, _ end: Int, _ reader: ProbeReader, into media: inout MediaDescription
    ) throws(ProbeStop) -> [(track: UInt64, index: Int)] {
        var pending: [(track: UInt64, index: Int)] = []
        var offset = start
        var count = 0
        for _ in 0..<maximumElements where offset < end && count < maximumTracks {
            let entry = try element(at: offset, reader)
            guard let entryEnd = entry.end else { throw .unreadable }
            if entry.id == trackEntry {
                count += 1
                if let number = try track(entry.body, entryEnd, reader, into: &media) { pending.append(number) }
            }
            offset = entryEnd
        }
        return pending
    }

    /// The fields of one `TrackEntry`.
    private struct Fields {
        var number: UInt64 = 0
        var type: UInt64 = 0
        var codecID = ""
        var codecPrivate: ArraySlice<UInt8>?
        var language: String?
        var name: String?
        var isDefault = true
        var isForced = false
        var defaultDuration: UInt64?
        var width: Int?
        var height: Int?
        var bitsPerChannel: Int?
        var sampleRate: Double?
        var channels: Int?
        var bitDepth: Int?
    }

    /// Reads one track into `media`; returns (track number, stream index) for a VP9 track without
    /// `CodecPrivate`.
    private static func track(
        _ start: Int, _ end: Int, _ reader: ProbeReader, into media: inout MediaDescription
    ) throws(ProbeStop) -> (track: UInt64, index: Int)? {
        var fields = Fields()
        try walk(start, end, reader) { id, body, bodyEnd throws(ProbeStop) in
            let length = bodyEnd - body
            switch id {
            case 0xD7: fields.number = try unsigned(reader, body, length)
            case 0x83: fields.type = try unsigned(reader, body, length)
            case 0x86: fields.codecID = try string(reader, body, length)
            case 0x63A2: fields.codecPrivate = try reader.bytes(at: body, count: min(length, 4096))
            case 0x22B59C: fields.language = try string(reader, body, length)
            case 0x536E: fields.name = try string(reader, body, length)
            case 0x88: fields.isDefault = try unsigned(reader, body, length) != 0
            case 0x55AA: fields.isForced = try unsigned(reader, body, length) != 0
            case 0x23E383: fields.defaultDuration = try unsigned(reader, body, length)
            case 0xE0:
                try walk(body, bodyEnd, reader) { id, body, end throws(ProbeStop) in
                    switch id {
                    case 0xB0: fields.width = small(try unsigned(reader, body, end - body))
                    case 0xBA: fields.height = small(try unsigned(reader, body, end - body))
                    case 0x55B0:
                        try walk(body, end, reader) { id, body, end throws(ProbeStop) in
                            if id == 0x55B2 { fields.bitsPerChannel = small(try unsigned(reader, body, end - body)) }
                        }
                    default: break
                    }
                }
            case 0xE1:
                try walk(body, bodyEnd, reader) { id, body, end throws(ProbeStop) in
                    switch id {
                    case 0xB5: fields.sampleRate = try float(reader, body, end - body)
                    case 0x9F: fields.channels = small(try unsigned(reader, body, end - body))
                    case 0x6264: fields.bitDepth = small(try unsigned(reader, body, end - body))
                    default: break
                    }
                }
            default: break
            }
        }
        let index = media.video.count + media.audio.count + media.subtitles.count
        switch fields.type {
        case 1:
            guard let codec = videoCodecs[fields.codecID] ?? (fields.codecID.hasPrefix("V_") ? MediaCodec(fields.codecID) : nil) else {
                return nil
            }
            var video = VideoStreamDescription(index: index, codec: codec)
            if let data = fields.codecPrivate {
                let configured: VideoStreamDescription? = switch codec {
                case .h264: CodecConfigurations.avc(data)
                case .hevc: CodecConfigurations.hevc(data)
                case .av1: CodecConfigurations.av1(data)
                case .vp9: CodecConfigurations.vp9Features(data)
                default: nil
                }
                if let configured {
                    video.profile = configured.profile
                    video.level = configured.level
                    video.bitDepth = configured.bitDepth
                }
            }
            video.width = fields.width.flatMap { $0 > 0 ? $0 : nil }
            video.height = fields.height.flatMap { $0 > 0 ? $0 : nil }
            if video.bitDepth == nil, let bits = fields.bitsPerChannel, bits > 0 { video.bitDepth = bits }
            if let frame = fields.defaultDuration, frame > 0 { video.frameRate = 1e9 / Double(frame) }
            media.video.append(video)
            return codec == .vp9 && video.profile == nil ? (fields.number, media.video.count - 1) : nil
        case 2:
            var codec = audioCodecs[fields.codecID] ?? MediaCodec(fields.codecID.lowercased())
            if fields.codecID == "A_PCM/INT/LIT" { codec = fields.bitDepth == 8 ? MediaCodec("pcm_u8") : MediaCodec("pcm_s\(fields.bitDepth ?? 16)le") }
            if fields.codecID.hasPrefix("A_AAC") { codec = .aac }
            var audio = AudioStreamDescription(index: index, codec: codec, language: fields.language)
            if codec == .aac, let data = fields.codecPrivate, let config = CodecConfigurations.audioSpecificConfig(data) {
                audio = config
                audio.index = index
                audio.language = fields.language
            }
            audio.channels = fields.channels ?? audio.channels
            audio.sampleRate = audio.sampleRate ?? fields.sampleRate.flatMap { $0.isFinite && $0 >= 1 && $0 < 1e7 ? Int($0) : nil }
            if codec.isPCM || codec == .flac { audio.bitDepth = fields.bitDepth }
            media.audio.append(audio)
        case 17:
            let codec = subtitleCodecs[fields.codecID] ?? MediaCodec(fields.codecID.lowercased())
            media.subtitles.append(SubtitleStreamDescription(
                index: index, codec: codec, language: fields.language, title: fields.name, isDefault: fields.isDefault,
                isForced: fields.isForced))
        default:
            break
        }
        return nil
    }

    /// Reads the first frame of each listed VP9 track from the first `SimpleBlock`s of a cluster.
    private static func firstFrames(
        in cluster: Element, _ reader: ProbeReader, _ tracks: [(track: UInt64, index: Int)], into media: inout MediaDescription
    ) throws(ProbeStop) {
        var left = tracks
        let end = cluster.end ?? (reader.data.totalLength ?? Int(Int32.max))
        var offset = cluster.body
        for _ in 0..<64 where offset < end && !left.isEmpty {
            let child = try element(at: offset, reader)
            guard let childEnd = child.end else { return }
            if child.id == 0xA3 {  // SimpleBlock: track number (a vint), timecode (2), flags (1), frame
                let head = try reader.bytes(at: child.body, count: min(childEnd - child.body, 32))
                if let (number, length) = MatroskaDurationProbe.elementSize(head, at: 0), let number,
                    let position = left.firstIndex(where: { $0.track == UInt64(number) }),
                    let frame = CodecConfigurations.vp9Frame(head.dropFirst(length + 3))
                {
                    media.video[left[position].index].profile = frame.profile
                    if let depth = frame.bitDepth { media.video[left[position].index].bitDepth = depth }
                    left.remove(at: position)
                }
            }
            offset = childEnd
        }
    }

    /// Walks the children of `start..<end`, calling `visit` with each id and body range.
    private static func walk(
        _ start: Int, _ end: Int, _ reader: ProbeReader, _ visit: (UInt64, Int, Int) throws(ProbeStop) -> Void
    ) throws(ProbeStop) {
        var offset = start
        for _ in 0..<maximumElements where offset < end {
            let child = try element(at: offset, reader)
            guard let childEnd = child.end, childEnd <= end else { throw .unreadable }
            try visit(child.id, child.body, childEnd)
            offset = childEnd
        }
    }

    /// A count or size that a stream could have (below 2^31); `nil` for anything larger or zero.
    private static func small(_ value: UInt64) -> Int? {
        value > 0 && value < UInt64(Int32.max) ? Int(value) : nil
    }

    private static func unsigned(_ reader: ProbeReader, _ offset: Int, _ length: Int) throws(ProbeStop) -> UInt64 {
        guard (1...8).contains(length) else { return 0 }
        return try reader.uint(at: offset, width: length)
    }

    private static func string(_ reader: ProbeReader, _ offset: Int, _ length: Int) throws(ProbeStop) -> String {
        let bytes = try reader.bytes(at: offset, count: min(length, 256))
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func float(_ reader: ProbeReader, _ offset: Int, _ length: Int) throws(ProbeStop) -> Double? {
        switch length {
        case 4: Double(Float(bitPattern: UInt32(try reader.uint(at: offset, width: 4))))
        case 8: Double(bitPattern: try reader.uint(at: offset, width: 8))
        default: nil
        }
    }

    static let videoCodecs: [String: MediaCodec] = [
        "V_MPEG4/ISO/AVC": .h264, "V_MPEGH/ISO/HEVC": .hevc, "V_VP8": .vp8, "V_VP9": .vp9, "V_AV1": .av1,
        "V_THEORA": .theora, "V_MPEG2": .mpeg2video, "V_MPEG1": MediaCodec("mpeg1video"), "V_MPEG4/ISO/ASP": .mpeg4,
        "V_MPEG4/ISO/SP": .mpeg4, "V_MPEG4/ISO/AP": .mpeg4, "V_MJPEG": MediaCodec("mjpeg"), "V_PRORES": MediaCodec("prores"),
        "V_MS/VFW/FOURCC": MediaCodec("vfw"),
    ]
    static let audioCodecs: [String: MediaCodec] = [
        "A_AAC": .aac, "A_AC3": .ac3, "A_EAC3": .eac3, "A_DTS": .dts, "A_TRUEHD": .truehd, "A_OPUS": .opus,
        "A_VORBIS": .vorbis, "A_FLAC": .flac, "A_MPEG/L3": .mp3, "A_MPEG/L2": .mp2, "A_MPEG/L1": MediaCodec("mp1"),
        "A_PCM/INT/BIG": MediaCodec("pcm_s16be"), "A_PCM/FLOAT/IEEE": MediaCodec("pcm_f32le"), "A_ALAC": .alac,
    ]
    static let subtitleCodecs: [String: MediaCodec] = [
        "S_TEXT/UTF8": .subrip, "S_TEXT/ASCII": .subrip, "S_TEXT/ASS": .ass, "S_TEXT/SSA": .ass, "S_ASS": .ass,
        "S_SSA": .ass, "S_TEXT/WEBVTT": .webvtt, "D_WEBVTT/SUBTITLES": .webvtt, "D_WEBVTT/CAPTIONS": .webvtt,
        "S_HDMV/PGS": .pgs, "S_VOBSUB": .dvdSubtitle, "S_DVBSUB": .dvbSubtitle, "S_HDMV/TEXTST": MediaCodec("hdmv_text_subtitle"),
    ]
}
