import CastDeviceProfiles

extension ConversionPlan {
    /// Plans a probed file for a device profile: copy each stream the device plays, convert the others
    /// (video to H.264 within the device's level, size and rate; audio to AAC or Opus), offer text subtitles as
    /// WebVTT tracks, burn in the subtitle stream asked for, and choose the delivery: the file as it is when the
    /// device plays it whole, else an HLS stream made on demand.
    ///
    /// - Throws: ``ConversionError/Code/invalidOptions`` for a stream option naming no such stream (or a burn
    ///   asked of a device without video); ``ConversionError/Code/noPlayableStream`` when nothing can be sent.
    public init(for media: ProbedMedia, profile: CastDeviceProfile, options: ConversionOptions = ConversionOptions())
        throws(ConversionError) {
        let planner = Planner(media: media, profile: profile, options: options)
        self = try planner.plan()
    }
}

/// The decisions of ``ConversionPlan/init(for:profile:options:)``, one function per question.
struct Planner {
    let media: ProbedMedia
    let profile: CastDeviceProfile
    let options: ConversionOptions

    /// Audio codecs an HLS segment can carry, by segment format.
    static let tsAudio: Set<MediaCodec> = [.aac, .mp3, .ac3, .eac3]
    static let fmp4Audio: Set<MediaCodec> = [.aac, .mp3, .ac3, .eac3, .opus, .flac]
    static let fmp4Video: Set<MediaCodec> = [.h264, .hevc, .vp9, .av1]

