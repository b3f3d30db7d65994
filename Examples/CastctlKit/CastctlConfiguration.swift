/// castctl's settings: a default device and aliases, as read from and written to `castctl.conf`.
///
/// The file is INI-like, the format catt users know:
///
/// ```
/// # castctl's settings (castctl config set/alias/unalias rewrite only the lines they change)
/// [options]
/// device = tv
///
/// [aliases]
/// tv = Living Room TV
/// kitchen = 192.168.1.20:8009
/// ```
///
/// `#` or `;` starts a comment line; blank lines are ignored; a value may be written in double
/// quotes (with `\"` and `\\` inside) to keep spaces at its ends. Keys before any section belong
/// to `[options]`. Anything else — an unknown section or key, a key given twice, a line that is
/// not `KEY = VALUE` or `[SECTION]`, an alias name that is not a word, a device that is not
/// `NAME|UUID|HOST[:PORT]` — is an error naming the line. Editing keeps every other line (comments
/// included) as it was.
public struct CastctlConfiguration: Sendable, Hashable {
    /// One line of the file, as read or as an edit made it.
    enum Line: Sendable, Hashable {
        /// A blank line or a comment, kept verbatim.
        case verbatim(String)
        /// `[name]`, with the text as written.
        case section(String, text: String)
        /// `key = value` in a section, with the text as written (`nil` for a line an edit made).
        case entry(section: String, key: String, value: String, text: String?)
    }

    /// The sections and their keys.
    static let options = "options"
    static let aliases = "aliases"
    /// The keys of `[options]`.
    public static let optionKeys = ["device"]

    /// The most bytes a configuration file may have.
    public static let maximumBytes = 256 * 1024
    /// The most aliases.
    public static let maximumAliases = 1_000

    private(set) var lines: [Line]

    /// An empty configuration.
    public init() { lines = [] }

    // MARK: Reading

    /// Parses the text of a configuration file.
    /// - Parameter file: the file's path, for error messages.
    /// - Throws: ``CastctlError`` `.malformedConfiguration` with the file and the line.
    public init(parsing text: String, file: String) throws(CastctlError) {
        func malformed(_ line: Int, _ message: String) -> CastctlError {
            CastctlError(code: .malformedConfiguration, message: message, file: file, line: line)
        }
        guard text.utf8.count <= Self.maximumBytes else {
            throw CastctlError(code: .malformedConfiguration, message: "larger than \(Self.maximumBytes / 1024) KiB", file: file)
        }
        var lines: [Line] = []
        var section = Self.options
        var seen: [String: Int] = [:]  // "section\0lowercased key" → line
        var aliasCount = 0
        // "\r\n" is one Character in Swift: split on both.
        var rawLines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
        if rawLines.last == "" { rawLines.removeLast() }  // the final newline
        for (index, rawLine) in rawLines.enumerated() {
            let number = index + 1
            let raw = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : rawLine
            if let bad = raw.unicodeScalars.first(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                throw malformed(number, "a control character (U+\(String(bad.value, radix: 16, uppercase: true))) in the line")
            }
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") {
                lines.append(.verbatim(raw))
                continue
            }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else { throw malformed(number, "a section header must end with ]: \(trimmed)") }
                let name = trimmed.dropFirst().dropLast().trimmingCharacters(in: .whitespaces).lowercased()
                guard name == Self.options || name == Self.aliases else {
                    throw malformed(number, "unknown section [\(name)] (castctl reads [options] and [aliases])")
                }
                section = name
                lines.append(.section(name, text: raw))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw malformed(number, "expected KEY = VALUE or [SECTION], got “\(trimmed)”")
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            let value: String
            do {
                value = try Self.unquote(trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            } catch {
                throw malformed(number, "\(error.message) (in the value of \(key))")
            }
            guard !key.isEmpty else { throw malformed(number, "a key is missing before =") }
            if section == Self.options {
                guard Self.optionKeys.contains(key.lowercased()) else {
                    throw malformed(number, "unknown key “\(key)” in [options] (castctl reads \(Self.optionKeys.joined(separator: ", ")))")
                }
            } else {
                guard Self.isAliasName(key) else {
                    throw malformed(number, "“\(key)” is not an alias name (a letter, then letters, digits, ., _ or -)")
                }
                aliasCount += 1
                guard aliasCount <= Self.maximumAliases else { throw malformed(number, "more than \(Self.maximumAliases) aliases") }
            }
            let slot = section + "\0" + key.lowercased()
            if let earlier = seen[slot] { throw malformed(number, "\(key) is set twice in [\(section)] (lines \(earlier) and \(number))") }
            seen[slot] = number
            guard !value.isEmpty else { throw malformed(number, "\(key) has no value") }
            do {
                _ = try DeviceReference(parsing: value)
            } catch {
                throw malformed(number, error.message)
            }
            lines.append(.entry(section: section, key: key, value: value, text: raw))
        }
        self.lines = lines
    }

    /// The default device as written (an alias or `NAME|UUID|HOST[:PORT]`), with its line.
    public var device: (value: String, line: Int)? {
        for (index, line) in lines.enumerated() {
            if case .entry(Self.options, let key, let value, _) = line, key.lowercased() == "device" { return (value, index + 1) }
        }
        return nil
    }

