import CastChannels
import CastDiscoveryCore
import CastHTTP
import CastJSON
import CastTLS
import Foundation

/// Probes a known host the way a sender would: TLS to the Cast port, CONNECT, and a receiver
/// GET_STATUS. A host that answers is a Cast device.
///
/// The receiver status carries no identity, so the device's id, name and model come from
/// `eureka_info` on port 8008 when the device serves it (`GET /setup/eureka_info?params=name,device_info`,
/// with the IP as `Host` — devices refuse names); otherwise the id is derived from `host:port`
/// (stable across probes) and the name is the host. The running app's status text becomes
/// `CastDevice.receiverStatusText`.
public struct TLSStatusProber: CastDeviceProber {
    /// How long the TCP connect plus TLS handshake may take.
    public var connectTimeout: Duration
    /// How long GET_STATUS may take.
    public var requestTimeout: Duration
    /// Whether to ask `eureka_info` on port 8008 for the identity.
    public var askEurekaInfo: Bool
    /// How `eureka_info` is fetched.
    public var fetcher: any HTTPFetcher

    /// Creates a prober.
    ///
    /// - Parameters:
    ///   - connectTimeout: how long the TCP connect plus TLS handshake may take.
    ///   - requestTimeout: how long GET_STATUS may take.
    ///   - askEurekaInfo: whether to ask `eureka_info` on port 8008 for the identity.
    ///   - fetcher: how `eureka_info` is fetched; by default a bounded GET on SwiftNIO whose whole
    ///     exchange is limited to 3 seconds and 64 KiB.
    public init(connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(5), askEurekaInfo: Bool = true,
                fetcher: (any HTTPFetcher)? = nil) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.askEurekaInfo = askEurekaInfo
        self.fetcher = fetcher ?? BoundedHTTPFetcher(timeout: .seconds(3))
    }

    /// See `CastDeviceProber.probe(_:)`.
    public func probe(_ host: KnownHost) async throws(CastDiscoveryError) -> CastDevice {
        let transport: TLSCastTransport
        do {
            transport = try await TLSCastTransport.connect(
                host: host.host, port: host.port, configuration: .init(connectTimeout: connectTimeout))
        } catch {
            throw Self.discoveryError(error, host: host)
        }
        let connection = CastConnection(
            transport: transport,
            configuration: CastConnectionConfiguration(senderId: "sender-probe", requestTimeout: requestTimeout))
        let status: ReceiverStatus
        do {
            status = try await connection.start()
        } catch {
            await connection.close()
            throw CastDiscoveryError(code: .probeFailed, message: "\(host) did not answer GET_STATUS: \(error.message)", cause: error)
        }
        await connection.close()
        var device = CastDevice(
            id: CastDeviceID.derived(from: host.description), friendlyName: host.host, advertisesCapabilities: false,
            receiverStatusText: status.runningApp?.statusText ?? status.runningApp?.displayName,
            isBusy: status.runningApp != nil, endpoints: [host.endpoint], sources: [.knownHost])
        if askEurekaInfo, let info = await eurekaInfo(host) { info.apply(to: &device) }
        return device
    }

    /// Maps a transport failure to a discovery error, keeping "refused" distinct.
    static func discoveryError(_ error: CastTransportError, host: KnownHost) -> CastDiscoveryError {
        if error.isConnectionRefused {
            return CastDiscoveryError(code: .connectionRefused, message: "\(host) refused the connection", cause: error)
        }
        if error.code == .tls {
            return CastDiscoveryError(code: .probeFailed, message: "TLS with \(host) failed: \(error.message)", cause: error)
        }
        return CastDiscoveryError(code: .socket, message: error.message, cause: error)
    }

    private func eurekaInfo(_ host: KnownHost) async -> EurekaInfo? {
        let hostPart = host.host.contains(":") ? "[\(host.host)]" : host.host
        guard let url = URL(string: "http://\(hostPart):8008/setup/eureka_info?params=name,device_info"),
            let reply = try? await fetcher.get(url, limit: 64 * 1024), reply.status == 200,
            let json = try? JSONValue(parsing: Data(reply.body))
        else { return nil }
        return EurekaInfo(json)
    }
}

/// The identity fields of an `eureka_info` answer.
struct EurekaInfo: Sendable, Hashable {
    var name: String?
    var id: CastDeviceID?
    var buildRevision: String?
    var model: String?
    var capabilities: CastDeviceCapabilities?

    init(_ json: JSONValue) {
        name = json["name"]?.stringValue
        id = (json["ssdp_udn"]?.stringValue).flatMap { try? CastDeviceID(parsing: $0) }
        buildRevision = json["cast_build_revision"]?.stringValue
        let info = json["device_info"]
        model = info?["model_name"]?.stringValue
        if let caps = info?["capabilities"] {
            var set: CastDeviceCapabilities = [.audioOut]
            if caps["display_supported"]?.boolValue == true { set.insert(.videoOut) }
            capabilities = set
        }
    }

    func apply(to device: inout CastDevice) {
        if let id { device.id = id }
        if let name, !name.isEmpty { device.friendlyName = name }
        if let model { device.model = model }
        if let buildRevision { device.buildRevision = buildRevision }
        if let capabilities {
            device.capabilities = capabilities
            device.advertisesCapabilities = true
        }
    }
}
