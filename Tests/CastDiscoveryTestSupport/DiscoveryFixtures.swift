import CastDiscoveryCore
import Testing

// What the discovery test targets (CastDiscoveryCoreTests, CastDIALTests, CastHTTPTests,
// CastKnownHostsTests) share: a device value, a browser the test drives, and an error-code check.

/// A device with one endpoint, as discovery would report it.
public func makeDevice(_ id: String = "0123456789abcdef0123456789abcdef", name: String = "TV", address: String = "10.0.0.5",
                port: Int = 8009, source: DiscoverySource = .mdns, status: String? = nil) -> CastDevice {
    CastDevice(id: try! CastDeviceID(parsing: id), friendlyName: name, model: "Chromecast", capabilities: [.videoOut, .audioOut],
               receiverStatusText: status,
               endpoints: [CastDeviceEndpoint(address: address, family: address.contains(":") ? .ipv6 : .ipv4, port: port)],
               sources: [source])
}

/// A browser driven by the test.
public final class ScriptedBrowser: DeviceBrowser, @unchecked Sendable {
    package let hub = DeviceEventHub()
    public init() {}
    public func start() async { hub.reopen() }
    public func stop() async { hub.finish(removingDevices: true) }
    public func events() -> AsyncStream<DeviceBrowserEvent> { hub.events() }
    public var devices: [CastDevice] { hub.devices }
    public var diagnostics: [DiscoveryDiagnostic] { hub.diagnostics }
}

/// Runs `body` and expects it to throw a ``CastDiscoveryError`` with `code`.
public func expectCode(_ code: CastDiscoveryError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
    } catch let error as CastDiscoveryError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected CastDiscoveryError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
