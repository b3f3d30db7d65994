import CastDiscoveryCore
import Foundation

/// How castctl names a device: a friendly name or a UUID (found through discovery), or an address.
///
/// Parsed from `NAME|UUID|HOST[:PORT]`: 32 hexadecimal digits (dashes allowed) are a device id; an
/// IPv4 or IPv6 literal (`10.0.0.5`, `fe80::1`, `[fe80::1%eth0]:8009`) or any `HOST:PORT` is an
/// address; everything else is a friendly name, matched without regard to case. A host name needs
/// its port (`tv.lan:8009`), since a bare word is a friendly name.
public enum DeviceReference: Sendable, Hashable, CustomStringConvertible {
    /// A device at an address, connected to directly.
    case address(KnownHost)
    /// A device with this id, found through discovery.
    case id(CastDeviceID)
    /// A device with this friendly name (case-insensitive), found through discovery.
    case name(String)

    /// The longest text accepted (friendly names are at most 63 bytes on devices; addresses are short).
    public static let maximumLength = 256

    /// Parses `NAME|UUID|HOST[:PORT]`, trimmed of surrounding white space.
    /// - Throws: ``CastctlError`` `.invalidDevice` for empty text, control characters, a bad port or overlong text.
    public init(parsing raw: String) throws(CastctlError) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        func invalid(_ why: String) -> CastctlError {
            CastctlError(code: .invalidDevice, message: "“\(raw)” is not a device (NAME, UUID or HOST[:PORT]): \(why)")
        }
        guard !text.isEmpty else { throw invalid("it is empty") }
        guard text.utf8.count <= Self.maximumLength else { throw invalid("longer than \(Self.maximumLength) bytes") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("it holds a control character")
        }
        if text.utf8.count >= 32, let id = try? CastDeviceID(parsing: text) {
            self = .id(id)
            return
        }
        if Self.looksLikeAddress(text) {
            do {
                self = .address(try KnownHost(parsing: text))
            } catch {
                throw invalid(error.message)
            }
            return
        }
        self = .name(text)
    }

    /// Whether `text` is written as an address: an IP literal (bracketed or not, with a port or not)
    /// or `HOST:PORT` with a host name made of DNS characters.
    static func looksLikeAddress(_ text: String) -> Bool {
        if text.hasPrefix("[") { return true }
        if isIPLiteral(text) { return true }
        let colons = text.filter { $0 == ":" }.count
        guard colons == 1, let colon = text.firstIndex(of: ":") else { return false }
        let host = text[..<colon], port = text[text.index(after: colon)...]
        guard !host.isEmpty, !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return false }
        return host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// Whether `text` (an IPv4 address, or an IPv6 address with an optional `%zone`) is an IP
    /// literal, optionally followed by `:PORT` for IPv4.
    static func isIPLiteral(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        let ipv4 = text.split(separator: ":", maxSplits: 1).first.map(String.init) ?? text
        if inet_pton(AF_INET, ipv4, &v4) == 1 { return true }
        let ipv6 = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        return inet_pton(AF_INET6, ipv6, &v6) == 1
    }

    /// The reference as the user writes it (`Living Room TV`, `10.0.0.5:8009`, a dashed UUID).
    public var description: String {
        switch self {
        case .address(let host): host.description
        case .id(let id): id.description
        case .name(let name): name
        }
    }
}
