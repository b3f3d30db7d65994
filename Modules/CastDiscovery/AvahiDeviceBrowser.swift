internal import CAvahiClient
import Foundation
import Synchronization

/// Browses `_googlecast._tcp` over mDNS through avahi-daemon (the native avahi-client API on a
/// threaded poll).
///
/// Every service instance is resolved and its TXT record read into a `CastDevice`; resolvers
/// stay open, so a changed TXT record (a new `rs` when an app starts) or a new address/port (a
/// group whose leader moved) arrives as `DeviceBrowserEvent.updated(_:)`. Services with a
/// malformed TXT record are skipped with a `DiscoveryDiagnostic.Code.malformedRecord`
/// diagnostic. When avahi-daemon is not running the browser reports
/// `DiscoveryDiagnostic.Code.avahiDaemonNotRunning` and starts browsing as soon as the daemon
/// appears; when it stops, its devices are removed.
public final class AvahiDeviceBrowser: DeviceBrowser {
    /// What to browse and where.
    public struct Configuration: Sendable, Hashable {
        /// Restrict browsing to this interface (`eth0`); `nil` browses every interface.
        public var interface: String?
        /// Which address families to browse and resolve.
        public var protocols: IPProtocols
        /// An App ID whose DNS-SD subtype (`_<APPID>._sub._googlecast._tcp`) is browsed as well;
        /// devices found through it list the App ID in `CastDevice.applicationIDs`.
        public var applicationID: String?
        /// The service type, `_googlecast._tcp`.
        public var serviceType: String

        /// Creates a configuration.
        public init(interface: String? = nil, protocols: IPProtocols = .both, applicationID: String? = nil,
                    serviceType: String = "_googlecast._tcp") {
            self.interface = interface
            self.protocols = protocols
            self.applicationID = applicationID
            self.serviceType = serviceType
        }
    }

    /// Address families.
    public struct IPProtocols: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: Int
        /// Wraps bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// IPv4.
        public static let ipv4 = Self(rawValue: 1)
        /// IPv6.
        public static let ipv6 = Self(rawValue: 2)
        /// Both.
        public static let both: Self = [.ipv4, .ipv6]
    }

    /// The configuration.
    public let configuration: Configuration
    private let hub = DeviceEventHub()
    private let core = Mutex<AvahiBrowserCore?>(nil)

    /// Creates a browser; call ``start()`` to begin.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// See `DeviceBrowser.start()`.
    public func start() async {
        let created: AvahiBrowserCore? = core.withLock { current in
            guard current == nil else { return nil }
            hub.reopen()
            let new = AvahiBrowserCore(configuration: configuration, hub: hub)
            current = new
            return new
        }
        created?.begin()
    }

    /// See `DeviceBrowser.stop()`.
    public func stop() async {
        let old = core.withLock { current -> AvahiBrowserCore? in
            defer { current = nil }
            return current
        }
        old?.shutdown()
        hub.finish(removingDevices: true)
    }

    /// See `DeviceBrowser.events()`.
    public func events() -> AsyncStream<DeviceBrowserEvent> { hub.events() }
    /// See `DeviceBrowser.devices`.
    public var devices: [CastDevice] { hub.devices }
    /// See `DeviceBrowser.diagnostics`.
    public var diagnostics: [DiscoveryDiagnostic] { hub.diagnostics }

    deinit {
        core.withLock { $0?.shutdown() }
    }
}

extension CastDevice {
    /// The DNS-SD subtype a receiver registers for an App ID: `_<APPID>._sub._googlecast._tcp`.
    public static func serviceSubtype(applicationID: String, serviceType: String = "_googlecast._tcp") -> String {
        "_\(applicationID)._sub.\(serviceType)"
    }
}

/// The part of the browser that lives with the C handles. Its mutable state is touched only on
/// the poll thread, or before the thread starts, or with the poll lock held, or after it stopped.
final class AvahiBrowserCore: @unchecked Sendable {
    private let configuration: AvahiDeviceBrowser.Configuration
    private let hub: DeviceEventHub
    private var poll: AvahiPollHandle?
    private var client: AvahiClientHandle?
    private var browsers: [AvahiServiceBrowserHandle] = []
    private var resolvers: [String: AvahiServiceResolverHandle] = [:]
    private var interfaceIndex: Int32 = castor_avahi_if_unspec()
    private var stopped = false

    init(configuration: AvahiDeviceBrowser.Configuration, hub: DeviceEventHub) {
        self.configuration = configuration
        self.hub = hub
    }

    private var protocolValue: AvahiProtocol {
        switch configuration.protocols {
        case .ipv4: return castor_avahi_proto_inet()
        case .ipv6: return castor_avahi_proto_inet6()
        default: return castor_avahi_proto_unspec()
        }
    }

