import CastDeviceProfiles

/// The decoder configurations containers carry, read into stream descriptions: MP4 boxes (`avcC`,
/// `hvcC`, `vpcC`, `av1C`, `esds`, `dac3`, `dec3`, `dOps`) and the same records as Matroska
/// `CodecPrivate`. Each reads only what it is given and returns `nil` for anything malformed.
enum CodecConfigurations {
    // MARK: Video

    /// An `AVCDecoderConfigurationRecord`: profile, constraint flags and level; the bit depth from
    /// its first sequence parameter set when that reads.
    static func avc(_ record: ArraySlice<UInt8>) -> VideoStreamDescription? {
        guard let version = record.uint(bigEndianAt: 0, width: 1), version == 1,
            let profile = record.uint(bigEndianAt: 1, width: 1), let constraints = record.uint(bigEndianAt: 2, width: 1),
            let level = record.uint(bigEndianAt: 3, width: 1)
        else { return nil }
        var stream = VideoStreamDescription(
            codec: .h264, profile: .h264(profileIDC: Int(profile), constraintSet1: constraints & 0x40 != 0),
            level: CodecLevel(h264LevelIDC: Int(level)))
        if let count = record.uint(bigEndianAt: 5, width: 1), count & 0x1F > 0,
            let length = record.uint(bigEndianAt: 6, width: 2), let sps = slice(record, 8, Int(length)),
            let parsed = ParameterSets.h264(sps)
        {
            stream.bitDepth = parsed.bitDepth
            stream.width = parsed.width
            stream.height = parsed.height
        }
        return stream
    }

    /// An `HEVCDecoderConfigurationRecord`: general profile, level and luma bit depth.
    static func hevc(_ record: ArraySlice<UInt8>) -> VideoStreamDescription? {
        guard record.count >= 23, let version = record.uint(bigEndianAt: 0, width: 1), version == 1,
            let profileByte = record.uint(bigEndianAt: 1, width: 1), let level = record.uint(bigEndianAt: 12, width: 1),
            let depth = record.uint(bigEndianAt: 17, width: 1)
        else { return nil }
        return VideoStreamDescription(
            codec: .hevc, profile: .hevc(profileIDC: Int(profileByte & 0x1F)), level: CodecLevel(hevcLevelIDC: Int(level)),
            bitDepth: Int(depth & 7) + 8)
    }

    /// A `VPCodecConfigurationRecord` (the body of `vpcC` after its version and flags).
    static func vpc(_ record: ArraySlice<UInt8>, codec: MediaCodec) -> VideoStreamDescription? {
        guard let profile = record.uint(bigEndianAt: 0, width: 1), let level = record.uint(bigEndianAt: 1, width: 1),
            let depth = record.uint(bigEndianAt: 2, width: 1)
        else { return nil }
        var stream = VideoStreamDescription(codec: codec, bitDepth: Int(depth >> 4))
        if codec == .vp9 {
            stream.profile = .vp9(Int(profile))
            stream.level = CodecLevel(vp9Level: Int(level))
        }
        return stream
    }

    /// Matroska's VP9 `CodecPrivate`: a list of (id, length, value) features, 1 profile, 2 level,
    /// 3 bit depth.
    static func vp9Features(_ bytes: ArraySlice<UInt8>) -> VideoStreamDescription? {
        var stream = VideoStreamDescription(codec: .vp9)
        var offset = 0
        var found = false
        for _ in 0..<16 {
            guard let id = bytes.uint(bigEndianAt: offset, width: 1), let length = bytes.uint(bigEndianAt: offset + 1, width: 1),
                length >= 1, let value = bytes.uint(bigEndianAt: offset + 2, width: 1)
            else { break }
            switch id {
            case 1: stream.profile = .vp9(Int(value))
            case 2: stream.level = CodecLevel(vp9Level: Int(value))
            case 3: stream.bitDepth = Int(value)
            default: break
            }
            found = true
            offset += 2 + Int(length)
        }
        return found ? stream : nil
    }

    /// A VP9 frame's uncompressed header: the profile, and the bit depth of a key frame.
    static func vp9Frame(_ frame: ArraySlice<UInt8>) -> VideoStreamDescription? {
        var bits = BitReader(frame.prefix(16))
        guard let marker = try? bits.bits(2), marker == 2, let low = try? bits.bits(1), let high = try? bits.bits(1) else {
            return nil
        }
        let profile = Int(high << 1 | low)
        if profile == 3 { _ = try? bits.skip(1) }
        var stream = VideoStreamDescription(codec: .vp9, profile: .vp9(profile))
        guard let showExisting = try? bits.flag(), !showExisting, let frameType = try? bits.bits(1), frameType == 0,
            (try? bits.skip(2)) != nil, let sync = try? bits.bits(24), sync == 0x49_8342
        else { return stream }
        if profile >= 2, let tenOrTwelve = try? bits.flag() {
            stream.bitDepth = tenOrTwelve ? 12 : 10
        } else {
            stream.bitDepth = 8
        }
        // color_config's remainder, then frame_size (width and height minus one, 16 bits each).
        guard let colorSpace = try? bits.bits(3) else { return stream }
        let chromaFlags = colorSpace != 7 ? 1 + (profile == 1 || profile == 3 ? 3 : 0) : (profile == 1 || profile == 3 ? 1 : 0)
        guard (try? bits.skip(chromaFlags)) != nil, let width = try? bits.bits(16), let height = try? bits.bits(16) else {
            return stream
        }
        stream.width = Int(width) + 1
        stream.height = Int(height) + 1
        return stream
    }

