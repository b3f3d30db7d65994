public import Foundation

/// A Cast device's identity: the 128-bit UUID it advertises in the TXT key `id`.
///
/// Devices advertise it as 32 hexadecimal digits without dashes
/// (`id=99f3c58bf3471cc10cd87f79d33599cf`); DIAL advertises it as `uuid:` plus the dashed form.
/// Both parse to the same value. Discovery keys devices by this id, never by name or address,
/// so a group whose elected leader moves keeps its identity.
public struct CastDeviceID: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The UUID.
    public let uuid: UUID

    /// Wraps a UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Parses 32 hexadecimal digits, optionally with dashes, braces or a `uuid:` prefix.
    ///
    /// - Throws: ``CastDiscoveryError`` ``CastDiscoveryError/Code/invalidDeviceID``.
    public init(parsing text: String) throws(CastDiscoveryError) {
        var body = Substring(text)
        if body.lowercased().hasPrefix("uuid:") { body = body.dropFirst(5) }
        if body.hasPrefix("{") && body.hasSuffix("}") { body = body.dropFirst().dropLast() }
        var digits: [UInt8] = []
        digits.reserveCapacity(16)
        var pending: UInt8? = nil
        for scalar in body.unicodeScalars {
            if scalar == "-" { continue }
            guard let nibble = scalar.properties.isASCIIHexDigit ? UInt8(String(scalar), radix: 16) : nil else {
                throw CastDiscoveryError(
                    code: .invalidDeviceID, message: "device id \(Self.quote(text)) has a character that is not hexadecimal")
            }
            if let high = pending {
                digits.append(high << 4 | nibble)
                pending = nil
            } else {
                pending = nibble
            }
            if digits.count > 16 { break }
        }
        guard digits.count == 16, pending == nil else {
            throw CastDiscoveryError(
                code: .invalidDeviceID, message: "device id \(Self.quote(text)) is not 32 hexadecimal digits")
        }
        let d = digits
        uuid = UUID(uuid: (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7],
                           d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]))
    }

    /// Lower-case dashed form, e.g. `99f3c58b-f347-1cc1-0cd8-7f79d33599cf`.
    public var description: String { uuid.uuidString.lowercased() }

    /// Lower-case 32 digits without dashes, the TXT `id` form.
    public var txtValue: String { description.replacingOccurrences(of: "-", with: "") }

    /// Orders by the dashed text form.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }

    /// A stable id derived from a name (for a known host that does not reveal its UUID):
    /// an RFC 4122 version-5-shaped UUID from a 128-bit FNV-1a hash of `name`.
    public static func derived(from name: String) -> CastDeviceID {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x84222325_cbf29ce4
        for byte in name.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte) ^ 0x5a) &* 0x0000_0100_0000_01b3
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let d = bytes
        return CastDeviceID(UUID(uuid: (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7],
                                        d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15])))
    }

    static func quote(_ text: String) -> String {
        let limited = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return "\"\(limited)\""
    }

    /// Encodes as the dashed string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes the dashed or undashed string.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }
}
