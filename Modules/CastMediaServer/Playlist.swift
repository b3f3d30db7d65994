/// Where a playlist entry's media is.
public enum PlaylistLocation: Sendable, Hashable {
    /// A local file, as an absolute or playlist-relative path resolved against the playlist's directory.
    case file(String)
    /// A URL with a scheme (`http:`, `https:`, `rtsp:`...), kept verbatim.
    case url(String)
}

/// One entry of a playlist, in playlist order.
public struct PlaylistEntry: Sendable, Hashable {
    /// The media's location.
    public var location: PlaylistLocation
    /// The title from `#EXTINF` or `TitleN=`, if any.
    public var title: String?
    /// The duration in seconds from `#EXTINF` or `LengthN=`, if positive.
    public var durationSeconds: Double?

    /// Creates an entry.
    public init(location: PlaylistLocation, title: String? = nil, durationSeconds: Double? = nil) {
        self.location = location
        self.title = title
        self.durationSeconds = durationSeconds
    }
}

/// Playlists: M3U / extended M3U / `.m3u8`, PLS, and directories of media files.
public enum Playlist {
    /// Reads a playlist or directory: a directory gives its media files sorted naturally (``mediaFiles(inDirectory:)``),
    /// `.pls` is parsed as PLS, anything else as M3U.
    /// - Throws: ``MediaServerError`` when the file cannot be read or is malformed, or
    ///   ``MediaServerError/Code/streamingPlaylist`` for an HLS playlist.
    public static func entries(at path: String) throws(MediaServerError) -> [PlaylistEntry] {
        let facts = try FileSystem.facts(atPath: path)
        if facts.isDirectory {
            return try mediaFiles(inDirectory: path).map { PlaylistEntry(location: .file($0)) }
        }
        let text = TextDecoding.decode(try FileSystem.contents(ofFileAt: path))
        let directory = PathText.directory(of: path)
        if path.lowercased().hasSuffix(".pls") { return try parsePLS(text, baseDirectory: directory) }
        return try parseM3U(text, baseDirectory: directory)
    }

