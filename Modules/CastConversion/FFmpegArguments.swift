import CastDeviceProfiles

/// The ffmpeg command lines of a conversion, without I/O: one run of segments from a given segment on, and the
/// extraction of text subtitles as WebVTT.
///
/// Timestamps stay the source's (`-copyts -start_at_zero`), so a segment made by any run carries the times it
/// has in the whole stream; the segment muxer cuts at the layout's starts (`-segment_times`), at key frames that
/// converted video gets forced there (`-force_key_frames`) and copied video has there. ffmpeg reports each
/// finished segment on standard output (`-segment_list pipe:1`, CSV) and its progress on descriptor 3.
public struct FFmpegArguments: Sendable {
    /// The plan carried out.
    public var plan: ConversionPlan
    /// Where the segments start and end.
    public var layout: SegmentLayout
    /// The inputs: the source file, or a video and an audio input (``ProbedStream/input`` indexes them).
    public var inputs: [MediaInput]
    /// The first input's location (the source file).
    public var source: String {
        get { inputs.first?.location ?? "" }
        set { if inputs.isEmpty { inputs = [MediaInput(path: newValue)] } else { inputs[0].location = newValue } }
    }
    /// Conversion settings (preset, quality, hardware).
    public var options: ConversionOptions
    /// Whether the source's video has reordered frames (B-frames), which moves ffmpeg's seek point back.
    public var sourceHasReorderedFrames: Bool

    /// Creates a command builder.
    public init(plan: ConversionPlan, layout: SegmentLayout, source: String, options: ConversionOptions, sourceHasReorderedFrames: Bool) {
        self.init(plan: plan, layout: layout, inputs: [MediaInput(path: source)], options: options,
                  sourceHasReorderedFrames: sourceHasReorderedFrames)
    }

    /// Creates a command builder reading `inputs` (each a file or a URL with its headers).
    public init(plan: ConversionPlan, layout: SegmentLayout, inputs: [MediaInput], options: ConversionOptions, sourceHasReorderedFrames: Bool) {
        self.plan = plan
        self.layout = layout
        self.inputs = inputs
        self.options = options
        self.sourceHasReorderedFrames = sourceHasReorderedFrames
    }

    /// The most forced key frames or cut times passed on one command line (about 8 KiB each way per 1 000).
    static let maximumListedTimes = 12_000

    /// The file name pattern of the segments ffmpeg writes (`segment-%d.ts`, `segment-%d.mp4`).
    public static func outputPattern(for format: HLSSegmentContainer) -> String {
        format == .mpegts ? "segment-%d.ts" : "segment-%d.mp4"
    }

    /// The file ffmpeg writes segment `index` to.
    public static func outputName(segment index: Int, format: HLSSegmentContainer) -> String {
        format == .mpegts ? "segment-\(index).ts" : "segment-\(index).mp4"
    }

    /// The arguments of a run making segments from `segment` on into `directory`, with the given video encoder.
    public func segmentRun(from segment: Int, directory: String, hardware: HardwareAcceleration = .none) -> [String] {
        guard case .hls(let format) = plan.delivery else { return [] }
        let start = layout.start(of: segment)
        var arguments = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error", "-progress", "pipe:3", "-stats_period", "0.5"]
        let copiesVideo = plan.video?.action == .copy
        if case .vaapi(let device) = hardware, !copiesVideo, plan.video != nil {
            arguments += ["-vaapi_device", device]
        }
        // Each input seeks on its own (a video and an audio input both start at the segment).
        for (position, input) in inputs.enumerated() {
            if segment > 0 {
                // ffmpeg seeks 3/23 s before the asked time when frames are reordered; a run copying video must start
                // at the segment's own key frame, so it asks for a point just after it.
                let nudge = copiesVideo ? (sourceHasReorderedFrames ? 0.14 : 0.001) : 0
                arguments += ["-ss", Self.seconds(start + nudge)]
                if copiesVideo { arguments.append("-noaccurate_seek") }
            }
            if position == 0 { arguments += ["-copyts", "-start_at_zero", "-avoid_negative_ts", "disabled"] }
            arguments += input.inputOptions
            arguments += ["-i", input.location]
        }
        arguments += mapping(hardware: hardware, from: segment)
        arguments += ["-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1", "-max_muxing_queue_size", "4096"]
        // The segment muxer: cut at the layout's starts after this run's first.
        let cuts = layout.starts.dropFirst(segment + 1).prefix(Self.maximumListedTimes).map { Self.seconds(max(0, $0 - 0.001)) }
        arguments += ["-f", "segment", "-segment_format", format == .mpegts ? "mpegts" : "mp4"]
        if !cuts.isEmpty { arguments += ["-segment_times", cuts.joined(separator: ",")] }
        arguments += ["-segment_start_number", String(segment), "-segment_list", "pipe:1", "-segment_list_type", "csv"]
        switch format {
        case .mpegts:
            arguments += ["-muxdelay", "0", "-muxpreload", "0"]
        case .fmp4:
            let fragmenting = plan.video == nil
                ? "empty_moov+default_base_moof+frag_discont:frag_duration=\(Int(options.segmentDuration * 1_000_000))"
                : "frag_keyframe+empty_moov+default_base_moof+frag_discont"
            arguments += ["-segment_format_options", "movflags=+\(fragmenting):avoid_negative_ts=disabled"]
        }
        arguments.append(directory + "/" + Self.outputPattern(for: format))
        return arguments
    }

