/// Something on the host's network changed in a way that may bring a lost device back within reach:
/// a link came up (a cable plugged in, Wi-Fi associated again, a carrier returned), or an address was
/// added (a DHCP lease, an IPv6 address after duplicate address detection).
public enum CastNetworkChange: Sendable, Hashable, CustomStringConvertible {
    /// The interface named `interface` is up and has a carrier again.
    case linkUp(interface: String)
    /// An address was added to the interface named `interface`.
    case addressAdded(interface: String, address: String)

    /// One line for a log.
    public var description: String {
        switch self {
        case .linkUp(let interface): "link \(interface) up"
        case .addressAdded(let interface, let address): "address \(address) added on \(interface)"
        }
    }
}

/// Watches the host's network for changes that may bring a device back (``CastNetworkChange``).
///
/// While a session reconnects, its back-off wait ends as soon as the monitor reports a change, and an
/// attempt in flight is replaced by a fresh one: a device whose link just came back is rejoined within
/// a round trip instead of after the rest of the back-off. ``NetlinkNetworkMonitor`` watches the
/// kernel's routing socket on Linux; tests hand ``Cast`` a monitor of their own.
public protocol CastNetworkMonitor: Sendable {
    /// Changes from now on, until the stream's consumer stops iterating (then the monitor stops
    /// watching). Each call gives an independent stream.
    func changes() -> AsyncStream<CastNetworkChange>
}
