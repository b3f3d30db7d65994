import CastDeviceProfiles

/// Which of a video's formats (from ``YTDLPInfo``) a device plays: pure, so tests and other senders can ask it.
///
/// Without a format of the user's, a format holding both video and audio (progressive) in a container and codecs
/// the device's profile decodes wins, the highest picture first (then the highest bit rate, then yt-dlp's
/// order, which puts better formats last). Formats whose codecs yt-dlp does not know (a page's plain
/// `<video src>`) are judged by their container. Only direct URLs and HLS are considered (not DASH fragments,
/// RTMP or the like, which a Cast device cannot fetch). An audio-only device gets an audio format when there is one.
public enum YTDLPFormatChoice: Sendable, Hashable {
    /// One format that plays as it is.
    case single(YTDLPInfo.Format)
    /// Only separate video and audio formats play (the best the device decodes of each): they would have to be
    /// merged by a conversion.
    case separate(video: YTDLPInfo.Format, audio: YTDLPInfo.Format)

    /// The choice for `info` on a device with `profile`.
    /// - Parameter userFormat: whether yt-dlp was given `-f` (then its selection is taken as it is).
    /// - Throws: ``CastctlError`` `.noMedia` when the video has no format, `.noPlayableFormat` (naming what the
    ///   device refuses) when none plays.
    public static func choose(for info: YTDLPInfo, profile: CastDeviceProfile, userFormat: Bool) throws(CastctlError) -> Self {
        let name = info.title ?? info.pageURL ?? "the page"
        if userFormat {
            switch info.selected.count {
            case 0: throw CastctlError(code: .noMedia, message: "yt-dlp selected no format of \(name)")
            case 1: return .single(info.selected[0])
            default:
                let video = info.selected.first { $0.hasVideo != false } ?? info.selected[0]
                let audio = info.selected.first { $0 != video && $0.hasAudio != false } ?? info.selected[1]
                return .separate(video: video, audio: audio)
            }
        }
        let usable = info.formats.enumerated().filter { isFetchable($0.element) }
        guard !usable.isEmpty else {
            if info.formats.isEmpty { throw CastctlError(code: .noMedia, message: "yt-dlp found no video or audio on \(name)") }
            let transports = Set(info.formats.compactMap(\.transport)).sorted().joined(separator: ", ")
            throw CastctlError(code: .noPlayableFormat, message: "\(name) is offered only over \(transports), which a Cast device cannot fetch")
        }
        let withVideo = usable.filter { $0.element.hasVideo != false }
        let progressive = usable.filter { $0.element.hasVideo != false && $0.element.hasAudio != false }
        let audioOnly = usable.filter { $0.element.hasVideo == false && $0.element.hasAudio != false }
        var tiers: [[(offset: Int, element: YTDLPInfo.Format)]] = profile.hasVideoOutput ? [progressive] : [audioOnly, progressive]
        if withVideo.isEmpty { tiers.append(audioOnly) }
        var refusals: [String] = []
        for tier in tiers {
            if let best = best(of: tier, profile: profile, refusals: &refusals) { return .single(best) }
        }
        let videoOnly = usable.filter { $0.element.hasVideo == true && $0.element.hasAudio == false }
        if profile.hasVideoOutput, let video = best(of: videoOnly, profile: profile, refusals: &refusals),
           let audio = best(of: audioOnly, profile: profile, refusals: &refusals) {
            return .separate(video: video, audio: audio)
        }
        let listed = refusals.prefix(4).joined(separator: "; ")
        throw CastctlError(code: .noPlayableFormat,
                           message: "no format of \(name) plays on \(profile.displayName)" + (listed.isEmpty ? "" : ": \(listed)"))
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
