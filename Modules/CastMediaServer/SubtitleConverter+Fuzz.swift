extension CastMediaServerFuzzing {
    /// Converts arbitrary bytes from SRT to WebVTT, trapping when the output breaks WebVTT's rules or the
    /// conversion's own: `WEBVTT` first; each cue a `HH:MM:SS.mmm --> HH:MM:SS.mmm` line (start not after end)
    /// followed by non-empty text lines without `-->`, `<` other than the kept `<i>`, `<b>`, `<u>` tags, or a bare
    /// `&`; as many cues as counted; and converting the output again gives the same output.
    public static func checkSubtitles(_ bytes: [UInt8]) {
        guard let conversion = try? SubtitleConverter.webVTT(fromSRT: bytes) else { return }
        let output = conversion.webVTT
        guard output.hasPrefix("WEBVTT\n"), output.hasSuffix("\n") else { fatalError("not a WebVTT document: \(output.debugDescription)") }
        let lines = output.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var cues = 0
        var index = 1
        while index < lines.count {
            guard lines[index].isEmpty, index + 2 < lines.count else { fatalError("cue \(cues + 1) does not start after a blank line: \(output.debugDescription)") }
            let timing = lines[index + 1]
            guard let (start, end) = webVTTTiming(timing), start <= end else { fatalError("bad timing line \(timing.debugDescription)") }
            index += 2
            var textLines = 0
            while index < lines.count, !lines[index].isEmpty {
                let text = lines[index]
                guard !text.contains("-->"), !text.allSatisfy(\.isWhitespace) else { fatalError("bad cue text \(text.debugDescription)") }
                // Scalar by scalar: a combining mark after `>` or `;` makes one Character of the two.
                var rest = Substring(text).unicodeScalars
                while let angle = rest.firstIndex(of: "<") {
                    let tail = rest[angle...]
                    guard let tag = ["<i>", "</i>", "<b>", "</b>", "<u>", "</u>"].first(where: { tail.starts(with: $0.unicodeScalars) }) else {
                        fatalError("a raw '<' in cue text \(text.debugDescription)")
                    }
                    rest = tail.dropFirst(tag.unicodeScalars.count)
                }
                rest = Substring(text).unicodeScalars
                while let ampersand = rest.firstIndex(of: "&") {
                    let tail = rest[ampersand...]
                    guard let entity = ["&amp;", "&lt;", "&gt;", "&nbsp;", "&lrm;", "&rlm;"].first(where: { tail.starts(with: $0.unicodeScalars) }) else {
                        fatalError("a bare '&' in cue text \(text.debugDescription)")
                    }
                    rest = tail.dropFirst(entity.unicodeScalars.count)
                }
                textLines += 1
                index += 1
            }
            guard textLines > 0 else { fatalError("a cue without text: \(output.debugDescription)") }
            cues += 1
        }
        guard cues == conversion.cueCount else { fatalError("\(cues) cues written, \(conversion.cueCount) counted") }
        guard let again = try? SubtitleConverter.webVTT(fromSRT: output), again.webVTT == output else {
            fatalError("converting the output again changes it: \(output.debugDescription)")
        }
    }

    /// `HH:MM:SS.mmm --> HH:MM:SS.mmm` (hours two digits or more) in milliseconds.
    private static func webVTTTiming(_ line: String) -> (Int, Int)? {
        let parts = line.split(separator: " --> ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let start = webVTTTimestamp(parts[0]), let end = webVTTTimestamp(parts[1]) else { return nil }
        return (start, end)
    }

    private static func webVTTTimestamp(_ text: String) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count >= 2, fields[1].count == 2, fields[2].count == 6,
            let hours = Int(fields[0]), let minutes = Int(fields[1]), minutes < 60
        else { return nil }
        let secondsField = fields[2].split(separator: ".", omittingEmptySubsequences: false)
        guard secondsField.count == 2, secondsField[0].count == 2, secondsField[1].count == 3,
            let seconds = Int(secondsField[0]), seconds < 60, let millis = Int(secondsField[1]),
            fields.allSatisfy({ $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } })
        else { return nil }
        let (total, overflow) = hours.multipliedReportingOverflow(by: 3_600_000)
        guard !overflow else { return nil }
        return total + (minutes * 60 + seconds) * 1000 + millis
    }
}
