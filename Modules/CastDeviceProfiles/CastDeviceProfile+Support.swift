/// What a device does with one stream or with a container.
public enum StreamVerdict: Sendable, Hashable, CustomStringConvertible {
    /// The device decodes it.
    case plays
    /// The device passes it to an HDMI sink that decodes it (AC-3, E-AC-3 with passthrough on).
    case passesThrough
    /// The device leaves it out without failing (cover art; video on a speaker).
    case ignored(String)
    /// The device cannot play it; the reason names what is wrong (`hevc is not decoded`).
    case refused(String)

    /// Whether the stream reaches the viewer or listener as it is.
    public var isPlayable: Bool {
        switch self {
        case .plays, .passesThrough: true
        case .ignored, .refused: false
        }
    }

    /// Whether the device refuses the stream.
    public var isRefused: Bool {
        if case .refused = self { return true }
        return false
    }

    /// `plays`, `passes through`, `ignored: …`, `refused: …`.
    public var description: String {
        switch self {
        case .plays: "plays"
        case .passesThrough: "passes through"
        case .ignored(let reason): "ignored: \(reason)"
        case .refused(let reason): "refused: \(reason)"
        }
    }
}

/// What a device does with a whole media resource: the container and each stream.
public struct MediaSupport: Sendable, Hashable, CustomStringConvertible {
    /// A stream and what the device does with it.
    public struct Entry<Stream: Sendable & Hashable & CustomStringConvertible>: Sendable, Hashable {
        /// The stream.
        public var stream: Stream
        /// What the device does with it.
        public var verdict: StreamVerdict

        /// Creates an entry.
        public init(stream: Stream, verdict: StreamVerdict) {
            self.stream = stream
            self.verdict = verdict
        }
    }

    /// The verdict on the container.
    public var container: StreamVerdict
    /// The verdict on each video stream, in order.
    public var video: [Entry<VideoStreamDescription>]
    /// The verdict on each audio stream, in order.
    public var audio: [Entry<AudioStreamDescription>]

    /// Creates a support record.
    public init(container: StreamVerdict, video: [Entry<VideoStreamDescription>], audio: [Entry<AudioStreamDescription>]) {
        self.container = container
        self.video = video
        self.audio = audio
    }

    /// The reasons for every refusal: the container's first, then the streams'.
    public var refusals: [String] {
        var reasons: [String] = []
        if case .refused(let reason) = container { reasons.append(reason) }
        for case .refused(let reason) in video.map(\.verdict) { reasons.append(reason) }
        for case .refused(let reason) in audio.map(\.verdict) { reasons.append(reason) }
        return reasons
    }

    /// Why the device does not play the resource: the first refusal, or, when nothing is refused
    /// but nothing reaches the viewer or listener either (a video-only file on a speaker, a file
    /// with no streams found), that; `nil` when it plays.
    public var refusalReason: String? {
        if let first = refusals.first { return first }
        guard !isPlayable else { return nil }
        let ignored = (video.map(\.verdict) + audio.map(\.verdict)).compactMap { verdict -> String? in
            if case .ignored(let reason) = verdict { return reason }
            return nil
        }
        return ignored.isEmpty ? "no audio or video stream found" : "nothing plays: " + ignored.joined(separator: ", ")
    }

    /// Whether the device plays the resource as it is: the container reads, nothing is refused,
    /// and something reaches the viewer or listener.
    ///
    /// A device whose decoder lacks one stream's codec may still start the others (Chrome plays a
    /// file's video without its AC-3 sound); a device profile calls that a refusal, because what the
    /// user asked for does not reach them.
    public var isPlayable: Bool {
        refusals.isEmpty && (video.map(\.verdict) + audio.map(\.verdict)).contains(where: \.isPlayable)
    }

    /// `container plays; h264 High 1280x720: plays; ac3: refused: …`.
    public var description: String {
        var parts = ["container \(container)"]
        for entry in video { parts.append("\(entry.stream): \(entry.verdict)") }
        for entry in audio { parts.append("\(entry.stream): \(entry.verdict)") }
        return parts.joined(separator: "; ")
    }
}

extension CastDeviceProfile {
    /// What the device does with a media resource.
    /// - Parameters:
    ///   - media: the container and streams (from ffprobe or the receiver's probes).
    ///   - hdmiPassthrough: whether an HDMI sink decodes ``passthroughAudio`` (AC-3, E-AC-3).
    public func support(for media: MediaDescription, hdmiPassthrough: Bool = false) -> MediaSupport {
        MediaSupport(
            container: media.refinedContainer.map { verdict(for: $0) } ?? .plays,
            video: media.video.map { MediaSupport.Entry(stream: $0, verdict: verdict(for: $0, in: media)) },
            audio: media.audio.map { MediaSupport.Entry(stream: $0, verdict: verdict(for: $0, hdmiPassthrough: hdmiPassthrough)) })
    }

