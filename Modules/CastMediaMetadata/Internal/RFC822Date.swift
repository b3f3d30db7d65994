package import Foundation

/// RFC 822 / RFC 2822 dates as found in RSS `pubDate`, parsed without locale-dependent formatters.
package enum RFC822Date {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let zones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0,
        "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
    ]

    /// `[Day, ] DD Mon YYYY HH:MM[:SS] Zone` with a 2- or 4-digit year and a named or ±HHMM zone.
    package static func parse(_ text: String) -> Date? {
        var tokens = text.replacingOccurrences(of: ",", with: " ").split(whereSeparator: \.isWhitespace).map(String.init)
        if let first = tokens.first, Int(first) == nil { tokens.removeFirst() }  // day name
        guard tokens.count >= 4, let day = Int(tokens[0]), (1...31).contains(day),
            let month = months.firstIndex(of: String(tokens[1].lowercased().prefix(3))),
            var year = Int(tokens[2])
        else { return nil }
        if tokens[2].count == 2 { year += year < 50 ? 2000 : 1900 }
        let time = tokens[3].split(separator: ":").map { Int($0) }
        guard (2...3).contains(time.count), time.allSatisfy({ $0 != nil }) else { return nil }
        let hour = time[0]!, minute = time[1]!, second = time.count == 3 ? time[2]! : 0
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var offsetSeconds = 0
        if tokens.count >= 5 {
            let zone = tokens[4]
            if let sign = zone.first, sign == "+" || sign == "-", zone.count == 5, let digits = Int(zone.dropFirst()) {
                offsetSeconds = (digits / 100 * 3600 + digits % 100 * 60) * (sign == "-" ? -1 : 1)
            } else if let hours = zones[zone.lowercased()] {
                offsetSeconds = hours * 3600
            } else if zone.count == 1, zone.first!.isLetter {
                offsetSeconds = 0  // military zones are unreliable in practice (RFC 2822 §4.3): treat as UTC
            } else {
                return nil
            }
        }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(TimeInterval(-offsetSeconds))
    }
}
