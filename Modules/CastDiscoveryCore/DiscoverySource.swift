/// Which mechanism found a device.
public struct DiscoverySource: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The source's name (`mdns`, `known-host`, `dial`).
    public let rawValue: String
    /// Creates a source with a name of your own (for a custom ``DeviceBrowser``).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// mDNS / DNS-SD through avahi-daemon.
    public static let mdns = Self(rawValue: "mdns")
    /// A configured `host[:port]` probed over TLS.
    public static let knownHost = Self(rawValue: "known-host")
    /// SSDP M-SEARCH plus the DIAL device description.
    public static let dial = Self(rawValue: "dial")

    /// How much a source's descriptive fields are trusted when sources disagree (lower wins).
    var rank: Int {
        switch rawValue {
        case Self.mdns.rawValue: return 0
        case Self.knownHost.rawValue: return 1
        case Self.dial.rawValue: return 2
        default: return 3
        }
    }

    /// The name.
    public var description: String { rawValue }
    /// Encodes the name as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    /// Decodes a name.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    /// Orders by trust, then name.
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.rank, lhs.rawValue) < (rhs.rank, rhs.rawValue) }
}
