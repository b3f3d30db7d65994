/// The result of converting SRT subtitles to WebVTT.
public struct SubtitleConversion: Sendable, Hashable {
    /// The WebVTT document, starting with `WEBVTT` and ending with a line break.
    public var webVTT: String
    /// The number of cues written.
    public var cueCount: Int
    /// The number of blocks skipped because they were not valid cues (no or bad timing line, end before start, no text).
    public var skippedCount: Int
}

/// Converts SubRip (`.srt`) subtitles to WebVTT, which is the only text format Cast receivers display.
public enum SubtitleConverter {
    /// Converts SRT bytes: UTF-8 (with or without BOM), else Windows-1252.
    /// - Throws: ``MediaServerError`` with code ``MediaServerError/Code/invalidSubtitles`` when no cue is usable.
    public static func webVTT(fromSRT bytes: [UInt8]) throws(MediaServerError) -> SubtitleConversion {
        try webVTT(fromSRT: TextDecoding.decode(bytes))
    }

    /// Converts SRT text.
    ///
    /// Handles a BOM, CRLF/CR/LF line ends, cue numbers (dropped), comma or dot decimal separators, one- or
    /// two-digit hours, SRT position suffixes (dropped), cues not separated by blank lines, `<i>`, `<b>`, `<u>`
    /// (kept, lower-cased), `<font ...>` and other tags and `{\an8}`-style override blocks (removed), and escapes
    /// `&`, `<` and `-->` in the text as WebVTT requires. Blocks that are not valid cues are skipped and counted.
    /// - Throws: ``MediaServerError`` with code ``MediaServerError/Code/invalidSubtitles`` when no cue is usable.
    public static func webVTT(fromSRT text: String) throws(MediaServerError) -> SubtitleConversion {
        let lines = TextDecoding.lines(text)
        var output = "WEBVTT\n"
        var cues = 0
        var skipped = 0
        var index = 0
        var strayBlock = false  // inside a run of lines that belong to no cue
        while index < lines.count {
            let line = lines[index]
            if line.allSatisfy(\.isWhitespace) {
                if strayBlock { skipped += 1; strayBlock = false }
                index += 1
                continue
            }
            // A cue starts with a timing line, optionally preceded by its number.
            var timingIndex: Int?
            if parseTiming(line) != nil || looksLikeTiming(line) {
                timingIndex = index
            } else if isCueNumber(line), index + 1 < lines.count,
                      parseTiming(lines[index + 1]) != nil || looksLikeTiming(lines[index + 1]) {
                timingIndex = index + 1
            }
            guard let timingIndex else {
                strayBlock = true
                index += 1
                continue
            }
            if strayBlock { skipped += 1; strayBlock = false }
            var textLines: [String] = []
            var next = timingIndex + 1
            while next < lines.count, !lines[next].allSatisfy(\.isWhitespace) {
                // A timing line (or a number followed by one) without a blank line before it starts the next cue.
                if parseTiming(lines[next]) != nil { break }
                if isCueNumber(lines[next]), next + 1 < lines.count, parseTiming(lines[next + 1]) != nil { break }
                textLines.append(lines[next])
                next += 1
            }
            index = next
            guard let (start, end) = parseTiming(lines[timingIndex]), end >= start else {
                skipped += 1
                continue
            }
            let payload = textLines.map(convertText).filter { !$0.isEmpty }
            guard !payload.isEmpty else {
                skipped += 1
                continue
            }
            output += "\n\(timestamp(start)) --> \(timestamp(end))\n" + payload.joined(separator: "\n") + "\n"
            cues += 1
        }
        if strayBlock { skipped += 1 }
        guard cues > 0 else {
            throw MediaServerError(
                code: .invalidSubtitles,
                message: "No valid SRT cue found (\(skipped) malformed block\(skipped == 1 ? "" : "s") skipped)")
        }
        return SubtitleConversion(webVTT: output, cueCount: cues, skippedCount: skipped)
    }

