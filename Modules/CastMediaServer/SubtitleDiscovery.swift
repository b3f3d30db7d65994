/// A subtitle file format the server understands.
public struct SubtitleFormat: Sendable, Hashable, CustomStringConvertible {
    private enum Base: Sendable, Hashable { case srt, webVTT }
    private let base: Base
    /// SubRip (`.srt`): converted to WebVTT before serving.
    public static let srt = SubtitleFormat(base: .srt)
    /// WebVTT (`.vtt`): served as is.
    public static let webVTT = SubtitleFormat(base: .webVTT)
    /// `srt` or `vtt`.
    public var description: String { base == .srt ? "srt" : "vtt" }

    /// The format of a file name's extension, case-insensitive.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".srt") { self = .srt } else if lower.hasSuffix(".vtt") { self = .webVTT } else { return nil }
    }

    private init(base: Base) { self.base = base }
}

/// A subtitle file found next to a video.
public struct SubtitleFile: Sendable, Hashable {
    /// The subtitle file's path.
    public var path: String
    /// The language from the name (`movie.en.srt` → `en`, `movie.pt_BR.vtt` → `pt-BR`), or `nil`.
    public var language: String?
    /// The text between the video's base name and the extension when it is not a language (`movie.forced.srt` → `forced`).
    public var label: String?
    /// SRT or WebVTT.
    public var format: SubtitleFormat

    /// Creates a description of a subtitle file.
    public init(path: String, language: String?, label: String? = nil, format: SubtitleFormat) {
        self.path = path
        self.language = language
        self.label = label
        self.format = format
    }
}

/// Finds subtitle files that belong to a video: same base name, `.srt` or `.vtt`, optionally a language or label between.
public enum SubtitleDiscovery {
    /// Lists the video's directory and returns its subtitle files (see ``matches(videoFileName:candidates:directory:)``).
    /// - Throws: ``MediaServerError`` when the directory cannot be listed.
    public static func subtitles(forVideoAt videoPath: String) throws(MediaServerError) -> [SubtitleFile] {
        let directory = PathText.directory(of: videoPath)
        let names = try FileSystem.directoryEntries(directory)
        return matches(videoFileName: PathText.lastComponent(videoPath), candidates: names, directory: directory)
    }

    /// Picks the subtitle files for a video among file names (pure).
    ///
    /// For `movie.mkv` it accepts `movie.srt`, `movie.vtt`, `movie.en.srt`, `movie.pt-BR.vtt`, `movie.pt_BR.srt`
    /// `movie.forced.srt` (a label, no language) and `movie.en.forced.srt` (language and label); not `movie2.srt` or `movie.en.txt`. Results: the file with no
    /// language first, then by language, then by name.
    public static func matches(videoFileName: String, candidates: [String], directory: String) -> [SubtitleFile] {
        let base = baseName(videoFileName)
        var found: [SubtitleFile] = []
        for name in candidates where name != videoFileName {
            guard let format = SubtitleFormat(fileName: name), name.hasPrefix(base) else { continue }
            let stem = String(name.dropLast(4))  // without ".srt"/".vtt"
            var language: String?
            var label: String?
            if stem == base {
                // movie.srt
            } else if stem.hasPrefix(base + ".") {
                let middle = String(stem.dropFirst(base.count + 1))
                guard !middle.isEmpty, !middle.contains("/") else { continue }
                // "en", "pt-BR", or "en.forced" / "forced.en": one language component, the rest is a label.
                let pieces = middle.split(separator: ".").map(String.init)
                if let position = pieces.firstIndex(where: { languageTag($0) != nil }) {
                    language = languageTag(pieces[position])
                    let rest = pieces.enumerated().filter { $0.offset != position }.map(\.element)
                    label = rest.isEmpty ? nil : rest.joined(separator: ".")
                } else {
                    label = middle
                }
            } else {
                continue
            }
            let path = directory == "." ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
            found.append(SubtitleFile(path: path, language: language, label: label, format: format))
        }
        return found.sorted { a, b in
            let aKey = (a.language == nil && a.label == nil ? 0 : 1, a.language ?? "~", a.label ?? "", a.path)
            let bKey = (b.language == nil && b.label == nil ? 0 : 1, b.language ?? "~", b.label ?? "", b.path)
            return aKey < bKey
        }
    }

    /// The name without its last extension (`movie.en.mkv` → `movie.en`).
    static func baseName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fileName }
        return String(fileName[..<dot])
    }

    /// A BCP 47-like tag: a 2–3 letter primary language, then subtags of 2–8 letters or digits, `-` or `_` separated.
    /// Returns it with `-` separators, the primary subtag lower-cased and a 2-letter region upper-cased; `nil` otherwise.
    static func languageTag(_ text: String) -> String? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let primary = parts.first, (2...3).contains(primary.count),
              primary.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) else { return nil }
        var result = [primary.lowercased()]
        for subtag in parts.dropFirst() {
            guard (2...8).contains(subtag.count),
                  subtag.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
            else { return nil }
            result.append(subtag.count == 2 ? subtag.uppercased() : String(subtag))
        }
        return result.joined(separator: "-")
    }
}