    /// What the device does with an adaptive stream whose alternatives (HLS variants, DASH
    /// representations) are described one by one: its player leaves out the alternatives the device
    /// cannot decode and plays the first that remains, so the stream plays when one alternative does.
    /// - Returns: the first playable alternative and its support, else the first alternative's; `nil`
    ///   for no alternatives.
    public func support(
        forAlternatives alternatives: [MediaDescription], hdmiPassthrough: Bool = false
    ) -> (media: MediaDescription, support: MediaSupport)? {
        var first: (media: MediaDescription, support: MediaSupport)?
        for alternative in alternatives {
            let support = support(for: alternative, hdmiPassthrough: hdmiPassthrough)
            if support.isPlayable { return (alternative, support) }
            if first == nil { first = (alternative, support) }
        }
        return first
    }

    /// A video stream in its resource: its own verdict, and the Cast HLS
    /// player's transmuxer, which reads only H.264 from MPEG-TS segments (HEVC needs fMP4 segments:
    /// streamyfin/streamyfin#1910; kristofferR/IPTVChecker v1.5.0, "Chromecast Ultra refuses HEVC over
    /// HLS+TS but accepts it via DASH+fMP4").
    func verdict(for stream: VideoStreamDescription, in media: MediaDescription) -> StreamVerdict {
        let verdict = verdict(for: stream)
        guard verdict == .plays, !acceptsEverything, media.container == .hls, media.segmentContainer == .mpegts,
            stream.codec != .h264
        else { return verdict }
        return .refused("\(stream.codec) in MPEG-TS segments is not played by the Cast HLS player (fMP4 segments needed)")
    }

    /// What the device does with a container.
    public func verdict(for container: MediaContainer) -> StreamVerdict {
        if acceptsEverything || containers.contains(container) { return .plays }
        if container == .matroska, allows(.matroska) { return .plays }
        return .refused("the \(container) container is not read by \(displayName)")
    }

    /// What the device does with a video stream.
    public func verdict(for stream: VideoStreamDescription) -> StreamVerdict {
        if stream.isAttachedPicture { return .ignored("cover art") }
        if acceptsEverything { return .plays }
        guard hasVideoOutput else { return .ignored("\(displayName) has no video output") }
        guard let capability: VideoCapability = capability(for: stream.codec) else {
            return .refused("\(stream.codec) video is not decoded by \(displayName)")
        }
        if let profiles = capability.profiles, let profile = stream.profile, !profiles.contains(profile) {
            return .refused("\(stream.codec) \(profile) is not decoded by \(displayName)")
        }
        if let maximum = capability.maximumLevel, let level = stream.level, level > maximum {
            return .refused("\(stream.codec) level \(level) is above \(displayName)'s \(maximum)")
        }
        if let depth = stream.bitDepth, depth > capability.maximumBitDepth {
            return .refused("\(depth)-bit \(stream.codec) is not decoded by \(displayName)")
        }
        if !capability.modes.contains(where: { $0.admits(width: stream.width, height: stream.height, frameRate: stream.frameRate) }) {
            let size = stream.width.flatMap { w in stream.height.map { "\(w)x\($0)" } } ?? "this size"
            let rate = stream.frameRate.map { " at \(Int($0.rounded())) fps" } ?? ""
            let modes = capability.modes.map(\.description).joined(separator: " or ")
            return .refused("\(stream.codec) \(size)\(rate) is beyond \(displayName)'s \(modes)")
        }
        return .plays
    }

    /// What the device does with an audio stream.
    public func verdict(for stream: AudioStreamDescription, hdmiPassthrough: Bool = false) -> StreamVerdict {
        if acceptsEverything { return .plays }
        if let capability: AudioCapability = capability(for: stream.codec) {
            if let profiles = capability.profiles, let profile = stream.profile, !profiles.contains(profile) {
                return .refused("\(stream.codec) \(profile) is not decoded by \(displayName)")
            }
            if let maximum = capability.maximumSampleRate, let rate = stream.sampleRate, rate > maximum {
                return .refused("\(stream.codec) at \(rate) Hz is above \(displayName)'s \(maximum) Hz")
            }
            if let maximum = capability.maximumBitDepth, let depth = stream.bitDepth, depth > maximum {
                return .refused("\(depth)-bit \(stream.codec) is above \(displayName)'s \(maximum)-bit")
            }
            if let maximum = capability.maximumChannels, let channels = stream.channels, channels > maximum {
                return .refused("\(channels)-channel \(stream.codec) is not decoded by \(displayName) (at most \(maximum))")
            }
            return .plays
        }
        if passthroughAudio.contains(stream.codec) {
            return hdmiPassthrough
                ? .passesThrough
                : .refused("\(stream.codec) audio plays only through an HDMI sink that decodes it (passthrough off)")
        }
        return .refused("\(stream.codec) audio is not decoded by \(displayName)")
    }
}
