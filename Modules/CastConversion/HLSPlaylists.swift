import CastDeviceProfiles

/// The two playlists of a converted stream, written before any segment is made.
///
/// The master playlist names the one variant with its `CODECS` (what the device will get, so that it can refuse
/// early), `BANDWIDTH` and `RESOLUTION`; the media playlist lists every segment of the ``SegmentLayout`` with its
/// duration, as a VOD (`#EXT-X-PLAYLIST-TYPE:VOD`, `#EXT-X-ENDLIST`): the device knows the whole duration and may
/// seek anywhere. Fragmented-MP4 segments each name their initialization section (`#EXT-X-MAP`), since a segment
/// made by a later run of ffmpeg comes with that run's.
public struct HLSPlaylists: Sendable, Hashable {
    /// The plan converted.
    public var plan: ConversionPlan
    /// The segments.
    public var layout: SegmentLayout

    /// The master playlist's name.
    public static let masterName = "master.m3u8"
    /// The media playlist's name.
    public static let mediaName = "media.m3u8"
    /// The content type of both.
    public static let contentType = "application/vnd.apple.mpegurl"

    /// Creates the playlists of a plan delivered as HLS.
    public init(plan: ConversionPlan, layout: SegmentLayout) {
        self.plan = plan
        self.layout = layout
    }

    /// The segment format (MPEG-TS when the plan is not HLS).
    public var format: HLSSegmentContainer {
        if case .hls(let format) = plan.delivery { return format }
        return .mpegts
    }

    /// The name of segment `index` (`segment-3.ts`, `segment-3.m4s`).
    public func segmentName(_ index: Int) -> String { "segment-\(index).\(format.fileExtension)" }

    /// The name of the initialization section of fragmented-MP4 segment `index`.
    public func initializationName(_ index: Int) -> String { "init-\(index).mp4" }

    /// What a request name is: a segment, an initialization section, or neither.
    public enum Resource: Sendable, Hashable {
        /// A media segment.
        case segment(Int)
        /// A fragmented-MP4 initialization section.
        case initialization(Int)
    }

    /// The resource a name asks for, if it is a segment or initialization section within the layout.
    public func entry(named name: String) -> Resource? {
        func number(_ prefix: String, _ suffix: String) -> Int? {
            guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.utf8.count <= prefix.utf8.count + suffix.utf8.count + 9 else { return nil }
            let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let value = Int(digits),
                  value < layout.count, String(value) == digits else { return nil }
            return value
        }
        if let index = number("segment-", "." + format.fileExtension) { return .segment(index) }
        if format == .fmp4, let index = number("init-", ".mp4") { return .initialization(index) }
        return nil
    }

    /// The RFC 6381 codecs of what is sent: `avc1.640028,mp4a.40.2`.
    public var codecs: [String] {
        var codecs: [String] = []
        switch plan.video?.action {
        case .transcodeVideo(let encoding)?: codecs.append(encoding.codecsString)
        case .copy?: if let stream = plan.video?.stream { codecs.append(Self.codecsString(video: stream)) }
        default: break
        }
        switch plan.audio?.action {
        case .transcodeAudio(let encoding)?: codecs.append(encoding.codecsString)
        case .copy?: if let stream = plan.audio?.stream { codecs.append(Self.codecsString(audio: stream)) }
        default: break
        }
        return codecs
    }

    /// The peak bit rate of the variant, bits per second.
    public var bandwidth: Int {
        var total = 0
        switch plan.video?.action {
        case .transcodeVideo(let encoding)?: total += encoding.maximumBitRate
        case .copy?: total += (plan.video?.stream.bitRate ?? 8_000_000) * 3 / 2
        default: break
        }
        switch plan.audio?.action {
        case .transcodeAudio(let encoding)?: total += encoding.bitRate
        case .copy?: total += plan.audio?.stream.bitRate ?? 640_000
        default: break
        }
        return max(total, 64_000)
    }

    /// The master playlist.
    public var master: String {
        var attributes = ["BANDWIDTH=\(bandwidth)", "CODECS=\"\(codecs.joined(separator: ","))\""]
        switch plan.video?.action {
        case .transcodeVideo(let encoding)?:
            attributes.append("RESOLUTION=\(encoding.width)x\(encoding.height)")
            if let rate = encoding.outputFrameRate { attributes.append("FRAME-RATE=\(Self.decimal(rate, places: 3))") }
        case .copy?:
            if let stream = plan.video?.stream, let width = stream.width, let height = stream.height {
                attributes.append("RESOLUTION=\(width)x\(height)")
                if let rate = stream.frameRate { attributes.append("FRAME-RATE=\(Self.decimal(rate, places: 3))") }
            }
        default: break
        }
        return """
            #EXTM3U
            #EXT-X-VERSION:\(format == .fmp4 ? 7 : 3)
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:\(attributes.joined(separator: ","))
            \(Self.mediaName)

            """
    }

    /// The media playlist: every segment, with its duration.
    public var media: String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:\(format == .fmp4 ? 7 : 3)", "#EXT-X-TARGETDURATION:\(layout.targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS",
        ]
        lines.reserveCapacity(layout.count * 3 + 8)
        for index in 0..<layout.count {
            if format == .fmp4 { lines.append("#EXT-X-MAP:URI=\"\(initializationName(index))\"") }
            lines.append("#EXTINF:\(Self.decimal(layout.length(of: index), places: 6)),")
            lines.append(segmentName(index))
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The codec string of a copied video stream.
    static func codecsString(video stream: ProbedStream) -> String {
        let levelNumber = stream.level.map { $0.major * 10 + $0.minor }
        func hex(_ value: Int) -> String {
            let text = String(value, radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        switch stream.codec {
        case .h264:
            let profile = stream.profile
            let idc = profile == .main ? 0x4D : profile == .baseline || profile == .constrainedBaseline ? 0x42
                : profile == .high10 ? 0x6E : profile == .high422 ? 0x7A : profile == .high444 ? 0xF4 : 0x64
            let constraints = profile == .constrainedBaseline ? 0x40 : 0
            return "avc1.\(hex(idc))\(hex(constraints))\(hex(levelNumber ?? 40))"
        case .hevc:
            let main10 = stream.profile == .main10
            return "hvc1.\(main10 ? 2 : 1).\(main10 ? 4 : 6).L\((levelNumber ?? 40) * 3).90"
        case .vp9:
            let profile = stream.profile.flatMap { Int($0.name.filter(\.isNumber)) } ?? 0
            let depth = stream.bitDepth ?? 8
            return "vp09.\(profile < 10 ? "0" : "")\(profile).\(levelNumber.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "40").\(depth < 10 ? "0" : "")\(depth)"
        case .av1:
            let index = stream.level.map { ($0.major - 2) * 4 + $0.minor } ?? 8
            let depth = stream.bitDepth ?? 8
            return "av01.0.\(index < 10 ? "0" : "")\(index)M.\(depth < 10 ? "0" : "")\(depth)"
        default:
            return stream.codec.name
        }
    }

    /// The codec string of a copied audio stream.
    static func codecsString(audio stream: ProbedStream) -> String {
        switch stream.codec {
        case .aac:
            if stream.profile == .heAACv2 { return "mp4a.40.29" }
            if stream.profile == .heAAC { return "mp4a.40.5" }
            return "mp4a.40.2"
        case .mp3: return "mp4a.40.34"
        case .ac3: return "ac-3"
        case .eac3: return "ec-3"
        case .opus: return "opus"
        case .flac: return "fLaC"
        default: return stream.codec.name
        }
    }

    static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        return "\(whole).\(fraction)"
    }
}
