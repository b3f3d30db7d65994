import CastJSON

/// How a Cast receiver reads loosely typed JSON: the Web Receiver's JavaScript coerces what real
/// senders send, so the emulator accepts the same spellings (and echoes the canonical value).
///
/// - booleans: `true`/`false`, the strings `"true"`/`"false"` (any case), the numbers 0 and 1
///   (`autoplay` is read as JavaScript reads it: see ``autoplay(_:)``);
/// - numbers: JSON numbers and strings holding a finite decimal number (`"5"`, `" 2.5 "`);
/// - integers: those numbers when they are whole;
/// - `null` for any optional member means "absent".
///
/// `Docs/TestingWithoutHardware.md` lists which sender needs which leniency.
enum Lenient {
    static func bool(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let bool): return bool
        case .number(0): return false
        case .number(1): return true
        case .string(let text):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true": return true
            case "false": return false
            default: return nil
            }
        default: return nil
        }
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): return number.isFinite ? number : nil
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.count <= 64, let number = Double(trimmed), number.isFinite,
                trimmed.allSatisfy({ $0.isNumber || "+-.eE".contains($0) })
            else { return nil }
            return number
        default: return nil
        }
    }

    /// Integers: whole numbers below 2^63 in magnitude (a `Double` is exact only up to 2^53: larger ones
    /// come back as the nearest one a `Double` holds, as a JavaScript receiver reads them), and strings
    /// of decimal digits, exact over `Int`'s range.
    static func int(_ value: JSONValue) -> Int? {
        if case .string(let text) = value, let exact = Int(text.trimmingCharacters(in: .whitespaces)) { return exact }
        guard let number = number(value), number.rounded() == number, abs(number) < 9.2e18 else { return nil }
        return Int(number)
    }

    /// `autoplay` as the Web Receiver tests it (JavaScript truthiness): only `false`, 0 and the empty
    /// string stop autoplay; any other string, including `"false"`, autoplays. VLC 3.0 sends
    /// `"autoplay":"false"` and then waits for PLAYING without ever sending PLAY: it relies on this.
    static func autoplay(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let bool): return bool
        case .number(let number): return number != 0 && !number.isNaN
        case .string(let text): return !text.isEmpty
        case .null: return nil
        case .array, .object: return true
        }
    }

    /// Whether `value` stands for an absent member.
    static func isAbsent(_ value: JSONValue?) -> Bool { value == nil || value == .null }
}
