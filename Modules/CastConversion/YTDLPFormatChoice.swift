import CastDeviceProfiles

/// Which of a video's formats (from ``YTDLPInfo``) a device plays: pure, so tests and other senders can ask it.
///
/// Without a format of the user's, a format holding both video and audio (progressive) in a container and codecs
/// the device's profile decodes wins, the highest picture first (then the highest bit rate, then yt-dlp's
/// order, which puts better formats last). Formats whose codecs yt-dlp does not know (a page's plain
/// `<video src>`) are judged by their container. Only direct URLs and HLS are considered for a single format (not
/// DASH fragments, RTMP or the like, which a Cast device cannot fetch). An audio-only device gets an audio format
/// when there is one.
///
/// When no single format plays as it is (a site offering its video and audio only separately, as DASH or as YouTube's
/// video-only and audio-only files), the best video-only and audio-only pair is chosen for the conversion, which
/// reads both with ffmpeg (``input(for:)``) and merges them into HLS segments: formats whose streams can be copied
/// (the device decodes them and HLS segments carry them) before those that must be converted; then the highest
/// picture and bit rate, except that a picture beyond the device's largest H.264 mode is converted from the
/// smallest such format (scaling 4K down costs the most). Without such a pair, the best format holding both (or,
/// for a device without a screen, audio) that ffmpeg can read is converted whole (``converted(_:)``).
public enum YTDLPFormatChoice: Sendable, Hashable {
    /// One format that plays as it is: the device loads its URL.
    case single(YTDLPInfo.Format)
    /// Separate video and audio formats, merged (and converted where needed) by a conversion of two inputs.
    case separate(video: YTDLPInfo.Format, audio: YTDLPInfo.Format)
    /// One format the device cannot play as it is (a codec it does not decode, a container it cannot fetch), read by
    /// ffmpeg as the one input of a conversion: what the device decodes is copied, the rest converted.
    case converted(YTDLPInfo.Format)

    /// The choice for `info` on a device with `profile`.
    /// - Parameters:
    ///   - info: yt-dlp's report on one video.
    ///   - profile: what the device decodes.
    ///   - userFormat: whether yt-dlp was given `-f` (then its selection is taken as it is: one format, or a pair
    ///     such as `137+140`).
    /// - Throws: ``ConversionError/Code/noPlayableStream`` when the video has no format, or none plays and none
    ///   ffmpeg can read is there to convert (the message names what the device refuses).
    public static func choose(for info: YTDLPInfo, profile: CastDeviceProfile, userFormat: Bool) throws(ConversionError) -> Self {
        let name = info.title ?? info.pageURL ?? "the page"
        if userFormat {
            switch info.selected.count {
            case 0: throw ConversionError(code: .noPlayableStream, message: "yt-dlp selected no format of \(name)")
            case 1: return .single(info.selected[0])
            default:
                let video = info.selected.first { $0.hasVideo != false } ?? info.selected[0]
                let audio = info.selected.first { $0 != video && $0.hasAudio != false } ?? info.selected[1]
                for format in [video, audio] where input(for: format) == nil {
                    throw ConversionError(
                        code: .noPlayableStream, message: "format \(format.id) of \(name) is fetched over \(format.transport ?? "?"), which ffmpeg cannot read")
                }
                return .separate(video: video, audio: audio)
            }
        }
        guard !info.formats.isEmpty else {
            throw ConversionError(code: .noPlayableStream, message: "yt-dlp found no video or audio on \(name)")
        }
        let indexed = Array(info.formats.enumerated())
        let usable = indexed.filter { isFetchable($0.element) }
        let withVideo = usable.filter { $0.element.hasVideo != false }
        let progressive = usable.filter { $0.element.hasVideo != false && $0.element.hasAudio != false }
        let audioOnly = usable.filter { $0.element.hasVideo == false && $0.element.hasAudio != false }
        var tiers: [[(offset: Int, element: YTDLPInfo.Format)]] = profile.hasVideoOutput ? [progressive] : [audioOnly, progressive]
        if withVideo.isEmpty { tiers.append(audioOnly) }
        var refusals: [String] = []
        for tier in tiers {
            if let best = best(of: tier, profile: profile, refusals: &refusals) { return .single(best) }
        }
        if profile.hasVideoOutput, let pair = bestPair(of: indexed, profile: profile) { return pair }
        if let single = bestToConvert(of: indexed, profile: profile) { return .converted(single) }
        if usable.isEmpty {
            let transports = Set(info.formats.compactMap(\.transport)).sorted().joined(separator: ", ")
            throw ConversionError(
                code: .noPlayableStream, message: "\(name) is offered only over \(transports), which neither a Cast device nor ffmpeg can fetch")
        }
        let listed = refusals.prefix(4).joined(separator: "; ")
        throw ConversionError(
            code: .noPlayableStream, message: "no format of \(name) plays on \(profile.displayName)" + (listed.isEmpty ? "" : ": \(listed)"))
    }

