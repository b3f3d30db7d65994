import CastDeviceProfiles

/// HLS: a master playlist's variants name their codecs (`CODECS`), size (`RESOLUTION`) and rate
/// (`FRAME-RATE`); a variant without `CODECS` is read through its media playlist. A media playlist
/// names its streams through its first segment, or its initialisation segment (`#EXT-X-MAP`).
enum HLSCodecProbe {
    /// The most variants read.
    static let maximumVariants = 64

    static func probe(_ text: String) -> CodecProbeResult {
        var variants: [MediaDescription] = []
        var firstVariantURI: String?
        var firstUndescribed: String?
        var pending: [String: String]?
        var initialisation: String?
        var firstSegment: String?
        var lines = 0
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            lines += 1
            if lines > HLSPlaylistProbe.maximumLines { break }
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if let attributes = pending, !line.hasPrefix("#") {
                pending = nil
                if firstVariantURI == nil { firstVariantURI = line }
                if let variant = describe(attributes) {
                    if variants.count < maximumVariants { variants.append(variant) }
                } else if firstUndescribed == nil {
                    firstUndescribed = line
                }
                continue
            }
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
            } else if line.hasPrefix("#EXT-X-MAP:"), initialisation == nil {
                initialisation = attributes(line.dropFirst("#EXT-X-MAP:".count))["URI"]
            } else if !line.hasPrefix("#"), firstSegment == nil {
                firstSegment = line
            }
        }
        if firstVariantURI != nil {
            // A master playlist: its variants when they all name their codecs; otherwise the media
            // playlist of the first that does not (a player tries a variant whose codecs it does not know).
            if let firstUndescribed { return .follow(firstUndescribed, .playlist) }
            return variants.isEmpty ? .unknown : .alternatives(variants)
        }
        if let segment = initialisation ?? firstSegment { return .follow(segment, .segment) }
        return .unknown
    }

    /// A variant's description from its `CODECS`, `RESOLUTION` and `FRAME-RATE`; `nil` without `CODECS`.
    static func describe(_ attributes: [String: String]) -> MediaDescription? {
        guard let codecs = attributes["CODECS"].map(CodecsParameter.init), !(codecs.video.isEmpty && codecs.audio.isEmpty) else {
            return nil
        }
        var video = codecs.video
        if let resolution = attributes["RESOLUTION"] {
            let parts = resolution.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            if parts.count == 2, parts.allSatisfy({ $0 > 0 && $0 <= 65_535 }) {
                for index in video.indices {
                    video[index].width = parts[0]
                    video[index].height = parts[1]
                }
            }
        }
        if let rate = attributes["FRAME-RATE"].flatMap(Double.init), rate.isFinite, rate > 0 {
            for index in video.indices { video[index].frameRate = rate }
        }
        return MediaDescription(container: .hls, video: video, audio: codecs.audio)
    }

    /// An HLS attribute list (`KEY=value,KEY="quoted, value"`), at most 64 attributes.
    static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        for _ in 0..<64 {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            var value: Substring
            if rest.first == "\"" {
                rest = rest.dropFirst()
                let close = rest.firstIndex(of: "\"") ?? rest.endIndex
                value = rest[..<close]
                rest = close < rest.endIndex ? rest[rest.index(after: close)...] : rest[close...]
                if let comma = rest.firstIndex(of: ",") { rest = rest[rest.index(after: comma)...] } else { rest = rest[rest.endIndex...] }
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = comma < rest.endIndex ? rest[rest.index(after: comma)...] : rest[comma...]
            }
            result[key] = String(value)
        }
        return result
    }
}

/// DASH: each `Representation` names its codecs, size and rate (or inherits them from its
/// `AdaptationSet`); a player plays a video representation with an audio one, so each pair is an
/// alternative.
enum DASHCodecProbe {
    /// The most representations of each kind combined.
    static let maximumRepresentations = 16

    static func probe(_ text: String) -> CodecProbeResult {
        var scanner = StartTagScanner(text: text)
        var set: [String: String] = [:]
        var videos: [(VideoStreamDescription, MediaContainer?)] = []
        var audios: [(AudioStreamDescription, MediaContainer?)] = []
        var tags = 0
        var sawManifest = false
        while tags < DASHManifestProbe.maximumTags, let (name, attributes) = scanner.next() {
            tags += 1
            let local = name.split(separator: ":").last.map(String.init) ?? name
            switch local {
            case "MPD": sawManifest = true
            case "AdaptationSet": set = attributes
            case "Representation":
                let merged = set.merging(attributes) { _, own in own }
                guard let codecs = merged["codecs"].map(CodecsParameter.init) else { continue }
                let mime = (merged["mimeType"] ?? "").lowercased()
                let container: MediaContainer? = mime.hasSuffix("/webm") ? .webm : mime.hasSuffix("/mp4") ? .mp4 : nil
                for var video in codecs.video where videos.count < maximumRepresentations {
                    video.width = merged["width"].flatMap(dimension)
                    video.height = merged["height"].flatMap(dimension)
                    video.frameRate = merged["frameRate"].flatMap(frameRate)
                    videos.append((video, container))
                }
                for var audio in codecs.audio where audios.count < maximumRepresentations {
                    audio.sampleRate = merged["audioSamplingRate"].flatMap(dimension)
                    audios.append((audio, container))
                }
            default: break
            }
        }
        guard sawManifest, !(videos.isEmpty && audios.isEmpty) else { return .unknown }
        var alternatives: [MediaDescription] = []
        for video in videos.isEmpty ? [nil] : videos.map(Optional.some) {
            for audio in audios.isEmpty ? [nil] : audios.map(Optional.some) {
                alternatives.append(MediaDescription(
                    container: .dash, video: video.map { [$0.0] } ?? [], audio: audio.map { [$0.0] } ?? [],
                    segmentContainer: video?.1 ?? audio?.1))
            }
        }
        return .alternatives(alternatives)
    }

    /// A positive whole number (a width, a height, a sample rate), below 2^31.
    static func dimension(_ text: String) -> Int? {
        guard let value = Int(text), value > 0, value < Int(Int32.max) else { return nil }
        return value
    }

    /// A DASH frame rate (`30`, `30000/1001`).
    static func frameRate(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        let rate = parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : parts.count == 1 ? parts[0] : nil
        guard let rate, rate.isFinite, rate > 0 else { return nil }
        return rate
    }
}
