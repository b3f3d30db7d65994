public import CastDiscovery
public import CastTransport

/// Opens a transport to a device. ``TLSDeviceConnector`` is the real one; tests inject others
/// (for example an in-memory pair with an emulated receiver).
public protocol CastDeviceConnector: Sendable {
    /// Opens a transport to `device`.
    /// - Throws: any error; ``Cast`` reports it as ``CastError/Code/deviceUnreachable``.
    func connect(to device: CastDevice) async throws -> any CastTransport
}

/// Connects over TLS to the device's preferred endpoint.
public struct TLSDeviceConnector: CastDeviceConnector {
    /// The TCP and TLS connect deadline.
    public var connectTimeout: Duration

    /// Creates the connector.
    public init(connectTimeout: Duration = .seconds(5)) {
        self.connectTimeout = connectTimeout
    }

    /// Connects to the device's preferred endpoint.
    /// - Throws: ``CastError`` `.deviceUnreachable` when the device has no endpoint; transport errors otherwise.
    public func connect(to device: CastDevice) async throws -> any CastTransport {
        guard let endpoint = device.preferredEndpoint else {
            throw CastError(code: .deviceUnreachable, message: "\(device.friendlyName) has no known address")
        }
        var configuration = TLSCastTransport.Configuration()
        configuration.connectTimeout = connectTimeout
        return try await TLSCastTransport.connect(host: endpoint.hostForConnecting, port: endpoint.port, configuration: configuration)
    }
}