    /// The best video-only and audio-only pair ffmpeg can read, or `nil`.
    static func bestPair(of formats: [(offset: Int, element: YTDLPInfo.Format)], profile: CastDeviceProfile) -> Self? {
        let readable = formats.filter { input(for: $0.element) != nil }
        let video = readable.filter { $0.element.hasVideo == true && $0.element.hasAudio == false }
        let audio = readable.filter { $0.element.hasVideo == false && $0.element.hasAudio == true }
        let largest = (profile.capability(for: .h264) as VideoCapability?)?.modes.map { max($0.width, $0.height) }.max() ?? 1920
        // Copied first; then pictures within the device's largest H.264 mode (the highest of them), else the smallest
        // of those beyond it (the least to scale down).
        func videoRank(_ candidate: (offset: Int, element: YTDLPInfo.Format)) -> (Int, Int, Int, Double, Int) {
            let format = candidate.element
            let copied = conversion(ofVideo: format, profile: profile) == .copied
            // A copied picture fits by definition (the device decodes it at its size).
            let fits = copied || max(format.width ?? 0, format.height ?? 0) <= largest
            let sign = fits ? 1 : -1
            return (copied ? 1 : 0, fits ? 1 : 0, sign * (format.height ?? 0), Double(sign) * (format.bitrate ?? 0), candidate.offset)
        }
        func audioRank(_ candidate: (offset: Int, element: YTDLPInfo.Format)) -> (Int, Double, Int) {
            (conversion(ofAudio: candidate.element, profile: profile) == .copied ? 1 : 0, candidate.element.bitrate ?? 0, candidate.offset)
        }
        guard let picture = video.max(by: { videoRank($0) < videoRank($1) }),
              let sound = audio.max(by: { audioRank($0) < audioRank($1) }) else { return nil }
        return .separate(video: picture.element, audio: sound.element)
    }

    /// The best format holding video and audio (for a device without a screen, audio) that ffmpeg can read, to convert
    /// whole, or `nil`: the picture within the device's largest H.264 mode, else the smallest beyond it.
    static func bestToConvert(of formats: [(offset: Int, element: YTDLPInfo.Format)], profile: CastDeviceProfile) -> YTDLPInfo.Format? {
        let readable = formats.filter { input(for: $0.element) != nil }
        let candidates = profile.hasVideoOutput
            ? readable.filter { $0.element.hasVideo != false && $0.element.hasAudio != false }
            : readable.filter { $0.element.hasAudio != false }
        let largest = (profile.capability(for: .h264) as VideoCapability?)?.modes.map { max($0.width, $0.height) }.max() ?? 1920
        func rank(_ candidate: (offset: Int, element: YTDLPInfo.Format)) -> (Int, Int, Double, Int) {
            let format = candidate.element
            let fits = max(format.width ?? 0, format.height ?? 0) <= largest
            let sign = fits ? 1 : -1
            return (fits ? 1 : 0, sign * (format.height ?? 0), Double(sign) * (format.bitrate ?? 0), candidate.offset)
        }
        return candidates.max { rank($0) < rank($1) }?.element
    }

    /// What a conversion does with a stream of a separate format, judged from the codecs yt-dlp declares.
    public enum Conversion: Sendable, Hashable {
        /// The device decodes it and HLS segments carry it: copied.
        case copied
        /// Re-encoded (to H.264 or AAC), or its codec is not declared.
        case converted
    }

    /// Whether a video-only format's stream would be copied or converted for `profile`.
    public static func conversion(ofVideo format: YTDLPInfo.Format, profile: CastDeviceProfile) -> Conversion {
        guard let stream = mediaDescription(of: format).video.first, Planner.fmp4Video.contains(stream.codec),
              profile.verdict(for: stream).isPlayable else { return .converted }
        return .copied
    }

    /// Whether an audio-only format's stream would be copied or converted for `profile`.
    public static func conversion(ofAudio format: YTDLPInfo.Format, profile: CastDeviceProfile) -> Conversion {
        guard let stream = mediaDescription(of: format).audio.first, Planner.fmp4Audio.contains(stream.codec),
              profile.verdict(for: stream).isPlayable else { return .converted }
        return .copied
    }