    func plan() throws(ConversionError) -> ConversionPlan {
        let videoStream = try chooseVideo()
        let audioStream = try chooseAudio()
        let burn = try chooseBurn(hasVideo: videoStream != nil)
        let support = profile.support(for: media.media, hdmiPassthrough: options.hdmiPassthrough)
        var video = videoStream.map { decideVideo($0, burning: burn != nil) }
        var audio = audioStream.map(decideAudio)
        var omitted: [StreamDecision] = []
        if let decision = video, decision.action == .omit {
            omitted.append(decision)
            video = nil
        }
        if let decision = audio, decision.action == .omit {
            omitted.append(decision)
            audio = nil
        }
        let subtitles = media.subtitleStreams.map { decideSubtitle($0, burn: burn) }
        for stream in media.streams where stream != videoStream && stream != audioStream {
            switch stream.kind {
            case .video where stream.isAttachedPicture:
                omitted.append(StreamDecision(stream: stream, action: .omit, reason: "cover art is not sent to the device"))
            case .video:
                omitted.append(StreamDecision(stream: stream, action: .omit, reason: "another video stream is played"))
            case .audio:
                omitted.append(StreamDecision(stream: stream, action: .omit, reason: "another audio stream is played (--audio-stream)"))
            case .other:
                omitted.append(StreamDecision(stream: stream, action: .omit, reason: "not media (\(stream.codec))"))
            case .subtitle:
                break
            }
        }
        guard video != nil || audio != nil else {
            throw ConversionError(code: .noPlayableStream, message: "\(media.name) has no video or audio stream \(profile.displayName) can be given")
        }

        // Separate inputs (or a URL) cannot be given as they are: they are merged into segments.
        let single = media.inputs.count <= 1 && media.inputs.first?.isRemote != true
        if options.policy == .never, !single {
            throw ConversionError(
                code: .refusedByPolicy,
                message: "\(media.name) comes as \(media.inputs.count > 1 ? "separate video and audio" : "a URL") that must be segmented; --transcode never only loads a file as it is")
        }

        // --transcode never: the file as it is, whatever the device thinks of it.
        if options.policy == .never {
            if let decision = video { video = StreamDecision(stream: decision.stream, action: .copy, reason: verdictText(decision.stream)) }
            if let decision = audio { audio = StreamDecision(stream: decision.stream, action: .copy, reason: verdictText(decision.stream)) }
            let reason = support.refusals.isEmpty
                ? "--transcode never; \(profile.displayName) plays it"
                : "--transcode never: loaded as it is although \(support.refusals.joined(separator: "; "))"
            return ConversionPlan(
                profile: profile, policy: options.policy, delivery: .direct, deliveryReason: reason,
                sourceContainer: media.media.refinedContainer, video: video, audio: audio,
                subtitles: subtitles.map { $0.action == .burnIn ? StreamDecision(stream: $0.stream, action: .omit, reason: "--transcode never burns nothing in") : $0 },
                omitted: omitted, support: support, duration: media.duration)
        }

        let copiesEverything = video.map { $0.action == .copy } ?? true && (audio.map { $0.action == .copy } ?? true)
        let containerVerdict = media.media.refinedContainer.map { profile.verdict(for: $0) } ?? .plays
        let container = media.media.refinedContainer
        let containerListed = container.map { profile.acceptsEverything || profile.containers.contains($0) } ?? true
        if single, copiesEverything, containerListed, case .plays = containerVerdict,
           media.streams.filter({ $0.kind == .video && !$0.isAttachedPicture }).count <= 1 || video == nil {
            return ConversionPlan(
                profile: profile, policy: options.policy, delivery: .direct,
                deliveryReason: "\(profile.displayName) plays the \(container?.name ?? "file") and every stream sent as they are",
                sourceContainer: container, video: video, audio: audio, subtitles: subtitles, omitted: omitted,
                support: support, duration: media.duration)
        }

        // Converted: decide the segment format, converting audio the format cannot carry.
        let videoCodec: MediaCodec? = switch video?.action {
        case .copy: video?.stream.codec
        case .transcodeVideo: .h264
        default: nil
        }
        func outputAudioCodec(_ decision: StreamDecision?) -> MediaCodec? {
            switch decision?.action {
            case .copy: decision?.stream.codec
            case .transcodeAudio(let encoding): encoding.codec == .aac ? .aac : .opus
            default: nil
            }
        }
        var format: HLSSegmentContainer = .mpegts
        if let videoCodec, videoCodec != .h264 { format = .fmp4 }
        if let codec = outputAudioCodec(audio), !Self.tsAudio.contains(codec) { format = .fmp4 }
        if let codec = outputAudioCodec(audio), !Self.fmp4Audio.contains(codec), let decision = audio {
            audio = StreamDecision(
                stream: decision.stream, action: .transcodeAudio(audioEncoding(for: decision.stream)),
                reason: "\(decision.stream.codec) cannot be carried in HLS segments")
            if videoCodec == nil || videoCodec == .h264 { format = options.audioTarget == .opus ? .fmp4 : .mpegts }
        }
        if let videoCodec, !Self.fmp4Video.contains(videoCodec), let decision = video {
            video = StreamDecision(
                stream: decision.stream, action: .transcodeVideo(videoEncoding(for: decision.stream)),
                reason: "\(decision.stream.codec) cannot be carried in HLS segments")
            format = outputAudioCodec(audio).map { Self.tsAudio.contains($0) } ?? true ? .mpegts : .fmp4
        }
        return ConversionPlan(
            profile: profile, policy: options.policy, delivery: .hls(format),
            deliveryReason: deliveryReason(video: video, audio: audio, containerVerdict: containerVerdict, containerListed: containerListed),
            sourceContainer: container, video: video, audio: audio, subtitles: subtitles, omitted: omitted, support: support,
            duration: media.duration)
    }

    // MARK: Choosing streams

    func chooseVideo() throws(ConversionError) -> ProbedStream? {
        if let index = options.videoStream {
            guard let stream = media.stream(index: index), stream.kind == .video else {
                throw ConversionError(code: .invalidOptions, message: "stream \(index) is not a video stream of \(media.name)")
            }
            return stream
        }
        let candidates = media.videoStreams
        return candidates.first(where: \.isDefault) ?? candidates.first
    }

    func chooseAudio() throws(ConversionError) -> ProbedStream? {
        if let index = options.audioStream {
            guard let stream = media.stream(index: index), stream.kind == .audio else {
                throw ConversionError(code: .invalidOptions, message: "stream \(index) is not an audio stream of \(media.name)")
            }
            return stream
        }
        let candidates = media.audioStreams
        return candidates.first(where: \.isDefault) ?? candidates.first
    }