    /// Parses M3U text (plain or extended, `#EXTM3U` optional). `#EXTINF:<seconds>[ attributes],<title>` applies to
    /// the next location line; other `#` lines and blank lines are ignored; relative paths are resolved against
    /// `baseDirectory`; `file://` URLs become paths.
    /// - Throws: ``MediaServerError/Code/streamingPlaylist`` when the text is an HLS media or master playlist.
    public static func parseM3U(_ text: String, baseDirectory: String) throws(MediaServerError) -> [PlaylistEntry] {
        var entries: [PlaylistEntry] = []
        var pendingTitle: String?
        var pendingDuration: Double?
        for rawLine in TextDecoding.lines(text) {
            let line = rawLine.trimmedWhitespace()
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.hasPrefix("#EXT-X-TARGETDURATION") || line.hasPrefix("#EXT-X-STREAM-INF")
                    || line.hasPrefix("#EXT-X-MEDIA-SEQUENCE") {
                    throw MediaServerError(
                        code: .streamingPlaylist,
                        message: "This is an HLS playlist (\(line.prefix { $0 != ":" })); cast its URL as one stream")
                }
                if line.hasPrefix("#EXTINF:") {
                    let info = line.dropFirst("#EXTINF:".count)
                    let comma = info.firstIndex(of: ",")
                    let head = comma.map { info[..<$0] } ?? info
                    let seconds = head.split(separator: " ").first.flatMap { Double($0) }
                    pendingDuration = seconds.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }  // `inf`, `1e400`: unknown
                    let title = comma.map { String(info[info.index(after: $0)...]).trimmedWhitespace() } ?? ""
                    pendingTitle = title.isEmpty ? nil : title
                }
                continue
            }
            entries.append(PlaylistEntry(location: location(line, baseDirectory: baseDirectory),
                                         title: pendingTitle, durationSeconds: pendingDuration))
            pendingTitle = nil
            pendingDuration = nil
        }
        return entries
    }

    /// Parses PLS text: a `[playlist]` section with `FileN=`, `TitleN=`, `LengthN=` (keys case-insensitive),
    /// ordered by N; entries without `FileN` are skipped.
    /// - Throws: ``MediaServerError/Code/malformedPlaylist`` when there is no `[playlist]` section.
    public static func parsePLS(_ text: String, baseDirectory: String) throws(MediaServerError) -> [PlaylistEntry] {
        var inPlaylist = false
        var sawSection = false
        var files: [Int: String] = [:]
        var titles: [Int: String] = [:]
        var lengths: [Int: Double] = [:]
        for rawLine in TextDecoding.lines(text) {
            let line = rawLine.trimmedWhitespace()
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inPlaylist = line.lowercased() == "[playlist]"
                sawSection = sawSection || inPlaylist
                continue
            }
            guard inPlaylist, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmedWhitespace().lowercased()
            let value = String(line[line.index(after: equals)...]).trimmedWhitespace()
            for (prefix, apply) in [("file", { (n: Int) in files[n] = value }),
                                    ("title", { (n: Int) in titles[n] = value }),
                                    ("length", { (n: Int) in if let seconds = Double(value), seconds.isFinite, seconds > 0 { lengths[n] = seconds } })]
            where key.hasPrefix(prefix) {
                if let number = Int(key.dropFirst(prefix.count)) { apply(number) }
            }
        }
        guard sawSection else {
            throw MediaServerError(code: .malformedPlaylist, message: "A PLS playlist needs a [playlist] section")
        }
        return files.keys.sorted().compactMap { number in
            guard let file = files[number], !file.isEmpty else { return nil }
            return PlaylistEntry(location: location(file, baseDirectory: baseDirectory),
                                 title: titles[number].flatMap { $0.isEmpty ? nil : $0 }, durationSeconds: lengths[number])
        }
    }

    /// The playable media files of a directory (by extension, hidden files skipped, subdirectories not entered),
    /// as full paths in natural order (`2 < 10`, case-insensitive).
    /// - Throws: ``MediaServerError`` when the directory cannot be listed.
    public static func mediaFiles(inDirectory path: String) throws(MediaServerError) -> [String] {
        let names = try FileSystem.directoryEntries(path)
        let prefix = path.hasSuffix("/") ? path : path + "/"
        return names
            .filter { !$0.hasPrefix(".") && MediaContentType.isPlayableMedia(fileName: $0) }
            .filter { (try? FileSystem.facts(atPath: prefix + $0).isRegularFile) == true }
            .sorted { naturalOrder($0, $1) }
            .map { prefix + $0 }
    }

    /// Natural ordering: runs of digits compare by value (`ep2` before `ep10`), letters case-insensitively;
    /// ties are broken by the plain text so the order is total.
    public static func naturalOrder(_ lhs: String, _ rhs: String) -> Bool {
        let a = chunks(lhs)
        let b = chunks(rhs)
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.number(let m, let mText), .number(let n, let nText)):
                if m != n { return m < n }
                if mText.count != nText.count { return mText.count < nText.count }
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let s), .text(let t)):
                let (ls, lt) = (s.lowercased(), t.lowercased())
                if ls != lt { return ls < lt }
            }
        }
        if a.count != b.count { return a.count < b.count }
        return lhs < rhs
    }

    private enum Chunk { case number(Double, String), text(String) }

    private static func chunks(_ text: String) -> [Chunk] {
        var result: [Chunk] = []
        var current = ""
        var inDigits = false
        for character in text {
            let isDigit = character.isASCII && character.isNumber
            if !current.isEmpty && isDigit != inDigits {
                result.append(inDigits ? .number(Double(current) ?? 0, current) : .text(current))
                current = ""
            }
            inDigits = isDigit
            current.append(character)
        }
        if !current.isEmpty { result.append(inDigits ? .number(Double(current) ?? 0, current) : .text(current)) }
        return result
    }

    /// A playlist line as a URL (it has a scheme) or a path resolved against the playlist's directory.
    static func location(_ text: String, baseDirectory: String) -> PlaylistLocation {
        let lower = text.lowercased()
        if lower.hasPrefix("file://") {
            var path = String(text.dropFirst("file://".count))
            // file://host/path; a file URL's path is absolute, and with none (`file://`, `file://host`) it is the root.
            if !path.hasPrefix("/") { path = path.firstIndex(of: "/").map { String(path[$0...]) } ?? "/" }
            return .file(PathText.normalize(RequestTarget.percentDecode(path) ?? path))
        }
        if hasScheme(text) { return .url(text) }
        return .file(PathText.resolve(text, against: baseDirectory))
    }

    /// `scheme ":"` with scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), at least two characters (so `C:\` is not one).
    private static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon]
        guard scheme.count >= 2, let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
