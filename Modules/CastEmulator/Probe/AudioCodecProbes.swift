import CastDeviceProfiles

/// The codecs of audio files and of the containers the duration probes read from their first bytes:
/// FLAC (`STREAMINFO`), WAV (`fmt `), Ogg (each stream's identification header: Vorbis, Opus, FLAC,
/// Theora), AAC in ADTS (the first frame header), MPEG audio (the first frame's layer), and AVI
/// (the container only: no Cast device reads it).
enum AudioCodecProbes {
    /// The codecs of `prefix`; `nil` when it is none of these formats.
    static func probe(_ prefix: [UInt8]) -> CodecProbeResult? {
        let bytes = prefix[...]
        if FLACDurationProbe.looksLikeFLAC(prefix) { return flac(bytes) }
        if bytes.matches("RIFF", at: 0), bytes.matches("AVI ", at: 8) { return .found(MediaDescription(container: .avi)) }
        if WAVDurationProbe.looksLikeWAV(prefix) { return wav(bytes) }
        if OggDurationProbe.looksLikeOgg(prefix) { return ogg(bytes) }
        let tags = MP3DurationProbe.id3v2Length(bytes)
        if let header = ADTSHeader(bytes, at: tags), ADTSDurationProbe.probe(ProbeBytes(prefix: prefix, totalLength: nil)) != nil {
            return .found(MediaDescription(container: .adts, audio: [AudioStreamDescription(
                index: 0, codec: .aac, profile: .aac(objectType: header.objectType), channels: header.channels,
                sampleRate: header.sampleRate)]))
        }
        if MP3DurationProbe.probe(ProbeBytes(prefix: prefix, totalLength: nil)) != nil, let frame = firstMPEGFrame(bytes, from: tags) {
            let codec = [1: MediaCodec("mp1"), 2: MediaCodec.mp2][frame.layer] ?? .mp3
            return .found(MediaDescription(container: .mp3, audio: [AudioStreamDescription(
                index: 0, codec: codec, channels: frame.isMono ? 1 : 2, sampleRate: frame.sampleRate)]))
        }
        return nil
    }

    /// The first MPEG audio frame header at or after `offset` (within the MP3 probe's search limit).
    static func firstMPEGFrame(_ bytes: ArraySlice<UInt8>, from offset: Int) -> MP3DurationProbe.FrameHeader? {
        var position = offset
        while position < min(bytes.count, offset + MP3DurationProbe.searchLimit) {
            if let header = MP3DurationProbe.FrameHeader(bytes, at: position) { return header }
            position += 1
        }
        return nil
    }

    static func flac(_ bytes: ArraySlice<UInt8>) -> CodecProbeResult {
        let start = MP3DurationProbe.id3v2Length(bytes)
        guard let block = bytes.uint(bigEndianAt: start + 4, width: 4), (block >> 24) & 0x7F == 0,
            var audio = CodecConfigurations.flacStreamInfo(bytes.dropFirst(start + 8))
        else { return .unknown }
        audio.index = 0
        return .found(MediaDescription(container: .flac, audio: [audio]))
    }

    /// The codec of a WAVE format tag and sample size.
    static func wavCodec(tag: UInt64, bits: Int) -> MediaCodec {
        switch tag {
        case 1:
            switch bits {
            case 8: MediaCodec("pcm_u8")
            case 24: MediaCodec("pcm_s24le")
            case 32: MediaCodec("pcm_s32le")
            default: .pcmS16LE
            }
        case 3: MediaCodec(bits == 64 ? "pcm_f64le" : "pcm_f32le")
        case 6: MediaCodec("pcm_alaw")
        case 7: MediaCodec("pcm_mulaw")
        case 0x11: MediaCodec("adpcm_ima_wav")
        case 0x50: .mp2
        case 0x55: .mp3
        case 0x2000: .ac3
        case 0x2001: .dts
        default: MediaCodec("wav_0x\(String(tag, radix: 16))")
        }
    }