    /// Where ffmpeg reads a format from, or `nil` when it cannot (RTMP, a DASH representation without its
    /// manifest): the URL of a direct or HLS format, or for DASH the manifest with the representation to keep, each
    /// with the format's HTTP headers.
    public static func input(for format: YTDLPInfo.Format) -> MediaInput? {
        switch format.transport {
        case nil, "http", "https", "m3u8", "m3u8_native":
            return MediaInput(url: format.url, headers: format.httpHeaders)
        case "http_dash_segments":
            guard let manifest = format.manifestURL else { return nil }
            return MediaInput(url: manifest, headers: format.httpHeaders, representation: format.id)
        default:
            return nil
        }
    }

    /// Whether a Cast device can fetch the format's URL itself: plain HTTP(S) or HLS.
    public static func isFetchable(_ format: YTDLPInfo.Format) -> Bool {
        guard let transport = format.transport else { return true }
        return ["http", "https", "m3u8", "m3u8_native"].contains(transport)
    }

    /// The container and streams a format declares, for the device's profile.
    public static func mediaDescription(of format: YTDLPInfo.Format) -> MediaDescription {
        var video: [VideoStreamDescription] = []
        var audio: [AudioStreamDescription] = []
        if format.hasVideo != false, let codec = format.videoCodec, var stream = CodecsParameter(codec).video.first {
            stream.width = format.width ?? stream.width
            stream.height = format.height ?? stream.height
            stream.frameRate = format.frameRate ?? stream.frameRate
            video.append(stream)
        }
        if format.hasAudio != false, let codec = format.audioCodec, let stream = CodecsParameter(codec).audio.first {
            audio.append(stream)
        }
        return MediaDescription(container: container(of: format), video: video, audio: audio)
    }

    /// The container, from the transport (HLS) or the extension; `nil` when yt-dlp does not say.
    public static func container(of format: YTDLPInfo.Format) -> MediaContainer? {
        if format.transport?.hasPrefix("m3u8") == true { return .hls }
        guard let ext = format.ext?.lowercased() else { return nil }
        switch ext {
        case "mp4", "m4v", "m4a", "mov": return .mp4
        case "webm", "weba": return .webm
        case "mkv", "mka": return .matroska
        case "mp3": return .mp3
        case "ogg", "oga", "ogv", "opus": return .ogg
        case "flac": return .flac
        case "wav": return .wav
        case "aac": return .adts
        case "ts": return .mpegts
        case "m3u8": return .hls
        case "mpd": return .dash
        default: return MediaContainer(ext)
        }
    }

    /// The MIME type a Cast LOAD gives for the format.
    public static func mimeType(of format: YTDLPInfo.Format) -> String {
        let audioOnly = format.hasVideo == false
        switch container(of: format) {
        case .hls?: return "application/x-mpegURL"
        case .dash?: return "application/dash+xml"
        case .mp4?: return audioOnly ? "audio/mp4" : "video/mp4"
        case .webm?: return audioOnly ? "audio/webm" : "video/webm"
        case .matroska?: return "video/x-matroska"
        case .mp3?: return "audio/mpeg"
        case .ogg?: return audioOnly || format.ext == "opus" || format.ext == "oga" ? "audio/ogg" : "video/ogg"
        case .flac?: return "audio/flac"
        case .wav?: return "audio/wav"
        case .adts?: return "audio/aac"
        case .mpegts?: return "video/mp2t"
        default: return audioOnly ? "audio/mpeg" : "video/mp4"
        }
    }

    private static func best(of formats: [(offset: Int, element: YTDLPInfo.Format)], profile: CastDeviceProfile,
                             refusals: inout [String]) -> YTDLPInfo.Format? {
        var playable: [(offset: Int, element: YTDLPInfo.Format)] = []
        for candidate in formats {
            let media = mediaDescription(of: candidate.element)
            // Codecs unknown (a page's plain <video src>): the container is all there is to judge by.
            let verdict: StreamVerdict
            if media.video.isEmpty && media.audio.isEmpty {
                verdict = media.container.map { profile.verdict(for: $0) } ?? .plays
            } else {
                let support = profile.support(for: media)
                verdict = support.isPlayable ? .plays : .refused(support.refusalReason ?? "not played")
            }
            if verdict.isPlayable {
                playable.append(candidate)
            } else if case .refused(let reason) = verdict {
                refusals.append("\(candidate.element.id): \(reason)")
            }
        }
        return playable.max { a, b in
            let left = (a.element.height ?? 0, a.element.bitrate ?? 0, a.offset)
            let right = (b.element.height ?? 0, b.element.bitrate ?? 0, b.offset)
            return left < right
        }?.element
    }
}
