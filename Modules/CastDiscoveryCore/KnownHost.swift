/// A configured device address: `host[:port]`, for networks where multicast does not reach.
public struct KnownHost: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An IPv4/IPv6 address or a host name.
    public var host: String
    /// The Cast port (8009 unless a group or an emulator uses another).
    public var port: Int

    /// Creates a known host.
    public init(host: String, port: Int = CastDevice.devicePort) {
        self.host = host
        self.port = port
    }

    /// Parses `10.0.0.5`, `10.0.0.5:8009`, `tv.local`, `[fe80::1%eth0]:8009` or `fe80::1`.
    ///
    /// - Throws: ``CastDiscoveryError/Code/invalidArgument``.
    public init(parsing text: String) throws(CastDiscoveryError) {
        func bad(_ why: String) -> CastDiscoveryError {
            CastDiscoveryError(code: .invalidArgument, message: "\(CastDeviceID.quote(text)) is not host[:port]: \(why)")
        }
        var host = text
        var port = CastDevice.devicePort
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw bad("missing ]") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { throw bad("bad port") }
                port = value
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]) else { throw bad("bad port") }
            port = value
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else { throw bad("empty or invalid host") }
        guard (1...65_535).contains(port) else { throw bad("port out of range") }
        self.init(host: host, port: port)
    }

    /// The endpoint for this host (family guessed from the text).
    public var endpoint: CastDeviceEndpoint {
        let family: CastDeviceEndpoint.Family = host.contains(":") ? .ipv6
            : host.allSatisfy({ $0.isNumber || $0 == "." }) ? .ipv4 : .hostname
        return CastDeviceEndpoint(address: host, family: family, port: port)
    }

    /// `host:port` (`[v6]:port`).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Asks one known host what it is. `KnownHostsBrowser` calls it periodically.
public protocol CastDeviceProber: Sendable {
    /// Connects to `host` and returns the device found there.
    ///
    /// - Throws: ``CastDiscoveryError`` — ``CastDiscoveryError/Code/connectionRefused`` when
    ///   nothing listens, ``CastDiscoveryError/Code/socket`` when the host is unreachable or
    ///   silent, ``CastDiscoveryError/Code/probeFailed`` when it answers but not as a Cast device.
    func probe(_ host: KnownHost) async throws(CastDiscoveryError) -> CastDevice
}
