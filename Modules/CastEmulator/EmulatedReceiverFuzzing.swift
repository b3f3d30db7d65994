import CastDeviceProfiles

/// Entry points for libFuzzer harnesses (`Tests/Fuzz`): the media duration probes and the eureka_info
/// request parsing. Each must never crash, hang or allocate without bound for any input. Public only
/// as SPI, for the separate fuzz package: `@_spi(Fuzzing) import CastEmulator`.
@_spi(Fuzzing) public enum EmulatedReceiverFuzzing {
    /// The parsers a fuzz target can aim at.
    public enum Probe: Sendable, CaseIterable {
        case mp4, matroska, mp3, adts, flac, ogg, wav, hls, dash
    }

    /// Probes arbitrary bytes as a whole resource: the first two bytes choose the prefix length the
    /// fetcher saw and whether the total size is known, the rest is the resource. Follow-up requests
    /// are served from the same bytes, at most three, like the fetcher. Checks what any result promises.
    public static func fuzzProbe(_ probe: Probe, _ data: UnsafeRawBufferPointer) {
        let input = Array(data.bindMemory(to: UInt8.self))
        guard input.count >= 2 else { return }
        let prefixLength = Int(input[0]) << 8 | Int(input[1])
        let resource = Array(input.dropFirst(2))
        let totalKnown = prefixLength & 1 == 0
        var bytes = ProbeBytes(prefix: Array(resource.prefix(prefixLength)), totalLength: totalKnown ? resource.count : nil)
        for _ in 0...3 {
            let result = run(probe, bytes)
            switch result {
            case .found(.seconds(let seconds)):
                precondition(seconds.isFinite && seconds > 0, "an implausible duration: \(seconds)")
                return
            case .found(.live), .unknown, .followPlaylist:
                return
            case .needsBytes(let range):
                precondition(range.lowerBound >= 0 && range.count <= MediaDurationProbe.followUpLimit,
                             "an unbounded follow-up request: \(range)")
                if let total = bytes.totalLength { precondition(range.upperBound < total, "a range past the end: \(range)") }
                guard range.lowerBound < resource.count else { return }
                bytes.add(Array(resource[range.lowerBound...min(range.upperBound, resource.count - 1)]), at: range.lowerBound)
            }
        }
    }

    private static func run(_ probe: Probe, _ bytes: ProbeBytes) -> MediaProbeResult {
        switch probe {
        case .mp4: MP4DurationProbe.probe(bytes)
        case .matroska: MatroskaDurationProbe.probe(bytes.prefix)
        case .mp3: MP3DurationProbe.probe(bytes) ?? .unknown
        case .adts: ADTSDurationProbe.probe(bytes) ?? .unknown
        case .flac: FLACDurationProbe.probe(bytes.prefix)
        case .ogg: OggDurationProbe.probe(bytes)
        case .wav: WAVDurationProbe.probe(bytes)
        case .hls: MediaDurationProbe.probe(bytes, contentType: "application/x-mpegurl", url: "http://h/p.m3u8")
        case .dash: MediaDurationProbe.probe(bytes, contentType: "application/dash+xml", url: "http://h/m.mpd")
        }
    }

    /// The codec probes a fuzz target can aim at.
    public enum CodecProbe: Sendable, CaseIterable {
        case mp4, matroska, mpegts, adts, mp3, flac, ogg, wav, hls, dash
    }

    /// Probes arbitrary bytes for their codecs, like ``fuzzProbe(_:_:)``: the first two bytes choose
    /// the prefix the fetcher saw and whether the total size is known; follow-up ranges are served
    /// from the same bytes, at most six. Checks what any result promises.
    public static func fuzzCodecProbe(_ probe: CodecProbe, _ data: UnsafeRawBufferPointer) {
        let input = Array(data.bindMemory(to: UInt8.self))
        guard input.count >= 2 else { return }
        let prefixLength = Int(input[0]) << 8 | Int(input[1])
        let resource = Array(input.dropFirst(2))
        let totalKnown = prefixLength & 1 == 0
        var bytes = ProbeBytes(prefix: Array(resource.prefix(prefixLength)), totalLength: totalKnown ? resource.count : nil)
        for _ in 0...6 {
            let result: CodecProbeResult = switch probe {
            case .mp4: MP4CodecProbe.probe(bytes)
            case .matroska: MatroskaCodecProbe.probe(bytes)
            case .mpegts: MPEGTSCodecProbe.probe(bytes)
            case .adts, .mp3, .flac, .ogg, .wav: AudioCodecProbes.probe(bytes.prefix) ?? .unknown
            case .hls: MediaCodecProbe.probe(bytes, contentType: "application/x-mpegurl", url: "http://h/p.m3u8")
            case .dash: MediaCodecProbe.probe(bytes, contentType: "application/dash+xml", url: "http://h/m.mpd")
            }
            switch result {
            case .found(let media):
                check(media)
                return
            case .alternatives(let list):
                precondition(list.count <= 256, "too many alternatives: \(list.count)")
                list.forEach(check)
                return
            case .unknown, .follow:
                return
            case .needsBytes(let range):
                precondition(range.lowerBound >= 0 && range.count <= MediaDurationProbe.followUpLimit,
                             "an unbounded follow-up request: \(range)")
                if let total = bytes.totalLength { precondition(range.upperBound < total, "a range past the end: \(range)") }
                guard range.lowerBound < resource.count else { return }
                bytes.add(Array(resource[range.lowerBound...min(range.upperBound, resource.count - 1)]), at: range.lowerBound)
            }
        }
    }