    /// An `AV1CodecConfigurationRecord`: profile, level index and bit depth.
    static func av1(_ record: ArraySlice<UInt8>) -> VideoStreamDescription? {
        guard let marker = record.uint(bigEndianAt: 0, width: 1), marker & 0x80 != 0,
            let first = record.uint(bigEndianAt: 1, width: 1), let second = record.uint(bigEndianAt: 2, width: 1)
        else { return nil }
        let highDepth = second & 0x40 != 0
        let twelve = second & 0x20 != 0
        return VideoStreamDescription(
            codec: .av1, profile: .av1(Int(first >> 5)), level: CodecLevel(av1SequenceLevelIndex: Int(first & 0x1F)),
            bitDepth: highDepth ? (twelve ? 12 : 10) : 8)
    }

    // MARK: Audio

    /// The sample rates of an AAC (and ADTS) sampling frequency index.
    static let aacSampleRates = ADTSDurationProbe.sampleRates

    /// An MPEG-4 `AudioSpecificConfig`: the object type (with HE-AAC and HE-AAC v2 signalled
    /// explicitly or by the backward-compatible sync extensions), sample rate and channels.
    static func audioSpecificConfig(_ config: ArraySlice<UInt8>) -> AudioStreamDescription? {
        var bits = BitReader(config.prefix(64))
        func objectType() throws(ProbeStop) -> Int {
            let type = Int(try bits.bits(5))
            return type == 31 ? 32 + Int(try bits.bits(6)) : type
        }
        func sampleRate() throws(ProbeStop) -> Int? {
            let index = Int(try bits.bits(4))
            if index == 15 { return Int(try bits.bits(24)) }
            return index < aacSampleRates.count ? aacSampleRates[index] : nil
        }
        do {
            var type = try objectType()
            var rate = try sampleRate()
            let channelConfiguration = Int(try bits.bits(4))
            var profile = CodecProfile.aac(objectType: type)
            if type == 5 || type == 29 {
                rate = try sampleRate() ?? rate
                type = try objectType()
            } else if [1, 2, 3, 4, 6, 7].contains(type), channelConfiguration != 0 {
                // GASpecificConfig, then the backward-compatible signalling of SBR and PS.
                _ = try bits.bits(1)
                if try bits.flag() { _ = try bits.bits(14) }
                _ = try bits.bits(1)
                if bits.bitsLeft >= 16, try bits.bits(11) == 0x2B7, try objectType() == 5, try bits.flag() {
                    profile = .heAAC
                    rate = try sampleRate() ?? rate
                    if bits.bitsLeft >= 12, try bits.bits(11) == 0x548, try bits.flag() { profile = .heAACv2 }
                }
            }
            let channels: Int? = switch channelConfiguration {
            case 1...6: channelConfiguration
            case 7: 8
            default: nil
            }
            return AudioStreamDescription(codec: .aac, profile: profile, channels: channels, sampleRate: rate)
        } catch {
            return nil
        }
    }

    /// The channels of an AC-3 `acmod` (audio coding mode), without the LFE channel.
    static let ac3Channels = [2, 1, 2, 3, 3, 4, 4, 5]

    /// The body of a `dac3` box (an `AC3SpecificBox`): channels and sample rate.
    static func dac3(_ body: ArraySlice<UInt8>) -> AudioStreamDescription? {
        guard let word = body.uint(bigEndianAt: 0, width: 3) else { return nil }
        let fscod = Int(word >> 22)
        let acmod = Int(word >> 11) & 7
        let lfe = Int(word >> 10) & 1
        return AudioStreamDescription(
            codec: .ac3, channels: ac3Channels[acmod] + lfe, sampleRate: [48_000, 44_100, 32_000, 0][fscod].nonZero)
    }

    /// The body of a `dec3` box (an `EC3SpecificBox`): the first independent substream's channels
    /// and sample rate.
    static func dec3(_ body: ArraySlice<UInt8>) -> AudioStreamDescription? {
        guard let word = body.uint(bigEndianAt: 2, width: 3) else { return nil }
        let fscod = Int(word >> 22)
        let acmod = Int(word >> 9) & 7
        let lfe = Int(word >> 8) & 1
        return AudioStreamDescription(
            codec: .eac3, channels: ac3Channels[acmod] + lfe, sampleRate: [48_000, 44_100, 32_000, 0][fscod].nonZero)
    }

    /// The body of a `dOps` box (an `OpusSpecificBox`): channels (Opus decodes at 48 kHz).
    static func dOps(_ body: ArraySlice<UInt8>) -> AudioStreamDescription? {
        guard let channels = body.uint(bigEndianAt: 1, width: 1), channels > 0 else { return nil }
        return AudioStreamDescription(codec: .opus, channels: Int(channels), sampleRate: 48_000)
    }

    /// A FLAC `STREAMINFO` block body: sample rate, channels and bits per sample.
    static func flacStreamInfo(_ body: ArraySlice<UInt8>) -> AudioStreamDescription? {
        guard let packed = body.uint(bigEndianAt: 10, width: 8) else { return nil }
        let rate = Int(packed >> 44)
        let channels = Int(packed >> 41) & 7 + 1
        let depth = Int(packed >> 36) & 0x1F + 1
        guard rate > 0 else { return nil }
        return AudioStreamDescription(codec: .flac, channels: channels, sampleRate: rate, bitDepth: depth)
    }

    /// The bytes `offset..<offset+count` of `bytes`, when all are there.
    static func slice(_ bytes: ArraySlice<UInt8>, _ offset: Int, _ count: Int) -> ArraySlice<UInt8>? {
        let start = bytes.startIndex + offset
        guard offset >= 0, count >= 0, start + count <= bytes.endIndex else { return nil }
        return bytes[start..<(start + count)]
    }
}

extension Int {
    /// The number, or `nil` for zero.
    var nonZero: Int? { self == 0 ? nil : self }
}