    /// Milliseconds as `HH:MM:SS.mmm`.
    static func timestamp(_ milliseconds: Int) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let seconds = milliseconds / 1000 % 60
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(milliseconds % 1000, 3))"
    }

    static func isCueNumber(_ line: String) -> Bool {
        let trimmed = line.trimmedWhitespace()
        return !trimmed.isEmpty && trimmed.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
    }

    /// A line with an arrow is meant as a timing line even when it is broken; it must not be taken as text.
    private static func looksLikeTiming(_ line: String) -> Bool { line.contains("-->") }

    /// `start --> end [position]` in milliseconds, or `nil` when malformed.
    static func parseTiming(_ line: String) -> (Int, Int)? {
        let parts = line.trimmedWhitespace().split(separator: "-->", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return nil }
        let endField = parts[1].trimmedWhitespace().split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        guard let start = parseTime(parts[0].trimmedWhitespace()), let end = parseTime(endField) else { return nil }
        return (start, end)
    }

    /// `H:MM:SS,mmm` (also `.` and one to three fraction digits, hours of any width, or `MM:SS,mmm`).
    static func parseTime(_ text: String) -> Int? {
        let unified = text.replacing(",", with: ".")
        let halves = unified.split(separator: ".", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        let clock = halves[0].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3,
              clock.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }) else { return nil }
        let numbers = clock.compactMap { Int($0) }
        guard numbers.count == clock.count else { return nil }
        let (hours, minutes, seconds) = numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : (0, numbers[0], numbers[1])
        guard minutes < 60, seconds < 60, clock.count == 2 || clock[1].count == 2, clock.last!.count == 2 else { return nil }
        var millis = 0
        if halves.count == 2 {
            let fraction = halves[1]
            guard (1...3).contains(fraction.count), fraction.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }),
                  let value = Int(fraction) else { return nil }
            millis = value * [100, 10, 1][fraction.count - 1]
        }
        // Hours that do not fit in milliseconds (about 2.5 million centuries) make the time malformed.
        let (hourMillis, overflowed) = hours.multipliedReportingOverflow(by: 3_600_000)
        let (total, overflowedAgain) = hourMillis.addingReportingOverflow((minutes * 60 + seconds) * 1000 + millis)
        return overflowedAgain || overflowed ? nil : total
    }

    private static let keptTags: Set<String> = ["i", "b", "u"]
    private static let knownEntities = ["&amp;", "&lt;", "&gt;", "&nbsp;", "&lrm;", "&rlm;"]

    /// Converts one line of SRT text to WebVTT cue text.
    ///
    /// Converting the result again gives the same result (the media server may be handed its own output):
    /// override blocks are removed from what is written, not only from what is read, so a block that only
    /// forms once a tag or another block between its pieces is gone (`{<font>\an8}`, `{{\}\}`) goes too;
    /// and entities are matched scalar by scalar, so a combining mark after `&lt;` cannot hide it.
    static func convertText(_ line: String) -> String {
        let scalars = Array(line.unicodeScalars)
        var out = TextWithoutOverrideBlocks()
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "<", let close = scalars[i...].firstIndex(of: ">"), let tag = tagName(scalars[(i + 1)..<close]) {
                if keptTags.contains(tag.name) { out.append(tag.closing ? "</\(tag.name)>" : "<\(tag.name)>") }
                i = close + 1
                continue
            }
            switch c {
            case "<": out.append("&lt;")
            case ">": out.append("&gt;")
            case "&":
                if let entity = knownEntities.first(where: { scalars[i...].starts(with: $0.unicodeScalars) }) {
                    out.append(entity)
                    i += entity.unicodeScalars.count
                    continue
                }
                out.append("&amp;")
            default: out.append(c)
            }
            i += 1
        }
        return out.text.trimmedWhitespace()
    }

    /// Text written scalar by scalar with ASS override blocks (`{\an8}`, `{\i1}`: a `{` directly followed
    /// by a backslash, up to the first `}` after it) left out, wherever they form in what is written.
    ///
    /// What is kept never holds a `{\` with a `}` after it: when a `}` is written while a `{\` is open,
    /// everything from the first open `{\` goes, exactly what reading the text again would remove.
    private struct TextWithoutOverrideBlocks {
        var scalars = String.UnicodeScalarView()
        /// Where the first `{\` without a `}` after it starts.
        var openBlock: String.UnicodeScalarView.Index?
        /// The `{` just written, if the last scalar is one.
        var lastBrace: String.UnicodeScalarView.Index?

        mutating func append(_ scalar: Unicode.Scalar) {
            if scalar == "}", let open = openBlock {
                scalars.removeSubrange(open...)
                openBlock = nil
                // What is left may end with a `{` that the next backslash opens a block with.
                lastBrace = scalars.last == "{" ? scalars.index(before: scalars.endIndex) : nil
                return
            }
            scalars.append(scalar)
            if scalar == "\\", openBlock == nil, let brace = lastBrace { openBlock = brace }
            lastBrace = scalar == "{" ? scalars.index(before: scalars.endIndex) : nil
        }

        mutating func append(_ text: String) {
            for scalar in text.unicodeScalars { append(scalar) }
        }

        var text: String { String(scalars) }
    }

    /// `i`, `/i`, `font color="red"` → (name, closing); `nil` when the text is not tag-like.
    private static func tagName(_ inner: ArraySlice<Unicode.Scalar>) -> (name: String, closing: Bool)? {
        var body = inner
        let closing = body.first == "/"
        if closing { body = body.dropFirst() }
        let name = body.prefix { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        guard !name.isEmpty else { return nil }
        let rest = body.dropFirst(name.count)
        guard rest.isEmpty || rest.first == " " || (rest.count == 1 && rest.first == "/") else { return nil }
        return (String(String.UnicodeScalarView(name)).lowercased(), closing)
    }
}

extension String {
    /// The string without leading and trailing whitespace.
    func trimmedWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
