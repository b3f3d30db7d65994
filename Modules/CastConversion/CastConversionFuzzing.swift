import CastDeviceProfiles

/// What the conversion fuzz targets drive: ffprobe's report through planning for every preset and the command
/// lines and playlists a plan makes; fragmented-MP4 splitting; ffprobe's key frame lines through a layout.
/// Each check traps when an invariant breaks.
@_spi(Fuzzing) public enum CastConversionFuzzing {
    /// Reads bytes as ffprobe's report, plans the result for every preset (with and without passthrough, with
    /// a burn-in of each subtitle stream), and builds the playlists and ffmpeg's arguments of each HLS plan.
    public static func checkReport(_ bytes: [UInt8]) {
        guard let media = try? ProbedMedia(ffprobeJSON: bytes, path: "/fuzz.mkv") else { return }
        guard media.streams.count <= ProbedMedia.maximumStreams else { fatalError("more streams than the cap") }
        let burns: [Int?] = [nil] + media.subtitleStreams.prefix(2).map(\.index)
        for profile in CastDeviceProfile.presets {
            for passthrough in [false, true] {
                for burn in burns {
                    let options = ConversionOptions(hdmiPassthrough: passthrough, burnSubtitleStream: burn)
                    guard let plan = try? ConversionPlan(for: media, profile: profile, options: options) else { continue }
                    check(plan, media: media, options: options)
                }
            }
        }
    }

    static func check(_ plan: ConversionPlan, media: ProbedMedia, options: ConversionOptions) {
        guard plan.video != nil || plan.audio != nil else { fatalError("a plan without video or audio") }
        if case .transcodeVideo(let encoding)? = plan.video?.action {
            guard encoding.width % 2 == 0, encoding.height % 2 == 0, encoding.width >= 2, encoding.height >= 2 else {
                fatalError("odd or empty size \(encoding)")
            }
            if let capability: VideoCapability = plan.profile.capability(for: .h264), let maximum = capability.maximumLevel,
               encoding.level > maximum {
                fatalError("level \(encoding.level) above \(maximum)")
            }
        }
        guard case .hls(let container) = plan.delivery else { return }
        if container == .mpegts {
            if case .copy? = plan.video?.action, plan.video?.stream.codec != .h264 { fatalError("\(plan.video!.stream.codec) copied into MPEG-TS") }
            if case .copy? = plan.audio?.action, let codec = plan.audio?.stream.codec, ![.aac, .mp3, .ac3, .eac3].contains(codec) {
                fatalError("\(codec) copied into MPEG-TS")
            }
        }
        let duration = min(max(media.duration ?? 10, 1), 3 * 3600)
        guard let layout = try? SegmentLayout.regular(duration: duration, target: options.segmentDuration) else { return }
        let playlists = HLSPlaylists(plan: plan, layout: layout)
        let text = playlists.media
        guard text.hasPrefix("#EXTM3U\n"), text.hasSuffix("#EXT-X-ENDLIST\n") else { fatalError("a media playlist without its ends") }
        guard playlists.entry(named: playlists.segmentName(layout.count - 1)) == .segment(layout.count - 1) else {
            fatalError("the last segment's name does not read back")
        }
        _ = playlists.master
        let arguments = FFmpegArguments(plan: plan, layout: layout, source: "/fuzz.mkv", options: options,
                                        sourceHasReorderedFrames: plan.video?.stream.hasReorderedFrames ?? false)
        for segment in [0, layout.count / 2, layout.count - 1] {
            let run = arguments.segmentRun(from: segment, directory: "/tmp")
            guard run.contains("-segment_start_number"), run.last?.hasPrefix("/tmp/segment-") == true else { fatalError("no segment output") }
        }
    }

    /// Finds the initialization section of arbitrary bytes; it must end where a `moof` box starts.
    public static func checkFragmentedMP4(_ bytes: [UInt8]) {
        guard let length = FragmentedMP4.initializationLength(bytes) else { return }
        guard length >= 16, length + 8 <= bytes.count, Array(bytes[(length + 4)..<(length + 8)]) == Array("moof".utf8) else {
            fatalError("initialization length \(length) does not end at a moof box")
        }
    }

    /// Reads bytes as ffprobe's `pts_time,flags` lines, then lays segments out at the key frames found: starts
    /// ascend from 0, stay below the duration, and no segment is shorter than asked (but the last).
    public static func checkKeyframes(_ bytes: [UInt8]) {
        let collector = KeyframeCollector(limit: 10_000, offset: 0)
        for line in String(decoding: bytes.prefix(1 << 16), as: UTF8.self).split(separator: "\n").prefix(20_000) {
            collector.add(String(line))
        }
        let (times, _) = collector.result
        guard zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else { fatalError("key frames not ascending") }
        let duration = (times.last ?? 0) + 1.5
        guard let layout = try? SegmentLayout.keyframes(times, duration: max(duration, 1), target: 3) else { return }
        guard layout.starts.first == 0, zip(layout.starts, layout.starts.dropFirst()).allSatisfy({ $1 - $0 >= 0.999 }),
              layout.starts.allSatisfy({ $0 < layout.duration }) else {
            fatalError("a bad layout \(layout.starts.prefix(20))")
        }
        var reader = FFmpegProgress.Reader()
        for line in String(decoding: bytes.prefix(4096), as: UTF8.self).split(separator: "\n") { _ = reader.read(String(line)) }
    }
}