    func begin() {
        if let name = configuration.interface {
            let index = if_nametoindex(name)
            guard index != 0 else {
                hub.report(DiscoveryDiagnostic(
                    code: .interfaceUnavailable, message: "Interface \(name) does not exist.",
                    fix: "ip -brief link   (pick an existing interface)", subject: name, source: .mdns))
                return
            }
            interfaceIndex = Int32(index)
        }
        for diagnostic in NetworkInterface.multicastDiagnostics(interface: configuration.interface, source: .mdns) {
            hub.report(diagnostic)
        }
        do {
            let poll = try AvahiPollHandle()
            self.poll = poll
            connect()
            try poll.start()
        } catch {
            hub.report(DiscoveryDiagnostic(code: .avahiFailure, message: error.message, source: .mdns))
        }
    }

    /// Creates the client (before the poll thread runs, or on the poll thread after a disconnect).
    private func connect() {
        guard let poll else { return }
        var error: Int32 = 0
        let pointer = avahi_client_new(poll.api, AVAHI_CLIENT_NO_FAIL, avahiBrowserClientCallback,
                                       Unmanaged.passUnretained(self).toOpaque(), &error)
        guard let pointer else {
            hub.report(Avahi.diagnostic(forClientError: error, source: .mdns))
            return
        }
        client = AvahiClientHandle(pointer)
        // The callback ran during avahi_client_new, before `client` was set: start browsing now.
        if avahi_client_get_state(pointer) == AVAHI_CLIENT_S_RUNNING { startBrowsing() }
    }

    func clientChanged(_ pointer: OpaquePointer?, _ state: AvahiClientState) {
        guard !stopped else { return }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            hub.clear(.avahiDaemonNotRunning)
            hub.clear(.dbusUnreachable)
            hub.clear(.avahiFailure)
            if client != nil { startBrowsing() }
        case AVAHI_CLIENT_CONNECTING:
            dropBrowsing()
            hub.report(Avahi.diagnostic(forClientError: Int32(AVAHI_ERR_NO_DAEMON), source: .mdns))
        case AVAHI_CLIENT_FAILURE:
            let code = pointer.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_DISCONNECTED)
            dropBrowsing()
            hub.report(Avahi.diagnostic(forClientError: code, source: .mdns))
            if client != nil, code == Int32(AVAHI_ERR_DISCONNECTED) {
                // The daemon went away: start over and wait for it (AVAHI_CLIENT_NO_FAIL).
                client = nil
                connect()
            }
        default:
            break
        }
    }

    private func startBrowsing() {
        guard browsers.isEmpty, let client else { return }
        var types = [(configuration.serviceType, false)]
        if let app = configuration.applicationID {
            types.append((CastDevice.serviceSubtype(applicationID: app, serviceType: configuration.serviceType), true))
        }
        for (type, isSubtype) in types {
            let context = Unmanaged.passUnretained(self).toOpaque()
            let browser = isSubtype
                ? avahi_service_browser_new(client.pointer, interfaceIndex, protocolValue, type, nil, AvahiLookupFlags(0),
                                            avahiBrowserSubtypeCallback, context)
                : avahi_service_browser_new(client.pointer, interfaceIndex, protocolValue, type, nil, AvahiLookupFlags(0),
                                            avahiBrowserServiceCallback, context)
            guard let browser else {
                hub.report(DiscoveryDiagnostic(
                    code: .avahiFailure,
                    message: "Could not browse \(type): \(Avahi.errorText(avahi_client_errno(client.pointer))).",
                    subject: type, source: .mdns))
                continue
            }
            browsers.append(AvahiServiceBrowserHandle(browser, client: client))
        }
    }

    private func dropBrowsing() {
        resolvers.removeAll()
        browsers.removeAll()
        hub.removeAll(prefix: "mdns|")
    }

    private static func key(_ interface: Int32, _ proto: Int32, _ name: String, _ type: String, _ domain: String) -> String {
        "mdns|\(interface)|\(proto)|\(type)|\(domain)|\(name)"
    }

    func serviceEvent(_ interface: Int32, _ proto: Int32, _ event: AvahiBrowserEvent,
                      _ name: String, _ reportedType: String, _ domain: String, subtype: Bool) {
        guard !stopped, let client else { return }
        // A subtype browse may report `_APP._sub._googlecast._tcp`; resolve the base type, but keep
        // a separate observation so the App ID is attached (and detached) on its own.
        let type = reportedType.range(of: "._sub.").map { String(reportedType[$0.upperBound...]) } ?? reportedType
        let key = Self.key(interface, proto, name, subtype ? "sub:" + type : type, domain)
        switch event {
        case AVAHI_BROWSER_NEW:
            guard resolvers[key] == nil else { return }
            // Resolve over the protocol the service was seen on, so IPv4 and IPv6 both appear.
            let context = Unmanaged.passUnretained(self).toOpaque()
            let resolver = subtype
                ? avahi_service_resolver_new(client.pointer, interface, proto, name, type, domain, proto,
                                             AvahiLookupFlags(0), avahiBrowserSubtypeResolverCallback, context)
                : avahi_service_resolver_new(client.pointer, interface, proto, name, type, domain, proto,
                                             AvahiLookupFlags(0), avahiBrowserResolverCallback, context)
            if let resolver { resolvers[key] = AvahiServiceResolverHandle(resolver, client: client) }
        case AVAHI_BROWSER_REMOVE:
            resolvers[key] = nil
            hub.remove(key)
        case AVAHI_BROWSER_FAILURE:
            hub.report(DiscoveryDiagnostic(
                code: .avahiFailure,
                message: "Browsing \(type) failed: \(Avahi.errorText(avahi_client_errno(client.pointer))).",
                subject: type, source: .mdns))
        default:
            break  // ALL_FOR_NOW, CACHE_EXHAUSTED
        }
    }

    func resolved(_ interface: Int32, _ proto: Int32, _ event: AvahiResolverEvent, _ name: String, _ type: String,
                  _ domain: String, _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16,
                  _ txt: UnsafeMutablePointer<AvahiStringList>?, subtype: Bool) {
        guard !stopped else { return }
        let key = Self.key(interface, proto, name, subtype ? "sub:" + type : type, domain)
        guard event == AVAHI_RESOLVER_FOUND, let address else { return }  // a timeout keeps the last result
        let (text, family) = Avahi.addressText(address)
        let endpoint = CastDeviceEndpoint(address: text, family: family, port: Int(port), interfaceIndex: Int(interface),
                                    interfaceName: Avahi.interfaceName(interface))
        do {
            let record = try CastTXTRecord(rawEntries: Avahi.entries(of: txt))
            var device = try CastDevice(txt: record, endpoints: [endpoint], serviceName: name)
            if subtype, let app = configuration.applicationID { device.applicationIDs = [app] }
            hub.clear(.malformedRecord, subject: name)
            hub.upsert(key, device)
        } catch {
            hub.remove(key)
            hub.report(DiscoveryDiagnostic(
                code: .malformedRecord,
                message: "Service \"\(name)\" at \(endpoint) was skipped: \(error.message).",
                fix: "Nothing on this machine; the advertiser publishes a broken TXT record.",
                subject: name, source: .mdns))
        }
    }

    /// Stops the poll thread, then frees resolvers, browsers, client and poll, in that order.
    func shutdown() {
        guard !stopped else { return }
        poll?.stop()
        stopped = true
        resolvers.removeAll()
        browsers.removeAll()
        client = nil
        poll = nil
    }

    deinit { shutdown() }
}

