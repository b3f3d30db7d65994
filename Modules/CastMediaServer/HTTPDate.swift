/// HTTP dates (RFC 9110 §5.6.7) as seconds since the Unix epoch, without Foundation.
public enum HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The first and last second an IMF-fixdate can express (its year has four digits).
    private static let representable: ClosedRange<Int64> = days(fromCivil: 0, 1, 1) * 86_400...(days(fromCivil: 9999, 12, 31) * 86_400 + 86_399)

    /// Formats seconds since the epoch as an IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`. Times before
    /// the year 0000 or after 9999 are clamped to the first or last second an IMF-fixdate can express.
    public static func format(_ secondsSinceEpoch: Int64) -> String {
        let seconds = min(max(secondsSinceEpoch, representable.lowerBound), representable.upperBound)
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday
        let yearText = String(year)
        return "\(dayNames[weekday]), \(pad(day)) \(monthNames[month - 1]) \(String(repeating: "0", count: 4 - yearText.count) + yearText) "
            + "\(pad(Int(secondOfDay / 3600))):\(pad(Int(secondOfDay / 60 % 60))):\(pad(Int(secondOfDay % 60))) GMT"
    }

    /// Parses an HTTP date in any of the three formats a recipient must accept: IMF-fixdate,
    /// the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
    /// - Returns: seconds since the epoch, or `nil` when the text is not a valid date.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingOWS()
        let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if parts.count == 6, parts[0].hasSuffix(","), dayNames.contains(String(parts[0].dropLast())), parts[5] == "GMT" {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard parts[1].count == 2, parts[3].count == 4, let day = digits(parts[1]),
                  let month = monthNames.firstIndex(of: parts[2]), let year = digits(parts[3]) else { return nil }
            return make(year: year, month: month + 1, day: day, time: parts[4])
        }
        if parts.count == 4, parts[0].hasSuffix(","), longDayNames.contains(String(parts[0].dropLast())), parts[3] == "GMT" {
            // rfc850-date: Sunday, 06-Nov-94 08:49:37 GMT; two-digit years within 50 years of now, taken as 1970-2069.
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard date.count == 3, date[0].count == 2, date[2].count == 2, let day = digits(date[0]),
                  let month = monthNames.firstIndex(of: date[1]), let yy = digits(date[2]) else { return nil }
            return make(year: yy < 70 ? 2000 + yy : 1900 + yy, month: month + 1, day: day, time: parts[2])
        }
        if parts.count == 5, dayNames.contains(parts[0]) {
            // asctime-date: Sun Nov  6 08:49:37 1994
            guard let month = monthNames.firstIndex(of: parts[1]), (1...2).contains(parts[2].count), let day = digits(parts[2]),
                  parts[4].count == 4, let year = digits(parts[4]) else { return nil }
            return make(year: year, month: month + 1, day: day, time: parts[3])
        }
        return nil
    }

    private static func make(year: Int, month: Int, day: Int, time: String) -> Int64? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.count == 2 }),
              let hour = digits(fields[0]), let minute = digits(fields[1]), let second = digits(fields[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        return days(fromCivil: year, month, day) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The value of ASCII digits only (`Int(_:)` also takes a sign).
    private static func digits(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    // Howard Hinnant's days_from_civil / civil_from_days.
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
