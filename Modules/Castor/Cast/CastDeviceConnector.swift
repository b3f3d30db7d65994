public import CastDiscoveryCore
public import CastTLS

/// Opens a transport to a device. ``TLSDeviceConnector`` is the real one; tests inject others
/// (for example an in-memory pair with an emulated receiver).
public protocol CastDeviceConnector: Sendable {
    /// Opens a transport to `device`.
    /// - Throws: any error; ``Cast`` reports it as ``CastError/Code/deviceUnreachable``.
    func connect(to device: CastDevice) async throws -> any CastTransport
}

/// Connects over TLS to the device's preferred endpoint, then to its other endpoints in turn
/// when one fails, all within one connect deadline.
///
/// A device record from mDNS often lists several addresses (IPv4, IPv6 link-local, an address it
/// has just left): one that refuses or does not answer must not make a device that answers on
/// another one unreachable.
public struct TLSDeviceConnector: CastDeviceConnector {
    /// The TCP and TLS connect deadline, for all endpoints together.
    public var connectTimeout: Duration

    /// Creates the connector.
    public init(connectTimeout: Duration = .seconds(5)) {
        self.connectTimeout = connectTimeout
    }

    /// The order endpoints are tried in: the preferred one (`CastDevice.preferredEndpoint`), then
    /// IPv4 before IPv6, routable before link-local.
    public static func endpoints(of device: CastDevice) -> [CastDeviceEndpoint] {
        let preferred = device.preferredEndpoint
        let rank = { (endpoint: CastDeviceEndpoint) -> Int in
            if endpoint == preferred { return 0 }
            let family = endpoint.family == .ipv4 ? 0 : endpoint.family == .ipv6 ? 1 : 2
            return 1 + family + (endpoint.isLinkLocal ? 3 : 0)
        }
        return device.endpoints.sorted { (rank($0), $0.address, $0.port) < (rank($1), $1.address, $1.port) }
    }

    /// Connects to the first endpoint that answers.
    /// - Throws: ``CastError`` `.deviceUnreachable` when the device has no endpoint; the last
    ///   endpoint's transport error when none answers.
    public func connect(to device: CastDevice) async throws -> any CastTransport {
        let endpoints = Self.endpoints(of: device)
        guard !endpoints.isEmpty else {
            throw CastError(code: .deviceUnreachable, message: "\(device.friendlyName) has no known address")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: connectTimeout)
        var lastError: any Error = CastError(code: .timeout, message: "Connecting to \(device.friendlyName) timed out")
        for endpoint in endpoints {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { break }
            var configuration = TLSCastTransport.Configuration()
            configuration.connectTimeout = left
            do {
                return try await TLSCastTransport.connect(host: endpoint.hostForConnecting, port: endpoint.port, configuration: configuration)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}
