/// A DNS-SD TXT record: an ordered list of `key=value` entries (RFC 6763 §6).
///
/// Parsing is strict and bounded: every entry at most 255 bytes, the record at most
/// ``maxRecordSize`` bytes, keys non-empty printable ASCII without `=`, no key twice
/// (compared case-insensitively). Values are bytes; ``subscript(_:)`` decodes them as UTF-8.
public struct CastTXTRecord: Sendable, Hashable, CustomStringConvertible {
    /// One `key=value` entry. `value` is `nil` for a key without `=` (a Boolean attribute).
    public struct Entry: Sendable, Hashable {
        /// The key as advertised.
        public var key: String
        /// The raw value bytes, or `nil` when the entry has no `=`.
        public var value: [UInt8]?
        /// Creates an entry.
        public init(key: String, value: [UInt8]?) {
            self.key = key
            self.value = value
        }
    }

    /// The largest entry DNS can carry (one length byte).
    public static let maxEntrySize = 255
    /// The largest record accepted, in wire-format bytes (RFC 6763 §6.2 allows up to 64 KB but
    /// recommends staying under 1300; Cast devices send about 200).
    public static let maxRecordSize = 8_192

    /// The entries in advertised order.
    public private(set) var entries: [Entry]

    /// Builds a record from keys and UTF-8 values, for publishing.
    ///
    /// - Throws: ``CastDiscoveryError`` when a key is invalid or repeated, or an entry is too long.
    public init(_ pairs: [(key: String, value: String)]) throws(CastDiscoveryError) {
        try self.init(rawEntries: pairs.map { Array("\($0.key)=\($0.value)".utf8) })
    }

    /// The key order real Cast devices advertise.
    public static let castKeyOrder = ["id", "cd", "rm", "ve", "md", "ic", "fn", "ca", "st", "bs", "nf", "rs"]

    /// Builds a record from a dictionary: the Cast keys in ``castKeyOrder``, then the others sorted.
    ///
    /// - Throws: ``CastDiscoveryError`` when a key is invalid or an entry is too long.
    public init(_ values: [String: String]) throws(CastDiscoveryError) {
        let known = Self.castKeyOrder.compactMap { key in values[key].map { (key: key, value: $0) } }
        let others = values.filter { !Self.castKeyOrder.contains($0.key) }.sorted { $0.key < $1.key }
            .map { (key: $0.key, value: $0.value) }
        try self.init(known + others)
    }

    /// Parses raw entries (`key=value` byte strings), as Avahi's string list delivers them.
    ///
    /// - Throws: ``CastDiscoveryError`` with ``CastDiscoveryError/Code/valueTooLong``,
    ///   ``CastDiscoveryError/Code/recordTooLarge``, ``CastDiscoveryError/Code/duplicateKey``,
    ///   ``CastDiscoveryError/Code/invalidUTF8`` or ``CastDiscoveryError/Code/malformedTXT``.
    public init(rawEntries: [[UInt8]]) throws(CastDiscoveryError) {
        var total = 0
        var seen = Set<String>()
        var parsed: [Entry] = []
        for raw in rawEntries {
            if raw.isEmpty { continue }  // RFC 6763 §6.1: an empty string is an empty record
            guard raw.count <= Self.maxEntrySize else {
                throw CastDiscoveryError(code: .valueTooLong,
                    message: "TXT entry of \(raw.count) bytes exceeds \(Self.maxEntrySize) bytes")
            }
            total += raw.count + 1
            guard total <= Self.maxRecordSize else {
                throw CastDiscoveryError(code: .recordTooLarge,
                    message: "TXT record exceeds \(Self.maxRecordSize) bytes")
            }
            let equals = raw.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = raw[..<(equals ?? raw.endIndex)]
            guard !keyBytes.isEmpty else {
                throw CastDiscoveryError(code: .malformedTXT, message: "TXT entry has an empty key")
            }
            guard let key = String(validating: keyBytes, as: UTF8.self) else {
                throw CastDiscoveryError(code: .invalidUTF8, message: "TXT key is not valid UTF-8")
            }
            guard keyBytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7e }) else {
                throw CastDiscoveryError(code: .malformedTXT,
                    message: "TXT key \(CastDeviceID.quote(key)) is not printable ASCII")
            }
            guard seen.insert(key.lowercased()).inserted else {
                throw CastDiscoveryError(code: .duplicateKey, message: "TXT key \"\(key)\" appears more than once")
            }
            let value = equals.map { Array(raw[raw.index(after: $0)...]) }
            parsed.append(Entry(key: key, value: value))
        }
        entries = parsed
    }

    /// Parses the DNS wire format: a sequence of length-prefixed strings (the TXT RDATA).
    ///
    /// - Throws: ``CastDiscoveryError`` ``CastDiscoveryError/Code/malformedTXT`` when a length
    ///   runs past the end, plus every error of ``init(rawEntries:)``.
    public init(wireFormat bytes: some Collection<UInt8>) throws(CastDiscoveryError) {
        let data = Array(bytes)
        guard data.count <= Self.maxRecordSize else {
            throw CastDiscoveryError(code: .recordTooLarge, message: "TXT record of \(data.count) bytes exceeds \(Self.maxRecordSize) bytes")
        }
        var raw: [[UInt8]] = []
        var index = 0
        while index < data.count {
            let length = Int(data[index])
            index += 1
            guard index + length <= data.count else {
                throw CastDiscoveryError(code: .malformedTXT,
                    message: "TXT entry length \(length) runs past the end of the record")
            }
            raw.append(Array(data[index..<(index + length)]))
            index += length
        }
        try self.init(rawEntries: raw)
    }

    /// The raw `key=value` byte strings, in order.
    public var rawEntries: [[UInt8]] {
        entries.map { entry in
            var bytes = Array(entry.key.utf8)
            if let value = entry.value { bytes.append(UInt8(ascii: "=")); bytes += value }
            return bytes
        }
    }

    /// The DNS wire format (length-prefixed strings).
    public var wireFormat: [UInt8] {
        rawEntries.flatMap { [UInt8($0.count)] + $0 }
    }

    /// The raw value of `key` (case-insensitive): `nil` when absent, `[]` for `key=` or `key`.
    public func rawValue(_ key: String) -> [UInt8]? {
        let lowered = key.lowercased()
        guard let entry = entries.first(where: { $0.key.lowercased() == lowered }) else { return nil }
        return entry.value ?? []
    }

    /// The value of `key` decoded as UTF-8 (nil when absent or not UTF-8).
    public subscript(_ key: String) -> String? {
        rawValue(key).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Replaces or appends `key=value`.
    public mutating func set(_ key: String, _ value: String) throws(CastDiscoveryError) {
        var pairs = entries.map { entry -> [UInt8] in
            var bytes = Array(entry.key.utf8)
            if let value = entry.value { bytes.append(UInt8(ascii: "=")); bytes += value }
            return bytes
        }
        if let index = entries.firstIndex(where: { $0.key.lowercased() == key.lowercased() }) {
            pairs[index] = Array("\(key)=\(value)".utf8)
        } else {
            pairs.append(Array("\(key)=\(value)".utf8))
        }
        self = try CastTXTRecord(rawEntries: pairs)
    }

    /// `key=value` entries separated by spaces (non-UTF-8 bytes shown as `\xNN`).
    public var description: String {
        entries.map { entry in
            guard let value = entry.value else { return entry.key }
            if let text = String(validating: value, as: UTF8.self) { return "\(entry.key)=\(text)" }
            let escaped = value.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
            return "\(entry.key)=\(escaped)"
        }.joined(separator: " ")
    }
}
