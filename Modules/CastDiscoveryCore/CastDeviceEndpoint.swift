/// Where a device can be reached: an address, a port and the interface it was seen on.
///
/// A device usually has several: one per address family and per interface of a multi-homed
/// host. IPv6 link-local addresses are only usable with their interface, which is kept here
/// (``hostForConnecting`` adds the `%scope`).
public struct CastDeviceEndpoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The address family.
    public enum Family: String, Sendable, Hashable, Codable {
        /// IPv4.
        case ipv4
        /// IPv6.
        case ipv6
        /// A host name (a known host given by name, not yet resolved).
        case hostname
    }

    /// The address in text form (`10.77.0.2`, `fe80::1`) or a host name.
    public var address: String
    /// The address family of ``address``.
    public var family: Family
    /// The TCP port of the Cast channel (8009 for a device, another port for a group).
    public var port: Int
    /// The index of the interface the endpoint was seen on, when known.
    public var interfaceIndex: Int?
    /// The name of that interface (`eth0`), when known.
    public var interfaceName: String?

    /// Creates an endpoint.
    public init(address: String, family: Family, port: Int, interfaceIndex: Int? = nil, interfaceName: String? = nil) {
        self.address = address
        self.family = family
        self.port = port
        self.interfaceIndex = interfaceIndex
        self.interfaceName = interfaceName
    }

    /// Whether the address is an IPv6 link-local address (`fe80::/10`).
    public var isLinkLocal: Bool {
        switch family {
        case .ipv6: return address.lowercased().hasPrefix("fe8") || address.lowercased().hasPrefix("fe9")
            || address.lowercased().hasPrefix("fea") || address.lowercased().hasPrefix("feb")
        case .ipv4: return address.hasPrefix("169.254.")
        case .hostname: return false
        }
    }

    /// The host to pass to a socket: link-local IPv6 gets `%interface`.
    public var hostForConnecting: String {
        if family == .ipv6, isLinkLocal, !address.contains("%") {
            if let interfaceName { return "\(address)%\(interfaceName)" }
            if let interfaceIndex { return "\(address)%\(interfaceIndex)" }
        }
        return address
    }

    /// `10.77.0.2:8009 (veth0)` or `[fe80::1%veth0]:8009`.
    public var description: String {
        let host = family == .ipv6 ? "[\(hostForConnecting)]" : address
        if let interfaceName, family != .ipv6 || !isLinkLocal { return "\(host):\(port) (\(interfaceName))" }
        return "\(host):\(port)"
    }

    /// Preference order for connecting: routable IPv4, routable IPv6, link-local, names.
    var preferenceRank: Int {
        switch (family, isLinkLocal) {
        case (.ipv4, false): return 0
        case (.ipv6, false): return 1
        case (.ipv4, true): return 2
        case (.ipv6, true): return 3
        case (.hostname, _): return 4
        }
    }
}