private func avahiBrowserClientCallback(_ client: OpaquePointer?, _ state: AvahiClientState,
                                        _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    Unmanaged<AvahiBrowserCore>.fromOpaque(userdata).takeUnretainedValue().clientChanged(client, state)
}

private func avahiBrowserServiceCallback(
    _ browser: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiBrowserEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ flags: AvahiLookupResultFlags, _ userdata: UnsafeMutableRawPointer?
) {
    forwardServiceEvent(interface, proto, event, name, type, domain, userdata, subtype: false)
}

private func avahiBrowserSubtypeCallback(
    _ browser: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiBrowserEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ flags: AvahiLookupResultFlags, _ userdata: UnsafeMutableRawPointer?
) {
    forwardServiceEvent(interface, proto, event, name, type, domain, userdata, subtype: true)
}

private func forwardServiceEvent(
    _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiBrowserEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ userdata: UnsafeMutableRawPointer?, subtype: Bool
) {
    guard let userdata else { return }
    Unmanaged<AvahiBrowserCore>.fromOpaque(userdata).takeUnretainedValue().serviceEvent(
        interface, proto, event, name.map { String(cString: $0) } ?? "", type.map { String(cString: $0) } ?? "",
        domain.map { String(cString: $0) } ?? "", subtype: subtype)
}

private func avahiBrowserResolverCallback(
    _ resolver: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiResolverEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ host: UnsafePointer<CChar>?, _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16,
    _ txt: UnsafeMutablePointer<AvahiStringList>?, _ flags: AvahiLookupResultFlags,
    _ userdata: UnsafeMutableRawPointer?
) {
    forwardResolved(interface, proto, event, name, type, domain, address, port, txt, userdata, subtype: false)
}

private func avahiBrowserSubtypeResolverCallback(
    _ resolver: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiResolverEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ host: UnsafePointer<CChar>?, _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16,
    _ txt: UnsafeMutablePointer<AvahiStringList>?, _ flags: AvahiLookupResultFlags,
    _ userdata: UnsafeMutableRawPointer?
) {
    forwardResolved(interface, proto, event, name, type, domain, address, port, txt, userdata, subtype: true)
}

private func forwardResolved(
    _ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiResolverEvent,
    _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
    _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16, _ txt: UnsafeMutablePointer<AvahiStringList>?,
    _ userdata: UnsafeMutableRawPointer?, subtype: Bool
) {
    guard let userdata else { return }
    Unmanaged<AvahiBrowserCore>.fromOpaque(userdata).takeUnretainedValue().resolved(
        interface, proto, event, name.map { String(cString: $0) } ?? "", type.map { String(cString: $0) } ?? "",
        domain.map { String(cString: $0) } ?? "", address, port, txt, subtype: subtype)
}
