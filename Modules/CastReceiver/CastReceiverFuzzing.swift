/// Entry points for libFuzzer harnesses (`Tests/Fuzz`): the media duration probes and the eureka_info
/// request parsing. Each must never crash, hang or allocate without bound for any input. Public only
/// as SPI, for the separate fuzz package: `@_spi(Fuzzing) import CastReceiver`.
@_spi(Fuzzing) public enum CastReceiverFuzzing {
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

    /// Answers arbitrary bytes as the request target of a GET to the eureka_info server.
    public static func fuzzEurekaTarget(_ data: UnsafeRawBufferPointer) {
        let target = String(decoding: data.bindMemory(to: UInt8.self), as: UTF8.self)
        let info = EurekaInfo(
            advertisement: CastReceiverAdvertisement(configuration: CastReceiverConfiguration(), port: 8009), kind: .video)
        let (status, body) = info.response(forTarget: target)
        precondition([200, 404, 414].contains(status), "unexpected status \(status)")
        _ = body.serialized()
    }
}