    func chooseBurn(hasVideo: Bool) throws(ConversionError) -> ProbedStream? {
        guard let index = options.burnSubtitleStream else { return nil }
        let subtitles = media.subtitleStreams
        guard let stream = media.stream(index: index), stream.kind == .subtitle else {
            let listed = subtitles.isEmpty ? "it has none" : "its subtitle streams are " + subtitles.map { "\($0.index)" }.joined(separator: ", ")
            throw ConversionError(
                code: .invalidOptions, message: "--burn-subtitles \(index): stream \(index) is not a subtitle stream of \(media.name) (\(listed))")
        }
        guard hasVideo, profile.hasVideoOutput || profile.acceptsEverything else {
            throw ConversionError(code: .invalidOptions, message: "--burn-subtitles needs a video stream and a device with a screen")
        }
        return stream
    }

    // MARK: Deciding

    func verdictText(_ stream: ProbedStream) -> String {
        let verdict = stream.kind == .video
            ? profile.verdict(for: stream.videoDescription)
            : profile.verdict(for: stream.audioDescription, hdmiPassthrough: options.hdmiPassthrough)
        switch verdict {
        case .plays: return "\(profile.displayName) decodes it"
        case .passesThrough: return "passed through to the HDMI sink, which decodes it"
        case .ignored(let reason), .refused(let reason): return reason
        }
    }

    func decideVideo(_ stream: ProbedStream, burning: Bool) -> StreamDecision {
        if !profile.hasVideoOutput && !profile.acceptsEverything {
            return StreamDecision(stream: stream, action: .omit, reason: "\(profile.displayName) has no screen")
        }
        let verdict = profile.verdict(for: stream.videoDescription)
        if options.policy == .always {
            return StreamDecision(stream: stream, action: .transcodeVideo(videoEncoding(for: stream)), reason: "--transcode always")
        }
        if burning {
            return StreamDecision(
                stream: stream, action: .transcodeVideo(videoEncoding(for: stream)), reason: "subtitles are burnt into the picture")
        }
        switch verdict {
        case .plays, .passesThrough:
            return StreamDecision(stream: stream, action: .copy, reason: "\(profile.displayName) decodes it")
        case .ignored(let reason):
            return StreamDecision(stream: stream, action: .omit, reason: reason)
        case .refused(let reason):
            return StreamDecision(stream: stream, action: .transcodeVideo(videoEncoding(for: stream)), reason: reason)
        }
    }

    func decideAudio(_ stream: ProbedStream) -> StreamDecision {
        if options.policy == .always {
            return StreamDecision(stream: stream, action: .transcodeAudio(audioEncoding(for: stream)), reason: "--transcode always")
        }
        switch profile.verdict(for: stream.audioDescription, hdmiPassthrough: options.hdmiPassthrough) {
        case .plays:
            return StreamDecision(stream: stream, action: .copy, reason: "\(profile.displayName) decodes it")
        case .passesThrough:
            return StreamDecision(stream: stream, action: .copy, reason: "passed through to the HDMI sink, which decodes it")
        case .ignored(let reason):
            return StreamDecision(stream: stream, action: .omit, reason: reason)
        case .refused(let reason):
            return StreamDecision(stream: stream, action: .transcodeAudio(audioEncoding(for: stream)), reason: reason)
        }
    }

    func decideSubtitle(_ stream: ProbedStream, burn: ProbedStream?) -> StreamDecision {
        if stream.index == burn?.index {
            return StreamDecision(stream: stream, action: .burnIn, reason: "--burn-subtitles \(stream.index)")
        }
        if stream.isTextSubtitle {
            return StreamDecision(stream: stream, action: .textTrack, reason: "devices show WebVTT text tracks only")
        }
        if stream.isImageSubtitle {
            return StreamDecision(
                stream: stream, action: .omit,
                reason: "image subtitles cannot be a text track; --burn-subtitles \(stream.index) draws them into the picture")
        }
        return StreamDecision(stream: stream, action: .omit, reason: "\(stream.codec) subtitles are not converted")
    }

    func deliveryReason(video: StreamDecision?, audio: StreamDecision?, containerVerdict: StreamVerdict, containerListed: Bool) -> String {
        var converted: [String] = []
        if case .transcodeVideo = video?.action { converted.append("video") }
        if case .transcodeAudio = audio?.action { converted.append("audio") }
        if !converted.isEmpty {
            return "the \(converted.joined(separator: " and ")) \(converted.count == 1 ? "is" : "are") converted; HLS keeps seeking and the duration"
        }
        if media.inputs.count > 1 { return "the video and the audio come separately; they are copied into the same segments" }
        if media.inputs.first?.isRemote == true { return "the stream is read from its URL and copied into segments" }
        if case .refused(let reason) = containerVerdict { return "\(reason); the streams are copied into segments" }
        if !containerListed {
            return "\(media.media.refinedContainer?.name ?? "the container") is not in Google's table (devices play it only leniently); the streams are copied into segments"
        }
        return "the streams are copied into segments"
    }

