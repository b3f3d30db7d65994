import CastDeviceProfiles
import CastJSON
import Foundation

extension ProbedMedia {
    /// The largest ffprobe report read (`-show_format -show_streams` of a file with hundreds of streams is
    /// far below it).
    public static let maximumReportBytes = 4 << 20
    /// The most streams read from a report.
    public static let maximumStreams = 512

    /// Reads ffprobe's JSON report (`ffprobe -print_format json -show_format -show_streams`).
    ///
    /// Pure and bounded: at most ``maximumReportBytes`` bytes and ``maximumStreams`` streams; numbers out of
    /// range (negative sizes, absurd rates) are dropped, not trusted.
    /// - Throws: ``ConversionError/Code/malformedProbe`` when the bytes are not such a report;
    ///   ``ConversionError/Code/probeFailed`` when the report is ffprobe's `error` object.
    public init(ffprobeJSON bytes: [UInt8], path: String? = nil) throws(ConversionError) {
        guard bytes.count <= Self.maximumReportBytes else {
            throw ConversionError(code: .tooLarge, message: "ffprobe's report is larger than \(Self.maximumReportBytes) bytes")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Data(bytes))
        } catch {
            throw ConversionError(code: .malformedProbe, message: "ffprobe's report is not JSON", cause: error)
        }
        guard json.objectValue != nil else {
            throw ConversionError(code: .malformedProbe, message: "ffprobe's report is not a JSON object")
        }
        if let error = json["error"], let text = error["string"]?.stringValue {
            throw ConversionError(code: .probeFailed, message: "ffprobe cannot read \(path ?? "the file"): \(text)")
        }
        guard let format = json["format"], format.objectValue != nil else {
            throw ConversionError(code: .malformedProbe, message: "ffprobe's report has no format")
        }
        let formatName = format["format_name"]?.stringValue ?? ""
        let rawStreams = (json["streams"]?.arrayValue ?? []).prefix(Self.maximumStreams)
        var streams: [ProbedStream] = []
        for (position, raw) in rawStreams.enumerated() {
            guard raw.objectValue != nil else { continue }
            streams.append(Self.stream(raw, position: position))
        }
        let duration = Self.seconds(format["duration"]) ?? Self.longestStreamDuration(rawStreams)
        let media = MediaDescription(
            container: formatName.isEmpty ? nil : MediaContainer(ffprobeFormatName: formatName),
            video: streams.filter { $0.kind == .video }.map(\.videoDescription),
            audio: streams.filter { $0.kind == .audio }.map(\.audioDescription),
            subtitles: streams.filter { $0.kind == .subtitle }.map(\.subtitleDescription),
            duration: duration)
        self.init(
            path: path, formatName: formatName, media: media, streams: streams, duration: duration,
            startTime: Self.seconds(format["start_time"], allowZero: true) ?? 0, bitRate: Self.integer(format["bit_rate"]))
    }

    static func stream(_ raw: JSONValue, position: Int) -> ProbedStream {
        let codec = MediaCodec(Self.text(raw["codec_name"]) ?? "none")
        let kind: MediaStreamKind = switch Self.text(raw["codec_type"]) {
        case "video": .video
        case "audio": .audio
        case "subtitle": .subtitle
        default: .other
        }
        let disposition = raw["disposition"]
        let tags = raw["tags"]
        let profileName = Self.text(raw["profile"]).flatMap { $0 == "unknown" ? nil : $0 }
        let pixelFormat = Self.text(raw["pix_fmt"])
        var stream = ProbedStream(
            index: Self.integer(raw["index"]).flatMap { (0...65_535).contains($0) ? $0 : nil } ?? position,
            kind: kind, codec: codec,
            profile: profileName.map(CodecProfile.init),
            level: Self.level(Self.integer(raw["level"], allowNegative: true), codec: codec),
            language: Self.tag(tags, "language").flatMap { $0.lowercased() == "und" ? nil : $0 },
            title: Self.tag(tags, "title"),
            isDefault: disposition?["default"]?.intValue == 1,
            isForced: disposition?["forced"]?.intValue == 1,
            isAttachedPicture: disposition?["attached_pic"]?.intValue == 1,
            hasReorderedFrames: (Self.integer(raw["has_b_frames"]) ?? 0) > 0,
            bitRate: Self.integer(raw["bit_rate"]))
        stream.identifier = Self.tag(tags, "id")
        switch kind {
        case .video:
            stream.width = Self.integer(raw["width"]).flatMap { (1...65_536).contains($0) ? $0 : nil }
            stream.height = Self.integer(raw["height"]).flatMap { (1...65_536).contains($0) ? $0 : nil }
            stream.frameRate = Self.rate(raw["avg_frame_rate"]) ?? Self.rate(raw["r_frame_rate"])
            stream.pixelFormat = pixelFormat
            stream.bitDepth = Self.integer(raw["bits_per_raw_sample"]).flatMap { (8...16).contains($0) ? $0 : nil }
                ?? pixelFormat.map(Self.lumaDepth)
        case .audio:
            stream.channels = Self.integer(raw["channels"]).flatMap { (1...64).contains($0) ? $0 : nil }
            stream.sampleRate = Self.integer(raw["sample_rate"]).flatMap { (1...1_000_000).contains($0) ? $0 : nil }
            let depth = Self.integer(raw["bits_per_raw_sample"]) ?? Self.integer(raw["bits_per_sample"])
            if codec == .flac || codec.isPCM || codec == .alac || codec == .truehd {
                stream.bitDepth = depth.flatMap { (1...64).contains($0) ? $0 : nil }
            }
        case .subtitle, .other:
            break
        }
        return stream
    }

    /// ffprobe's `level` in the codec's own coding: H.264 `level_idc` (41), HEVC `general_level_idc` (120 is 4.0),
    /// AV1 `seq_level_idx`; VP9's `-99` and other negatives mean unknown.
    static func level(_ value: Int?, codec: MediaCodec) -> CodecLevel? {
        guard let value, value > 0 else { return nil }
        switch codec {
        case .h264: return CodecLevel(h264LevelIDC: value)
        case .hevc: return CodecLevel(hevcLevelIDC: value)
        case .av1: return CodecLevel(av1SequenceLevelIndex: value)
        case .vp9: return CodecLevel(vp9Level: value)
        default: return nil
        }
    }

    /// The luma depth a pixel format names: `yuv420p10le` is 10, `p010le` 10, `yuv420p` 8.
    static func lumaDepth(_ format: String) -> Int {
        let lower = format.lowercased()
        if lower.hasPrefix("p010") || lower.hasPrefix("p210") || lower.hasPrefix("p410") { return 10 }
        if lower.hasPrefix("p012") { return 12 }
        if lower.hasPrefix("p016") { return 16 }
        for depth in [16, 14, 12, 10, 9] where lower.contains("p\(depth)") { return depth }
        return 8
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue, !string.isEmpty else { return nil }
        return String(string.prefix(256))
    }

    private static func tag(_ tags: JSONValue?, _ name: String) -> String? {
        guard let object = tags?.objectValue else { return nil }
        // Matroska tags are upper case in some files (`LANGUAGE`, `TITLE`).
        let value = object[name] ?? object[name.uppercased()]
        return text(value)?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
    }

    /// An integer given as a number or a decimal string (ffprobe writes bit rates and sample rates as strings).
    static func integer(_ value: JSONValue?, allowNegative: Bool = false) -> Int? {
        guard let value else { return nil }
        var result: Int?
        if let number = value.doubleValue, number.isFinite, abs(number) < 1e15 { result = Int(number) }
        if let string = value.stringValue, string.utf8.count <= 20 { result = Int(string) }
        guard let result, allowNegative || result >= 0 else { return nil }
        return result
    }

    /// Seconds given as a decimal string (`"20.005000"`); `nil` for `N/A`, negatives and the absurd.
    static func seconds(_ value: JSONValue?, allowZero: Bool = false) -> Double? {
        guard let value else { return nil }
        let number = value.doubleValue ?? value.stringValue.flatMap { $0.utf8.count <= 32 ? Double($0) : nil }
        guard let number, number.isFinite, number >= 0, number < 1e9, allowZero || number > 0 else { return nil }
        return number
    }

    /// A rate written `25/1` or `30000/1001`; `nil` for `0/0` and the absurd.
    static func rate(_ value: JSONValue?) -> Double? {
        guard let text = value?.stringValue, text.utf8.count <= 32 else { return nil }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator > 0 else {
            return nil
        }
        let rate = numerator / denominator
        return rate.isFinite && rate > 0 && rate <= 1000 ? rate : nil
    }

    private static func longestStreamDuration(_ streams: ArraySlice<JSONValue>) -> Double? {
        streams.compactMap { seconds($0["duration"]) }.max()
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