    /// The aliases, in file order: name → device.
    public var aliases: [(name: String, device: String)] {
        lines.compactMap { line in
            if case .entry(Self.aliases, let key, let value, _) = line { return (key, value) }
            return nil
        }
    }

    /// The device an alias stands for (alias names are matched without regard to case).
    public func alias(_ name: String) -> String? {
        aliases.first { $0.name.lowercased() == name.lowercased() }?.device
    }

    /// Whether `name` may name an alias: an ASCII letter, then letters, digits, `.`, `_` or `-` (at most 64).
    public static func isAliasName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64,
            first.isASCII, first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    // MARK: Editing

    /// Sets `[section] key = value`: the line that sets it is replaced, else a line is added after
    /// the section's last line (the section is made when missing).
    mutating func set(_ key: String, to value: String, in section: String) {
        let entry = Line.entry(section: section, key: key, value: value, text: nil)
        if let index = index(of: key, in: section) {
            lines[index] = entry
            return
        }
        // After the section's last entry, else right after its (last) header.
        var anchor: Int?
        for (index, line) in lines.enumerated() {
            switch line {
            case .section(section, _): anchor = index
            case .entry(section, _, _, _): anchor = index
            default: break
            }
        }
        if let anchor {
            lines.insert(entry, at: anchor + 1)
            return
        }
        let firstSection = lines.firstIndex { if case .section = $0 { return true } else { return false } }
        if section == Self.options, let firstSection {
            // Keys before the first header are options: put it there, under a header of its own.
            lines.insert(contentsOf: [.section(section, text: "[\(section)]"), entry, .verbatim("")], at: firstSection)
            return
        }
        if section == Self.options {
            lines.append(entry)
            return
        }
        if let last = lines.last, last != .verbatim("") { lines.append(.verbatim("")) }
        lines.append(.section(section, text: "[\(section)]"))
        lines.append(entry)
    }

    /// Removes `[section] key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: String, in section: String) -> Bool {
        guard let index = index(of: key, in: section) else { return false }
        lines.remove(at: index)
        return true
    }

    private func index(of key: String, in section: String) -> Int? {
        lines.firstIndex { line in
            if case .entry(section, let lineKey, _, _) = line { return lineKey.lowercased() == key.lowercased() }
            return false
        }
    }

    /// Sets the default device.
    /// - Throws: ``CastctlError`` `.invalidDevice` when `value` is neither an alias nor a device.
    public mutating func setDevice(_ value: String) throws(CastctlError) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if alias(trimmed) == nil { _ = try DeviceReference(parsing: trimmed) }
        set("device", to: trimmed, in: Self.options)
    }

    /// Removes the default device; returns whether there was one.
    @discardableResult
    public mutating func removeDevice() -> Bool { remove("device", in: Self.options) }

    /// Sets an alias.
    /// - Throws: ``CastctlError`` `.invalidDevice` for a name that is not a word or a device that is not `NAME|UUID|HOST[:PORT]`.
    public mutating func setAlias(_ name: String, to device: String) throws(CastctlError) {
        guard Self.isAliasName(name) else {
            throw CastctlError(code: .invalidDevice, message: "“\(name)” is not an alias name (a letter, then letters, digits, ., _ or -)")
        }
        let trimmed = device.trimmingCharacters(in: .whitespaces)
        _ = try DeviceReference(parsing: trimmed)
        if alias(name) == nil, aliases.count >= Self.maximumAliases {
            throw CastctlError(code: .invalidDevice, message: "there are already \(Self.maximumAliases) aliases")
        }
        if let existing = aliases.first(where: { $0.name.lowercased() == name.lowercased() }) {
            remove(existing.name, in: Self.aliases)
        }
        set(name, to: trimmed, in: Self.aliases)
    }

    /// Removes an alias; returns whether it was there.
    @discardableResult
    public mutating func removeAlias(_ name: String) -> Bool { remove(name, in: Self.aliases) }

    // MARK: Writing

    /// The file's text: untouched lines as read, edited ones in the canonical form `key = value`.
    public var text: String {
        var out = ""
        for line in lines {
            switch line {
            case .verbatim(let text), .section(_, let text): out += text
            case .entry(_, _, _, let text?): out += text
            case .entry(_, let key, let value, nil): out += "\(key) = \(Self.quoteIfNeeded(value))"
            }
            out += "\n"
        }
        return out
    }

    static func quoteIfNeeded(_ value: String) -> String {
        let needsQuotes = value.first == "\"" || value != value.trimmingCharacters(in: .whitespaces)
        guard needsQuotes else { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func unquote(_ value: String) throws(CastctlError) -> String {
        guard value.hasPrefix("\"") else { return value }
        var result = ""
        var escaped = false
        var closed = false
        for character in value.dropFirst() {
            if closed { throw CastctlError(code: .malformedConfiguration, message: "text after the closing quote") }
            if escaped {
                guard character == "\"" || character == "\\" else {
                    throw CastctlError(code: .malformedConfiguration, message: "unknown escape \\\(character) (only \\\" and \\\\)")
                }
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            } else {
                result.append(character)
            }
        }
        guard closed else { throw CastctlError(code: .malformedConfiguration, message: "a quote is not closed") }
        return result
    }
}
