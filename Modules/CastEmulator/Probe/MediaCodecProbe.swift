import CastDeviceProfiles

/// What a codec probe read from the bytes of one resource.
enum CodecProbeResult: Sendable, Hashable {
    /// The container and its streams.
    case found(MediaDescription)
    /// An adaptive stream's alternatives, each a complete variant a player could choose (HLS variants
    /// that name their `CODECS`, DASH representations).
    case alternatives([MediaDescription])
    /// Fetch this range of the same resource, then probe again with it added.
    case needsBytes(ClosedRange<Int>)
    /// Read another resource (a URL, possibly relative to this one): an HLS media playlist, or the
    /// first segment (or initialisation segment) whose streams are the stream's.
    case follow(String, CodecFollowUp)
    /// Not a format the probes read, or the bytes do not say.
    case unknown
}

/// Why a codec probe follows a reference.
enum CodecFollowUp: Sendable, Hashable {
    /// A media playlist (an HLS variant without `CODECS`).
    case playlist
    /// A media segment or initialisation segment of an HLS media playlist.
    case segment
}

/// Reads which codecs (with profile, level, size and rate) a media resource holds, from the bytes
/// the receiver fetched, the way the receiver's player reads a file's headers before it decodes:
/// MP4/MOV (`moov` → `trak` → `stsd`), Matroska/WebM (`Tracks`), MPEG-TS (PAT, PMT and the first
/// H.264/HEVC SPS), AAC in ADTS, MPEG audio, FLAC, Ogg, WAV, AVI (the container only), HLS and DASH.
///
/// Pure and bounded like the duration probes (``MediaDurationProbe``): every walk has a limit, every
/// read is checked, and hostile input ends in `.unknown`; a structure outside the fetched bytes is
/// asked for (`.needsBytes`), at most ``MediaDurationProbe/followUpLimit`` bytes at a time.
enum MediaCodecProbe {
    /// Probes `data` fetched from `url`, with the response's `Content-Type`.
    /// - Parameter segment: whether the resource is an HLS segment (its container is then recorded as
    ///   the segment container of an HLS stream).
    static func probe(_ data: ProbeBytes, contentType: String?, url: String, segment: Bool = false) -> CodecProbeResult {
        let type = MediaFetchCheck.essence(contentType) ?? ""
        let path = url.split(separator: "?").first.map(String.init)?.lowercased() ?? ""
        let prefix = data.prefix
        if !segment {
            if HLSPlaylistProbe.looksLikePlaylist(prefix) || type.contains("mpegurl") || path.hasSuffix(".m3u8") {
                return HLSCodecProbe.probe(text(data))
            }
            if DASHManifestProbe.looksLikeManifest(prefix) || type == "application/dash+xml" || path.hasSuffix(".mpd") {
                return DASHCodecProbe.probe(text(data))
            }
        }
        let result: CodecProbeResult
        if MP4DurationProbe.looksLikeMP4(prefix) {
            result = MP4CodecProbe.probe(data)
        } else if MatroskaDurationProbe.looksLikeMatroska(prefix) {
            result = MatroskaCodecProbe.probe(data)
        } else if MPEGTSCodecProbe.looksLikeTransportStream(prefix) {
            result = MPEGTSCodecProbe.probe(data)
        } else if let audio = AudioCodecProbes.probe(prefix) {
            result = audio
        } else {
            return .unknown
        }
        guard segment, case .found(var media) = result else { return result }
        media.segmentContainer = media.container
        media.container = .hls
        return .found(media)
    }

    /// A text manifest's prefix as text (the duration probe asks for the rest of a long one).
    private static func text(_ data: ProbeBytes) -> String {
        var bytes = data.prefix
        if let total = data.totalLength, total > bytes.count,
            let rest = data.bytes(at: bytes.count, count: min(total, MediaDurationProbe.followUpLimit) - bytes.count)
        {
            bytes += rest
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What the `codecs` parameter of a content type names (`video/mp4; codecs="hvc1.1.6.L93.B0, ac-3"`),
    /// with the container its media type names; `nil` without the parameter.
    static func describe(contentType: String) -> MediaDescription? {
        guard let codecs = CodecsParameter(contentType: contentType), !(codecs.video.isEmpty && codecs.audio.isEmpty) else {
            return nil
        }
        let container: MediaContainer? = switch MediaFetchCheck.essence(contentType) ?? "" {
        case "video/mp4", "audio/mp4", "application/mp4": .mp4
        case "video/webm", "audio/webm": .webm
        case "video/x-matroska", "audio/x-matroska": .matroska
        case "video/mp2t": .mpegts
        case "audio/ogg", "video/ogg", "application/ogg": .ogg
        default: nil
        }
        return MediaDescription(container: container, video: codecs.video, audio: codecs.audio)
    }
}
