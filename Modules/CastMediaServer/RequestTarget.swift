/// Parsing of request targets into a registration token and file name, refusing anything suspicious.
enum RequestTarget {
    /// The result of routing a request target.
    enum Route: Equatable {
        /// `OPTIONS *`.
        case asterisk
        /// `/<token>/<name>` with a well-formed token and a safe, decoded name.
        case resource(token: String, name: String)
        /// Anything else: answered with 404.
        case notFound
    }

    /// Routes a request target (origin-form, absolute-form or `*`).
    ///
    /// Only `/<token>/<name>` passes: the token is ``RegistrationToken/textLength`` lower-case hex digits, the name
    /// percent-decodes to a single path segment (no `/`, `\`, NUL, `.` or `..`), and there is nothing after it.
    /// The query is ignored. Invalid percent escapes, extra or missing segments, and traversal attempts
    /// (`..`, `%2e%2e`, `%2f`) give ``Route/notFound``.
    static func route(_ target: String) -> Route {
        if target == "*" { return .asterisk }
        var path = Substring(target)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        if let fragment = path.firstIndex(of: "#") { path = path[..<fragment] }
        let lower = path.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let afterScheme = path[path.index(path.firstIndex(of: ":")!, offsetBy: 3)...]
            guard let slash = afterScheme.firstIndex(of: "/") else { return .notFound }
            path = afterScheme[slash...]
        }
        guard path.hasPrefix("/") else { return .notFound }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 2 else { return .notFound }
        let token = String(segments[0])
        guard RegistrationToken.isWellFormed(token), let name = percentDecode(String(segments[1])),
              isSafeName(name) else { return .notFound }
        return .resource(token: token, name: name)
    }

    /// A single, harmless path segment.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".."
            && !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Decodes `%XX` escapes; `nil` for a malformed escape or bytes that are not UTF-8.
    static func percentDecode(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Escapes everything but unreserved characters (RFC 3986 §2.3), so the name is one safe path segment.
    static func percentEncode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let unreserved = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if unreserved {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The random part of a registration's URL.
enum RegistrationToken {
    /// 128 bits as 32 lower-case hex digits.
    static let textLength = 32

    /// A fresh token from the system's cryptographically secure generator.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next() as UInt64, generator.next() as UInt64]
        return words.map { word in
            let text = String(word, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }

    /// Exactly ``textLength`` lower-case hex digits.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == textLength
            && token.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
