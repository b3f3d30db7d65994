import Foundation

/// A network interface of this host, as `getifaddrs(3)` reports it.
public struct NetworkInterface: Sendable, Hashable, CustomStringConvertible {
    /// The name (`eth0`).
    public var name: String
    /// The index (`if_nametoindex`).
    public var index: Int
    /// `IFF_UP`.
    public var isUp: Bool
    /// `IFF_RUNNING` (carrier present).
    public var isRunning: Bool
    /// `IFF_LOOPBACK`.
    public var isLoopback: Bool
    /// `IFF_MULTICAST`.
    public var supportsMulticast: Bool
    /// IPv4 and IPv6 addresses in text form.
    public var addresses: [String]

    /// Creates a description of an interface.
    public init(name: String, index: Int, isUp: Bool, isRunning: Bool, isLoopback: Bool,
                supportsMulticast: Bool, addresses: [String]) {
        self.name = name
        self.index = index
        self.isUp = isUp
        self.isRunning = isRunning
        self.isLoopback = isLoopback
        self.supportsMulticast = supportsMulticast
        self.addresses = addresses
    }

    /// Whether mDNS/SSDP can work on it: up, multicast, not loopback, with an address.
    public var isUsableForDiscovery: Bool { isUp && supportsMulticast && !isLoopback && !addresses.isEmpty }

    /// `eth0 (up, multicast) 10.0.0.2`.
    public var description: String {
        var flags: [String] = [isUp ? "up" : "down"]
        if supportsMulticast { flags.append("multicast") }
        if isLoopback { flags.append("loopback") }
        return "\(name) (\(flags.joined(separator: ", "))) \(addresses.joined(separator: " "))"
    }

    /// The interfaces of this host (in this network namespace), sorted by index.
    public static func current() -> [NetworkInterface] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(head) }
        var byName: [String: NetworkInterface] = [:]
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let current = node {
            defer { node = current.pointee.ifa_next }
            let name = String(cString: current.pointee.ifa_name)
            let flags = Int32(bitPattern: current.pointee.ifa_flags)
            var entry = byName[name] ?? NetworkInterface(
                name: name, index: Int(if_nametoindex(name)), isUp: flags & Int32(IFF_UP) != 0,
                isRunning: flags & Int32(IFF_RUNNING) != 0, isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                supportsMulticast: flags & Int32(IFF_MULTICAST) != 0, addresses: [])
            if let address = current.pointee.ifa_addr, let text = Self.text(address) { entry.addresses.append(text) }
            byName[name] = entry
        }
        return byName.values.sorted { $0.index < $1.index }
    }

    static func text(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var raw = pointer.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)).map { String(cString: $0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var raw = pointer.pointee.sin6_addr
                return inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)).map { String(cString: $0) }
            }
        default:
            return nil
        }
    }

    /// What keeps multicast discovery from working on these interfaces, if anything.
    ///
    /// - Parameters:
    ///   - interface: the interface discovery is restricted to, or `nil` for any.
    ///   - source: the discovery source named in the diagnostics.
    ///   - interfaces: the interfaces to judge (defaults to ``current()``).
    public static func multicastDiagnostics(interface: String?, source: DiscoverySource,
                                            interfaces: [NetworkInterface] = current()) -> [DiscoveryDiagnostic] {
        if let interface {
            guard let match = interfaces.first(where: { $0.name == interface }) else {
                return [DiscoveryDiagnostic(
                    code: .interfaceUnavailable, message: "Interface \(interface) does not exist.",
                    fix: "ip -brief link   (then pass an existing interface)", subject: interface, source: source)]
            }
            if !match.isUp {
                return [DiscoveryDiagnostic(
                    code: .interfaceUnavailable, message: "Interface \(interface) is down.",
                    fix: "sudo ip link set \(interface) up", subject: interface, source: source)]
            }
            if !match.supportsMulticast {
                return [DiscoveryDiagnostic(
                    code: .noMulticastInterface, message: "Interface \(interface) has multicast disabled.",
                    fix: "sudo ip link set \(interface) multicast on", subject: interface, source: source)]
            }
            if match.addresses.isEmpty {
                return [DiscoveryDiagnostic(
                    code: .interfaceUnavailable, message: "Interface \(interface) has no IP address.",
                    fix: "sudo dhclient \(interface)   (or configure an address)", subject: interface, source: source)]
            }
            return []
        }
        guard !interfaces.contains(where: \.isUsableForDiscovery) else { return [] }
        let candidates = interfaces.filter { !$0.isLoopback }
        let detail = candidates.isEmpty
            ? "only the loopback interface exists"
            : candidates.map(\.description).joined(separator: "; ")
        let fix = candidates.first.map { c -> String in
            if !c.isUp { return "sudo ip link set \(c.name) up" }
            if !c.supportsMulticast { return "sudo ip link set \(c.name) multicast on" }
            return "connect \(c.name) to the network the Cast devices are on"
        } ?? "connect this host to the network the Cast devices are on, or use known hosts (--host)"
        return [DiscoveryDiagnostic(
            code: .noMulticastInterface,
            message: "No interface is up with multicast and an address (\(detail)); mDNS and SSDP cannot reach any device.",
            fix: fix, source: source)]
    }
}
