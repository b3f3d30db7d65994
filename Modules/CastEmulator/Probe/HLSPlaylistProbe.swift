/// HLS playlists: a media playlist's duration is the sum of its `#EXTINF` durations; without
/// `#EXT-X-ENDLIST` (and not `#EXT-X-PLAYLIST-TYPE:VOD`) it is live. A master playlist names the
/// variant to read next.
enum HLSPlaylistProbe {
    /// The most lines read.
    static let maximumLines = 200_000

    static func looksLikePlaylist(_ prefix: [UInt8]) -> Bool {
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.starts(with: Array("#EXTM3U".utf8))
    }

    static func probe(_ text: String) -> MediaProbeResult {
        var total = 0.0
        var segments = 0
        var ended = false
        var expectVariantURI = false
        var lines = 0
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            lines += 1
            if lines > maximumLines { break }
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if expectVariantURI, !line.hasPrefix("#") { return .followPlaylist(line) }
            if line.hasPrefix("#EXT-X-STREAM-INF") {
                expectVariantURI = true
            } else if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
                guard let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else {
                    return .unknown
                }
                total += seconds
                segments += 1
            } else if line == "#EXT-X-ENDLIST" || line == "#EXT-X-PLAYLIST-TYPE:VOD" {
                ended = true
            }
        }
        guard segments > 0 || ended else { return .unknown }
        guard ended else { return .found(.live) }
        return plausibleSeconds(total).map(MediaProbeResult.found) ?? .unknown
    }

    /// Resolves a variant URI against the playlist's URL (absolute, host-relative or path-relative).
    static func resolve(_ reference: String, against base: String) -> String {
        let lowered = reference.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return reference }
        let withoutQuery = base.split(separator: "?", maxSplits: 1).first.map(String.init) ?? base
        guard let schemeEnd = withoutQuery.range(of: "://") else { return reference }
        let afterScheme = withoutQuery[schemeEnd.upperBound...]
        let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let origin = String(withoutQuery[..<hostEnd])
        if reference.hasPrefix("/") { return origin + removingDotSegments(reference) }
        let directory = withoutQuery[hostEnd...].lastIndex(of: "/").map { String(withoutQuery[hostEnd..<$0]) } ?? ""
        return origin + removingDotSegments(directory + "/" + reference)
    }

    /// A path without its `.` and `..` segments, as a browser resolves a relative reference
    /// (RFC 3986 §5.2.4): `/a/live/../seg0.ts` → `/a/seg0.ts`. A query stays as it is.
    static func removingDotSegments(_ path: String) -> String {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var output: [Substring] = []
        let segments = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        let resolved = output.joined(separator: "/")
        return parts.count > 1 ? resolved + "?" + parts[1] : resolved
    }
}