    /// Reads arbitrary bytes as the NAL units and configuration records codecs carry: H.264 and HEVC
    /// sequence parameter sets, `avcC`, `hvcC`, `av1C`, VP9 features and frames, an AAC
    /// `AudioSpecificConfig`, `dac3`, `dec3` and an MPEG-4 `esds`.
    public static func fuzzParameterSets(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data.bindMemory(to: UInt8.self))[...]
        for sequence in [ParameterSets.h264(bytes), ParameterSets.hevc(bytes)].compactMap({ $0 }) {
            precondition(sequence.width > 0 && sequence.height > 0 && sequence.width <= 16_384 && sequence.height <= 16_384)
        }
        let video = [CodecConfigurations.avc(bytes), CodecConfigurations.hevc(bytes), CodecConfigurations.av1(bytes),
                     CodecConfigurations.vp9Features(bytes), CodecConfigurations.vp9Frame(bytes),
                     CodecConfigurations.vpc(bytes, codec: .vp9)].compactMap { $0 }
        let audio = [CodecConfigurations.audioSpecificConfig(bytes), CodecConfigurations.dac3(bytes),
                     CodecConfigurations.dec3(bytes), CodecConfigurations.dOps(bytes),
                     CodecConfigurations.flacStreamInfo(bytes)].compactMap { $0 }
        check(MediaDescription(video: video, audio: audio))
        _ = MP4CodecProbe.elementaryStream(bytes)
        _ = MP4CodecProbe.sampleEntry("avc1", bytes)
        _ = MP4CodecProbe.sampleEntry("mp4a", bytes)
        _ = annexBUnits(bytes).map { removingEmulationPrevention($0) }
    }

    /// Runs a whole inspection (duration, codecs, seeking) over arbitrary bytes: the first response
    /// is a prefix of the bytes, every follow-up of any URL is served from them. It must finish
    /// within its request budget, and decide with every preset.
    public static func fuzzMediaInspection(_ data: UnsafeRawBufferPointer) {
        let input = Array(data.bindMemory(to: UInt8.self))
        guard input.count >= 3 else { return }
        let prefixLength = Int(input[0]) << 8 | Int(input[1])
        let flags = input[2]
        let resource = Array(input.dropFirst(3))
        let types = ["video/mp4", "application/x-mpegurl", "application/dash+xml", "video/mp2t", "audio/mpeg", "video/webm",
                     "video/mp4; codecs=\"hvc1.1.6.L93.B0, ac-3\"", "application/octet-stream"]
        let response = MediaInspection.Response(
            statusCode: flags & 1 == 0 ? 206 : 200, contentType: types[Int(flags >> 1) % types.count],
            body: Array(resource.prefix(prefixLength)), totalLength: flags & 0x10 == 0 ? resource.count : nil,
            acceptsRanges: flags & 0x20 != 0)
        var inspection = MediaInspection(
            url: "http://h/media", first: response, declaredContentType: types[Int(flags >> 3) % types.count],
            wantsDuration: flags & 0x40 != 0, wantsCodecs: true, segmentPrefix: 4096, maximumRequests: 6)
        for step in 0...7 {
            switch inspection.next() {
            case .fetch(let url, let range):
                precondition(step < 6, "more requests than the budget")
                precondition(range.lowerBound >= 0 && range.count <= MediaDurationProbe.followUpLimit)
                let start = min(range.lowerBound, resource.count)
                let body = Array(resource[start..<min(resource.count, range.upperBound + 1)])
                inspection.received(
                    MediaInspection.Response(statusCode: 206, contentType: nil, body: body, totalLength: resource.count, acceptsRanges: true),
                    for: url, range: range)
            case .finished(let probed):
                if let media = probed.description { check(media) }
                for profile in CastDeviceProfile.presets {
                    if probed.alternatives.isEmpty {
                        if let media = probed.description { _ = profile.support(for: media).refusalReason }
                    } else {
                        _ = profile.support(forAlternatives: probed.alternatives)
                    }
                }
                return
            }
        }
        preconditionFailure("the inspection did not finish")
    }

    /// What any description must hold: bounded stream counts and sane numbers.
    private static func check(_ media: MediaDescription) {
        precondition(media.video.count + media.audio.count + media.subtitles.count <= 64, "too many streams")
        for video in media.video {
            if let width = video.width { precondition(width > 0, "a non-positive width") }
            if let rate = video.frameRate { precondition(rate.isFinite && rate > 0, "a bad frame rate \(rate)") }
        }
        _ = media.description
    }

    /// Answers arbitrary bytes as the request target of a GET to the eureka_info server.
    public static func fuzzEurekaTarget(_ data: UnsafeRawBufferPointer) {
        let target = String(decoding: data.bindMemory(to: UInt8.self), as: UTF8.self)
        let info = EurekaInfo(
            advertisement: EmulatedReceiverAdvertisement(configuration: EmulatedReceiverConfiguration(), port: 8009), kind: .video)
        let (status, body) = info.response(forTarget: target)
        precondition([200, 404, 414].contains(status), "unexpected status \(status)")
        _ = body.serialized()
    }
}