    /// `-map`, codecs and filters.
    func mapping(hardware: HardwareAcceleration, from segment: Int) -> [String] {
        var arguments: [String] = []
        if let video = plan.video {
            switch video.action {
            case .copy:
                arguments += ["-map", "\(video.stream.input):\(video.stream.index)", "-c:v", "copy"]
                if video.stream.codec == .hevc { arguments += ["-tag:v", "hvc1"] }
            case .transcodeVideo(let encoding):
                let (filterArguments, label) = videoFilters(video.stream, encoding: encoding, hardware: hardware)
                arguments += filterArguments
                arguments += ["-map", label]
                arguments += encoder(encoding, hardware: hardware)
                let forced = layout.starts.dropFirst(segment).prefix(Self.maximumListedTimes).map(Self.seconds)
                arguments += ["-force_key_frames", forced.joined(separator: ",")]
            default:
                break
            }
        }
        if let audio = plan.audio {
            arguments += ["-map", "\(audio.stream.input):\(audio.stream.index)"]
            switch audio.action {
            case .transcodeAudio(let encoding):
                arguments += encoding.codec == .aac ? ["-c:a", "aac"] : ["-c:a", "libopus"]
                arguments += ["-b:a", String(encoding.bitRate), "-ac", String(encoding.channels), "-ar", String(encoding.sampleRate)]
            default:
                arguments += ["-c:a", "copy"]
            }
        }
        return arguments
    }

    /// The video filter graph (scale, frame rate, pixel format, burnt-in subtitles) and the label to map.
    func videoFilters(_ stream: ProbedStream, encoding: VideoEncoding, hardware: HardwareAcceleration) -> ([String], String) {
        var chain: [String] = []
        if encoding.width != stream.width || encoding.height != stream.height {
            chain.append("scale=\(encoding.width):\(encoding.height)")
        }
        if let rate = encoding.frameRate { chain.append("fps=\(Self.seconds(rate))") }
        if case .vaapi = hardware {
            chain.append("format=nv12")
            chain.append("hwupload")
        } else {
            chain.append("format=yuv420p")
        }
        let tail = chain.joined(separator: ",")
        let label = "\(stream.input):\(stream.index)"
        if let burn = plan.burntSubtitle {
            if burn.stream.isImageSubtitle {
                let graph = "[\(label)][0:\(burn.stream.index)]overlay=eof_action=pass:repeatlast=0,\(tail)[v]"
                return (["-filter_complex", graph], "[v]")
            }
            let ordinal = plan.subtitles.firstIndex { $0.stream.index == burn.stream.index } ?? 0
            let filter = "subtitles=filename=\(Self.escapeFilterValue(source)):si=\(ordinal)"
            return (["-filter_complex", "[\(label)]\(filter),\(tail)[v]"], "[v]")
        }
        return (["-filter_complex", "[\(label)]\(tail)[v]"], "[v]")
    }

    func encoder(_ encoding: VideoEncoding, hardware: HardwareAcceleration) -> [String] {
        let level = "\(encoding.level.major).\(encoding.level.minor)"
        let rate = String(encoding.maximumBitRate)
        let buffer = String(encoding.maximumBitRate * 2)
        if case .vaapi = hardware {
            return ["-c:v", "h264_vaapi", "-profile:v", "high", "-level", level, "-b:v", String(encoding.maximumBitRate * 3 / 4),
                    "-maxrate", rate, "-bufsize", buffer, "-g", "9999", "-bf", "0"]
        }
        // No B-frames: the first segment is ready about a third sooner (no reordering delay before the key frame
        // that closes it) and x264 spends about 30 % less CPU, for some 13 % more bits at the same SSIM (measured
        // on the bench's 720p clip); a device on a LAN has bits to spare, the sender's CPU often does not.
        return ["-c:v", "libx264", "-preset", options.videoPreset, "-crf", String(options.videoQuality),
                "-profile:v", "high", "-level:v", level, "-maxrate", rate, "-bufsize", buffer, "-sc_threshold", "0",
                "-g", "9999", "-bf", "0", "-x264-params", "open-gop=0"]
    }

    /// The arguments extracting text subtitle streams to WebVTT files (`subtitles-<index>.vtt` in `directory`), all
    /// in one reading of the source.
    public func subtitleExtraction(streams: [Int], directory: String) -> [String] {
        var arguments = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error"] + (inputs.first?.inputOptions ?? []) + ["-i", source]
        for index in streams {
            arguments += ["-map", "0:\(index)", "-c:s", "webvtt", "-f", "webvtt", directory + "/" + Self.subtitleName(stream: index)]
        }
        return arguments
    }

    /// The file a text subtitle stream is extracted to.
    public static func subtitleName(stream index: Int) -> String { "subtitles-\(index).vtt" }

    /// Seconds as ffmpeg reads them (`12.345678`).
    static func seconds(_ value: Double) -> String {
        let micro = Int((value * 1_000_000).rounded())
        let whole = micro / 1_000_000, fraction = micro % 1_000_000
        if fraction == 0 { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// A file name as a filter option value inside a filter graph: escaped for the option (`\`, `'`, `:`), then for
    /// the graph (`\`, `'`, `[`, `]`, `,`, `;`).
    static func escapeFilterValue(_ text: String) -> String {
        func escape(_ text: String, _ special: Set<Character>) -> String {
            var result = ""
            for character in text {
                if special.contains(character) { result.append("\\") }
                result.append(character)
            }
            return result
        }
        return escape(escape(text, ["\\", "'", ":"]), ["\\", "'", "[", "]", ",", ";"])
    }
}
