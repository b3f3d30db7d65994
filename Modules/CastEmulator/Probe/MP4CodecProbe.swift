import CastDeviceProfiles

/// MP4 and QuickTime: each `moov/trak`'s first sample entry (`mdia/minf/stbl/stsd`) names the codec;
/// its configuration box (`avcC`, `hvcC`, `vpcC`, `av1C`, `esds`, `dac3`, `dec3`, `dOps`, `dfLa`)
/// the profile and level; the visual sample entry the coded size; `mdhd` and `stts` the frame rate.
///
/// Boxes are walked by their sizes through ``ProbeReader``: a `moov` after `mdat`, or a track that
/// starts beyond the fetched bytes, is asked for.
enum MP4CodecProbe {
    /// One box: its type, where it starts, where its body starts and where it ends.
    struct Box: Sendable, Hashable {
        var type: String
        var start: Int
        var body: Int
        var end: Int
    }

    /// The most boxes walked at one level, and the most tracks read.
    static let maximumBoxes = 256
    static let maximumTracks = 16
    /// The most bytes of one sample entry read.
    static let maximumEntry = 4096

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
        var media = MediaDescription(container: .mp4)
        guard let moov = try child("moov", of: nil, reader) else { throw .unreadable }
        var tracks = 0
        var offset = moov.body
        for _ in 0..<maximumBoxes where offset < moov.end && tracks < maximumTracks {
            let box = try header(at: offset, reader, within: moov.end)
            if box.type == "trak" {
                tracks += 1
                try track(box, reader, into: &media)
            }
            offset = box.end
        }
        return media
    }

    /// The box header at `offset` (32- or 64-bit size; size 0 runs to `limit`).
    static func header(at offset: Int, _ reader: ProbeReader, within limit: Int) throws(ProbeStop) -> Box {
        let head = try reader.bytes(at: offset, count: 8)
        guard let size32 = head.uint(bigEndianAt: 0, width: 4), let type = MP4DurationProbe.boxType(head, at: 4) else {
            throw .unreadable
        }
        var size = Int(size32)
        var body = offset + 8
        if size32 == 1 {
            let large = try reader.uint(at: offset + 8, width: 8)
            guard large <= 1 << 50 else { throw .unreadable }
            size = Int(large)
            body += 8
        } else if size32 == 0 {
            size = limit - offset
        }
        guard size >= body - offset, offset + size <= limit else { throw .unreadable }
        return Box(type: type, start: offset, body: body, end: offset + size)
    }

    /// The first child of `parent` (the top level when `nil`) of type `type`.
    static func child(_ type: String, of parent: Box?, _ reader: ProbeReader) throws(ProbeStop) -> Box? {
        var offset = parent?.body ?? 0
        let end = parent?.end ?? reader.data.totalLength ?? Int(Int32.max)
        for _ in 0..<maximumBoxes where offset + 8 <= end {
            let box = try header(at: offset, reader, within: end)
            if box.type == type { return box }
            offset = box.end
        }
        return nil
    }

    /// Reads one `trak` into `media`.
    private static func track(_ trak: Box, _ reader: ProbeReader, into media: inout MediaDescription) throws(ProbeStop) {
        guard let mdia = try child("mdia", of: trak, reader), let minf = try child("minf", of: mdia, reader),
            let stbl = try child("stbl", of: minf, reader), let stsd = try child("stsd", of: stbl, reader)
        else { return }
        let first = try header(at: stsd.body + 8, reader, within: stsd.end)
        let entry = try reader.bytes(at: first.start, count: min(first.end - first.start, maximumEntry))
        guard let stream = sampleEntry(first.type, entry) else { return }
        switch stream {
        case .video(var video):
            video.index = media.video.count + media.audio.count + media.subtitles.count
            if let timescale = try mediaTimescale(mdia, reader), let delta = try firstSampleDelta(stbl, reader), delta > 0 {
                video.frameRate = Double(timescale) / Double(delta)
            }
            media.video.append(video)
        case .audio(var audio):
            audio.index = media.video.count + media.audio.count + media.subtitles.count
            media.audio.append(audio)
        case .subtitle(var subtitle):
            subtitle.index = media.video.count + media.audio.count + media.subtitles.count
            media.subtitles.append(subtitle)
        }
    }

    private static func mediaTimescale(_ mdia: Box, _ reader: ProbeReader) throws(ProbeStop) -> UInt64? {
        guard let mdhd = try child("mdhd", of: mdia, reader) else { return nil }
        let version = try reader.uint(at: mdhd.body, width: 1)
        let timescale = try reader.uint(at: mdhd.body + (version == 1 ? 20 : 12), width: 4)
        return timescale > 0 ? timescale : nil
    }

    private static func firstSampleDelta(_ stbl: Box, _ reader: ProbeReader) throws(ProbeStop) -> UInt64? {
        guard let stts = try child("stts", of: stbl, reader), try reader.uint(at: stts.body + 4, width: 4) > 0 else {
            return nil
        }
        return try reader.uint(at: stts.body + 12, width: 4)
    }

    /// A stream read from a sample entry.
    enum Stream: Sendable, Hashable {
        case video(VideoStreamDescription)
        case audio(AudioStreamDescription)
        case subtitle(SubtitleStreamDescription)
    }

    static let videoEntries: [String: MediaCodec] = [
        "avc1": .h264, "avc3": .h264, "hvc1": .hevc, "hev1": .hevc, "dvh1": .hevc, "dvhe": .hevc, "vp09": .vp9,
        "vp08": .vp8, "av01": .av1, "mp4v": .mpeg4, "jpeg": MediaCodec("mjpeg"), "mjpa": MediaCodec("mjpeg"),
        "s263": MediaCodec("h263"), "h263": MediaCodec("h263"), "apch": MediaCodec("prores"), "apcn": MediaCodec("prores"),
        "apcs": MediaCodec("prores"), "apco": MediaCodec("prores"), "ap4h": MediaCodec("prores"),
    ]
    static let audioEntries: [String: MediaCodec] = [
        "mp4a": .aac, "ac-3": .ac3, "ec-3": .eac3, "Opus": .opus, "fLaC": .flac, ".mp3": .mp3, "alac": .alac,
        "dtsc": .dts, "dtsh": .dts, "dtsl": .dts, "dtse": .dts, "mlpa": .truehd, "sowt": .pcmS16LE,
        "twos": MediaCodec("pcm_s16be"), "in24": MediaCodec("pcm_s24be"), "in32": MediaCodec("pcm_s32be"),
        "fl32": MediaCodec("pcm_f32be"), "fl64": MediaCodec("pcm_f64be"), "raw ": MediaCodec("pcm_u8"),
        "ulaw": MediaCodec("pcm_mulaw"), "alaw": MediaCodec("pcm_alaw"), "lpcm": .pcmS16LE, "ipcm": .pcmS16LE,
        "samr": MediaCodec("amr_nb"), "sawb": MediaCodec("amr_wb"),
    ]
    static let subtitleEntries: [String: MediaCodec] = [
        "tx3g": .movText, "text": .movText, "wvtt": .webvtt, "stpp": .ttml,
    ]

    /// Reads a sample entry (the whole box, header included).
    static func sampleEntry(_ type: String, _ entry: ArraySlice<UInt8>) -> Stream? {
        if let codec = videoEntries[type] {
            var video = VideoStreamDescription(codec: codec)
            for box in children(of: entry, from: 86) {
                let configured: VideoStreamDescription? = switch (box.type, codec) {
                case ("avcC", .h264): CodecConfigurations.avc(box.body)
                case ("hvcC", .hevc): CodecConfigurations.hevc(box.body)
                case ("vpcC", _): CodecConfigurations.vpc(box.body.dropFirst(4), codec: codec)
                case ("av1C", .av1): CodecConfigurations.av1(box.body)
                case ("esds", _): elementaryStream(box.body).flatMap { $0.video }
                default: nil
                }
                if let configured { video = merged(configured, into: video) }
            }
            if let width = entry.uint(bigEndianAt: 32, width: 2), let height = entry.uint(bigEndianAt: 34, width: 2),
                width > 0, height > 0
            {
                video.width = Int(width)
                video.height = Int(height)
            }
            return .video(video)
        }
        if let codec = audioEntries[type] {
            guard let version = entry.uint(bigEndianAt: 16, width: 2) else { return nil }
            var audio = AudioStreamDescription(codec: codec)
            // An MP4 (not QuickTime) `mp4a` entry holds the template values 2 and 16: its
            // configuration says the channels, or nothing does.
            let channels = type == "mp4a" && version == 0 ? nil : entry.uint(bigEndianAt: 24, width: 2).map(Int.init)
            audio.channels = channels.flatMap { $0 > 0 ? $0 : nil }
            audio.sampleRate = entry.uint(bigEndianAt: 32, width: 2).flatMap { $0 > 0 ? Int($0) : nil }
            if codec.isPCM || codec == .alac, let size = entry.uint(bigEndianAt: 26, width: 2), size > 0 {
                audio.bitDepth = Int(size)
            }
            let childrenStart = version == 1 ? 52 : version == 2 ? 72 : 36
            if version == 2 {
                audio.channels = entry.uint(bigEndianAt: 48, width: 4).flatMap { $0 > 0 && $0 < 64 ? Int($0) : nil }
                audio.sampleRate = entry.uint(bigEndianAt: 40, width: 8).flatMap { bits -> Int? in
                    let rate = Double(bitPattern: bits)
                    return rate.isFinite && rate >= 1 && rate < 1e7 ? Int(rate) : nil
                }
            }
            for box in children(of: entry, from: childrenStart) {
                let configured: AudioStreamDescription? = switch box.type {
                case "esds": elementaryStream(box.body).flatMap { $0.audio }
                case "dac3": CodecConfigurations.dac3(box.body)
                case "dec3": CodecConfigurations.dec3(box.body)
                case "dOps": CodecConfigurations.dOps(box.body)
                case "dfLa": CodecConfigurations.flacStreamInfo(box.body.dropFirst(8))
                default: nil
                }
                if let configured { audio = merged(configured, into: audio) }
            }
            return .audio(audio)
        }
        if let codec = subtitleEntries[type] { return .subtitle(SubtitleStreamDescription(codec: codec)) }
        return nil
    }

    /// A configuration record's findings over what the sample entry said (its known fields win).
    private static func merged(_ found: VideoStreamDescription, into base: VideoStreamDescription) -> VideoStreamDescription {
        var result = base
        result.codec = found.codec
        result.profile = found.profile ?? base.profile
        result.level = found.level ?? base.level
        result.bitDepth = found.bitDepth ?? base.bitDepth
        result.width = base.width ?? found.width
        result.height = base.height ?? found.height
        return result
    }

    private static func merged(_ found: AudioStreamDescription, into base: AudioStreamDescription) -> AudioStreamDescription {
        var result = base
        result.codec = found.codec
        result.profile = found.profile ?? base.profile
        result.channels = found.channels ?? base.channels
        result.sampleRate = found.sampleRate ?? base.sampleRate
        result.bitDepth = found.bitDepth ?? base.bitDepth
        return result
    }

    /// A child box inside a sample entry: its type and body.
    struct Child {
        var type: String
        var body: ArraySlice<UInt8>
    }

    /// The boxes of `bytes` from `offset` on (at most 32), as far as they are whole.
    static func children(of bytes: ArraySlice<UInt8>, from offset: Int) -> [Child] {
        var result: [Child] = []
        var position = offset
        for _ in 0..<32 {
            guard let size = bytes.uint(bigEndianAt: position, width: 4), size >= 8,
                let type = MP4DurationProbe.boxType(bytes, at: position + 4),
                let body = CodecConfigurations.slice(bytes, position + 8, Int(size) - 8)
            else { break }
            result.append(Child(type: type, body: body))
            position += Int(size)
        }
        return result
    }

    /// What an `esds` (the body: version and flags, then an `ES_Descriptor`) says.
    struct ElementaryStream {
        var video: VideoStreamDescription?
        var audio: AudioStreamDescription?
    }

    static func elementaryStream(_ body: ArraySlice<UInt8>) -> ElementaryStream? {
        var offset = 4
        guard let (tag, length, start) = descriptor(body, at: offset), tag == 3 else { return nil }
        let end = start + length
        guard let flags = body.uint(bigEndianAt: start + 2, width: 1) else { return nil }
        offset = start + 3
        if flags & 0x80 != 0 { offset += 2 }
        if flags & 0x40 != 0, let urlLength = body.uint(bigEndianAt: offset, width: 1) { offset += 1 + Int(urlLength) }
        if flags & 0x20 != 0 { offset += 2 }
        guard offset < end, let (configTag, configLength, configStart) = descriptor(body, at: offset), configTag == 4,
            let indication = body.uint(bigEndianAt: configStart, width: 1)
        else { return nil }
        var specific: ArraySlice<UInt8>?
        if configLength > 13, let (infoTag, infoLength, infoStart) = descriptor(body, at: configStart + 13), infoTag == 5 {
            specific = CodecConfigurations.slice(body, infoStart, infoLength)
        }
        switch indication {
        case 0x40, 0x66, 0x67, 0x68:
            var audio = specific.flatMap(CodecConfigurations.audioSpecificConfig) ?? AudioStreamDescription(codec: .aac)
            if audio.profile == nil, indication != 0x40 { audio.profile = indication == 0x67 ? .lc : CodecProfile("Main") }
            return ElementaryStream(audio: audio)
        case 0x69, 0x6B: return ElementaryStream(audio: AudioStreamDescription(codec: .mp3))
        case 0xA5: return ElementaryStream(audio: AudioStreamDescription(codec: .ac3))
        case 0xA6: return ElementaryStream(audio: AudioStreamDescription(codec: .eac3))
        case 0xA9, 0xAC: return ElementaryStream(audio: AudioStreamDescription(codec: .dts))
        case 0xAD: return ElementaryStream(audio: AudioStreamDescription(codec: .opus))
        case 0xDD: return ElementaryStream(audio: AudioStreamDescription(codec: .vorbis))
        case 0x20: return ElementaryStream(video: VideoStreamDescription(codec: .mpeg4))
        case 0x21: return ElementaryStream(video: VideoStreamDescription(codec: .h264))
        case 0x60...0x65: return ElementaryStream(video: VideoStreamDescription(codec: .mpeg2video))
        case 0x6A: return ElementaryStream(video: VideoStreamDescription(codec: MediaCodec("mpeg1video")))
        case 0x6C: return ElementaryStream(video: VideoStreamDescription(codec: MediaCodec("mjpeg")))
        default: return nil
        }
    }

    /// An MPEG-4 descriptor's tag, body length and body offset (the length is 1 to 4 bytes of 7 bits).
    static func descriptor(_ bytes: ArraySlice<UInt8>, at offset: Int) -> (Int, Int, Int)? {
        guard let tag = bytes.uint(bigEndianAt: offset, width: 1) else { return nil }
        var length = 0
        var position = offset + 1
        for _ in 0..<4 {
            guard let byte = bytes.uint(bigEndianAt: position, width: 1) else { return nil }
            position += 1
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int(tag), length, position) }
        }
        return nil
    }
}
