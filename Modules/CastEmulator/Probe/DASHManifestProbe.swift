/// DASH manifests: `type="dynamic"` is live; otherwise `mediaPresentationDuration`, else the sum of
/// the periods' `duration`s (ISO 8601 durations such as `PT1H2M3.5S`).
enum DASHManifestProbe {
    /// The most start tags looked at.
    static let maximumTags = 100_000

    static func looksLikeManifest(_ prefix: [UInt8]) -> Bool {
        let head = String(decoding: prefix.prefix(1024), as: UTF8.self)
        return head.contains("<MPD") || head.contains(":MPD")
    }

    static func probe(_ text: String) -> MediaProbeResult {
        var presentation: [String: String]?
        var periods: [Double] = []
        var scanner = StartTagScanner(text: text)
        var tags = 0
        while tags < maximumTags, let (name, attributes) = scanner.next() {
            tags += 1
            let local = name.split(separator: ":").last.map(String.init) ?? name
            if local == "MPD", presentation == nil {
                presentation = attributes
            } else if local == "Period", let duration = attributes["duration"].flatMap(isoSeconds) {
                periods.append(duration)
            }
        }
        guard let presentation else { return .unknown }
        if presentation["type"] == "dynamic" { return .found(.live) }
        if let whole = presentation["mediaPresentationDuration"].flatMap(isoSeconds) {
            return plausibleSeconds(whole).map(MediaProbeResult.found) ?? .unknown
        }
        guard !periods.isEmpty else { return .unknown }
        return plausibleSeconds(periods.reduce(0, +)).map(MediaProbeResult.found) ?? .unknown
    }

    /// Seconds of an ISO 8601 duration (`PnDTnHnMnS`; years count 365 days, months 30).
    static func isoSeconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var sawComponent = false
        for character in rest {
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            } else if character.isNumber || character == "." {
                number.append(character)
                guard number.count <= 32 else { return nil }
            } else {
                guard let value = Double(number) else { return nil }
                number = ""
                sawComponent = true
                switch (inTime, character) {
                case (false, "Y"): total += value * 365 * 86_400
                case (false, "M"): total += value * 30 * 86_400
                case (false, "W"): total += value * 7 * 86_400
                case (false, "D"): total += value * 86_400
                case (true, "H"): total += value * 3600
                case (true, "M"): total += value * 60
                case (true, "S"): total += value
                default: return nil
                }
            }
        }
        guard number.isEmpty, sawComponent, total.isFinite else { return nil }
        return total
    }
}

/// Walks the start tags of an XML text and their attributes, without building a tree
/// (comments, processing instructions and end tags are skipped).
struct StartTagScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(text: String) { scalars = Array(text.unicodeScalars) }

    mutating func next() -> (String, [String: String])? {
        while index < scalars.count {
            guard scalars[index] == "<" else {
                index += 1
                continue
            }
            index += 1
            guard index < scalars.count else { return nil }
            let first = scalars[index]
            if first == "/" || first == "?" || first == "!" {
                while index < scalars.count, scalars[index] != ">" { index += 1 }
                continue
            }
            let name = word()
            guard !name.isEmpty else { continue }
            var attributes: [String: String] = [:]
            while index < scalars.count {
                skipSpaces()
                guard index < scalars.count else { break }
                if scalars[index] == ">" || scalars[index] == "/" {
                    while index < scalars.count, scalars[index] != ">" { index += 1 }
                    break
                }
                let key = word()
                guard !key.isEmpty else {
                    index += 1
                    continue
                }
                skipSpaces()
                guard index < scalars.count, scalars[index] == "=" else { continue }
                index += 1
                skipSpaces()
                guard index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" else { continue }
                let quote = scalars[index]
                index += 1
                var value = String.UnicodeScalarView()
                while index < scalars.count, scalars[index] != quote {
                    value.append(scalars[index])
                    index += 1
                }
                index += 1
                attributes[key] = String(value)
            }
            return (name, attributes)
        }
        return nil
    }

    private mutating func word() -> String {
        var view = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == ":" || scalar == "_" || scalar == "-" || scalar == "."
            else { break }
            view.append(scalar)
            index += 1
        }
        return String(view)
    }

    private mutating func skipSpaces() {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
    }
}