    // MARK: Encodings

    /// H.264 within the device's level, size and rate: the mode that keeps the source's rate with the most
    /// pixels (else the largest mode, at its rate), the picture scaled down to fit it, even sizes.
    func videoEncoding(for stream: ProbedStream) -> VideoEncoding {
        let capability: VideoCapability? = profile.capability(for: .h264)
        let modes = capability?.modes ?? [.fullHD30]
        let sourceRate = stream.frameRate
        let sourceWidth = stream.width ?? 1280
        let sourceHeight = stream.height ?? 720
        let keepsRate = modes.filter { mode in sourceRate.map { $0 <= mode.frameRate + 0.5 } ?? true }
        let mode = keepsRate.max { $0.width * $0.height < $1.width * $1.height }
            ?? modes.max { $0.width * $0.height < $1.width * $1.height } ?? .fullHD30
        let cappedRate: Double? = sourceRate.flatMap { $0 > mode.frameRate + 0.5 ? mode.frameRate : nil }
        let (width, height) = Self.fit(width: sourceWidth, height: sourceHeight, into: mode)
        let rate = cappedRate ?? sourceRate ?? 30
        let level = Self.h264Level(width: width, height: height, frameRate: rate, maximum: capability?.maximumLevel ?? CodecLevel(4, 1))
        let pixels = width * height
        let bitRate = pixels > 1280 * 720 ? 8_000_000 : pixels > 854 * 480 ? 5_000_000 : 2_500_000
        return VideoEncoding(
            profile: .high, level: level, width: width, height: height, frameRate: cappedRate, sourceFrameRate: sourceRate,
            maximumBitRate: bitRate)
    }

    /// Scales a picture down (never up) to fit a mode in either orientation, keeping its aspect, to even sizes.
    static func fit(width: Int, height: Int, into mode: VideoMode) -> (Int, Int) {
        let long = max(mode.width, mode.height), short = min(mode.width, mode.height)
        let landscape = width >= height
        let maxWidth = landscape ? long : short, maxHeight = landscape ? short : long
        let scale = min(1, min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height)))
        func even(_ value: Double) -> Int { max(2, Int((value / 2).rounded(.down)) * 2) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }

    /// The lowest H.264 level whose frame size and macroblock rate hold the picture (Table A-1), at least 3.0,
    /// at most the device's.
    static func h264Level(width: Int, height: Int, frameRate: Double, maximum: CodecLevel) -> CodecLevel {
        let macroblocks = ((width + 15) / 16) * ((height + 15) / 16)
        let rate = Double(macroblocks) * frameRate
        let table: [(CodecLevel, Int, Double)] = [
            (CodecLevel(3, 0), 1_620, 40_500), (CodecLevel(3, 1), 3_600, 108_000), (CodecLevel(3, 2), 5_120, 216_000),
            (CodecLevel(4, 0), 8_192, 245_760), (CodecLevel(4, 1), 8_192, 245_760), (CodecLevel(4, 2), 8_704, 522_240),
            (CodecLevel(5, 0), 22_080, 589_824), (CodecLevel(5, 1), 36_864, 983_040), (CodecLevel(5, 2), 36_864, 2_073_600),
        ]
        let needed = table.first { macroblocks <= $0.1 && rate <= $0.2 }?.0 ?? CodecLevel(5, 2)
        return min(needed, maximum)
    }

    func audioEncoding(for stream: ProbedStream) -> AudioEncoding {
        let channels = min(stream.channels ?? 2, 2)
        switch options.audioTarget {
        case .aac:
            let rate = [48_000, 44_100].contains(stream.sampleRate ?? 0) ? stream.sampleRate! : 48_000
            return AudioEncoding(codec: .aac, channels: channels, sampleRate: rate, bitRate: channels == 1 ? 96_000 : 192_000)
        case .opus:
            return AudioEncoding(codec: .opus, channels: channels, sampleRate: 48_000, bitRate: channels == 1 ? 64_000 : 128_000)
        }
    }
}