    static func wav(_ bytes: ArraySlice<UInt8>) -> CodecProbeResult {
        var offset = 12
        for _ in 0..<WAVDurationProbe.maximumChunks {
            guard let size = bytes.uint(littleEndianAt: offset + 4, width: 4) else { return .unknown }
            if bytes.matches("fmt ", at: offset) {
                guard var tag = bytes.uint(littleEndianAt: offset + 8, width: 2),
                    let channels = bytes.uint(littleEndianAt: offset + 10, width: 2),
                    let rate = bytes.uint(littleEndianAt: offset + 12, width: 4),
                    let bits = bytes.uint(littleEndianAt: offset + 22, width: 2)
                else { return .unknown }
                if tag == 0xFFFE, let subformat = bytes.uint(littleEndianAt: offset + 32, width: 2) { tag = subformat }
                let audio = AudioStreamDescription(
                    index: 0, codec: wavCodec(tag: tag, bits: Int(bits)), channels: channels > 0 ? Int(channels) : nil,
                    sampleRate: rate > 0 ? Int(rate) : nil, bitDepth: bits > 0 ? Int(bits) : nil)
                return .found(MediaDescription(container: .wav, audio: [audio]))
            }
            offset += 8 + Int(size) + Int(size & 1)
        }
        return .unknown
    }

    /// The streams of an Ogg file: the identification packet of each logical stream's first page
    /// (pages flagged beginning-of-stream come first in a file).
    static func ogg(_ bytes: ArraySlice<UInt8>) -> CodecProbeResult {
        var media = MediaDescription(container: .ogg)
        var offset = 0
        for _ in 0..<32 {
            guard bytes.matches("OggS", at: offset), let flags = bytes.uint(bigEndianAt: offset + 5, width: 1),
                let segments = bytes.uint(bigEndianAt: offset + 26, width: 1)
            else { break }
            guard flags & 2 != 0 else { break }  // the first page that does not begin a stream
            var pageLength = 27 + Int(segments)
            for index in 0..<Int(segments) {
                guard let lace = bytes.uint(bigEndianAt: offset + 27 + index, width: 1) else { break }
                pageLength += Int(lace)
            }
            let packet = offset + 27 + Int(segments)
            let index = media.video.count + media.audio.count
            if bytes.matches("\u{01}vorbis", at: packet) {
                media.audio.append(AudioStreamDescription(
                    index: index, codec: .vorbis, channels: bytes.uint(bigEndianAt: packet + 11, width: 1).map(Int.init),
                    sampleRate: bytes.uint(littleEndianAt: packet + 12, width: 4).map(Int.init)))
            } else if bytes.matches("OpusHead", at: packet) {
                media.audio.append(AudioStreamDescription(
                    index: index, codec: .opus, channels: bytes.uint(bigEndianAt: packet + 9, width: 1).map(Int.init),
                    sampleRate: 48_000))
            } else if bytes.uint(bigEndianAt: packet, width: 1) == 0x7F, bytes.matches("FLAC", at: packet + 1),
                var audio = CodecConfigurations.flacStreamInfo(bytes.dropFirst(packet + 17))
            {
                audio.index = index
                media.audio.append(audio)
            } else if bytes.uint(bigEndianAt: packet, width: 1) == 0x80, bytes.matches("theora", at: packet + 1) {
                var video = VideoStreamDescription(index: index, codec: .theora)
                if let width = bytes.uint(bigEndianAt: packet + 14, width: 3), let height = bytes.uint(bigEndianAt: packet + 17, width: 3),
                    width > 0, height > 0
                {
                    video.width = Int(width)
                    video.height = Int(height)
                }
                media.video.append(video)
            } else if bytes.matches("Speex   ", at: packet) {
                media.audio.append(AudioStreamDescription(index: index, codec: MediaCodec("speex")))
            }
            offset += pageLength
        }
        return .found(media)
    }
}
