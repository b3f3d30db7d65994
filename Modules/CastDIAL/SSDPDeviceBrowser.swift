import Foundation
import Synchronization

/// Finds DIAL devices with SSDP: M-SEARCH for `urn:dial-multiscreen-org:service:dial:1` on one
/// interface, fetch each `LOCATION`, require the `Application-URL` header and read the device
/// description.
///
/// Only responses whose `LOCATION` points at the address that sent them are followed (a
/// responder cannot make this host fetch from a third party). Devices found this way have no
/// capabilities (``CastDevice/advertisesCapabilities`` is false) and are reached at the
/// description's host on port 8009, as Chrome does. Modern Chromecasts mostly stopped answering
/// DIAL; use it alongside mDNS in a ``MergedDeviceBrowser``.
public final class SSDPDeviceBrowser: DeviceBrowser {
    /// Where and how to search.
    public struct Configuration: Sendable {
        /// The interface to search on (its first IPv4 address sends the M-SEARCH); `nil` lets the
        /// routing table choose.
        public var interface: String?
        /// The search target.
        public var searchTarget: String
        /// How many M-SEARCH datagrams to send.
        public var searches: Int
        /// The pause between two searches.
        public var interval: Duration
        /// How long fetching one description may take.
        public var fetchTimeout: Duration
        /// The clock the pauses run on.
        public var clock: any Clock<Duration>
        /// How descriptions are fetched.
        public var fetcher: any HTTPFetcher

        /// Creates a configuration (Chrome's defaults: 4 searches 1 s apart).
        public init(interface: String? = nil, searchTarget: String = "urn:dial-multiscreen-org:service:dial:1",
                    searches: Int = 4, interval: Duration = .seconds(1), fetchTimeout: Duration = .seconds(3),
                    clock: any Clock<Duration> = ContinuousClock(), fetcher: (any HTTPFetcher)? = nil) {
            self.interface = interface
            self.searchTarget = searchTarget
            self.searches = searches
            self.interval = interval
            self.fetchTimeout = fetchTimeout
            self.clock = clock
            self.fetcher = fetcher ?? POSIXHTTPFetcher(timeout: fetchTimeout)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    private let hub = DeviceEventHub()
    private let running = Mutex<(socket: POSIXSocket, tasks: [Task<Void, Never>], stopFlag: StopFlag)?>(nil)

    /// Creates a browser; call ``start()`` to search.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Opens the socket and starts searching.
    public func start() async {
        guard running.withLock({ $0 == nil }) else { return }
        hub.reopen()
        for diagnostic in NetworkInterface.multicastDiagnostics(interface: configuration.interface, source: .dial) {
            hub.report(diagnostic)
            if diagnostic.code == .interfaceUnavailable { return }
        }
        let socket: POSIXSocket
        do {
            socket = try Self.openSocket(interface: configuration.interface)
        } catch {
            hub.report(DiscoveryDiagnostic(code: .ssdpFailure, message: "Cannot open the SSDP socket: \(error.message).",
                                           fix: "check that UDP is allowed (iptables -L OUTPUT)", source: .dial))
            return
        }
        let stopFlag = StopFlag()
        let configuration = self.configuration
        let hub = self.hub
        let datagrams = Self.receive(on: socket, until: stopFlag)
        let seen = Mutex<Set<String>>([])
        let listener = Task {
            await withTaskGroup(of: Void.self) { group in
                for await (bytes, sender) in datagrams {
                    guard let response = try? SSDPResponse(parsing: bytes),
                        response.searchTarget == nil || response.searchTarget == configuration.searchTarget
                    else { continue }
                    guard seen.withLock({ $0.insert(response.location).inserted }) else { continue }
                    group.addTask { await Self.follow(response, from: sender, configuration: configuration, hub: hub) }
                }
            }
        }
        let searcher = Task {
            let datagram = SSDPResponse.search(target: configuration.searchTarget)
            for round in 0..<max(1, configuration.searches) {
                if Task.isCancelled || stopFlag.isSet { return }
                if round > 0 { try? await configuration.clock.sleep(for: configuration.interval, tolerance: nil) }
                if Task.isCancelled || stopFlag.isSet { return }
                if !Self.send(datagram, on: socket) {
                    hub.report(DiscoveryDiagnostic(
                        code: .ssdpFailure, message: "Sending the SSDP M-SEARCH failed: \(String(cString: strerror(errno))).",
                        fix: "ip route   (a route to 239.255.255.250 or a default route is needed on the interface)",
                        source: .dial))
                }
            }
        }
        running.withLock { $0 = (socket, [listener, searcher], stopFlag) }
    }

    /// Stops searching and finishes the event streams.
    public func stop() async {
        let current = running.withLock { value -> (socket: POSIXSocket, tasks: [Task<Void, Never>], stopFlag: StopFlag)? in
            defer { value = nil }
            return value
        }
        if let current {
            current.stopFlag.set()
            for task in current.tasks { task.cancel() }
            for task in current.tasks { await task.value }
        }
        hub.finish(removingDevices: true)
    }

    /// See ``DeviceBrowser/events()``.
    public func events() -> AsyncStream<DeviceBrowserEvent> { hub.events() }
    /// See ``DeviceBrowser/devices``.
    public var devices: [CastDevice] { hub.devices }
    /// See ``DeviceBrowser/diagnostics``.
    public var diagnostics: [DiscoveryDiagnostic] { hub.diagnostics }

    /// Fetches and reads one responder's description.
    static func follow(_ response: SSDPResponse, from sender: String, configuration: Configuration, hub: DeviceEventHub) async {
        let key = "dial|\(response.location)"
        func reject(_ message: String) {
            hub.report(DiscoveryDiagnostic(code: .malformedDescription, message: "DIAL device at \(sender) was skipped: \(message)",
                                           subject: response.location, source: .dial))
        }
        guard let url = URL(string: response.location), url.scheme == "http", let host = url.host else {
            return reject("LOCATION \(response.location) is not an http:// URL.")
        }
        guard host == sender else {
            return reject("LOCATION host \(host) is not the responding address \(sender); not followed.")
        }
        let reply: HTTPFetchResponse
        do {
            reply = try await configuration.fetcher.get(url, limit: DIALDeviceDescription.maxSize)
        } catch {
            return reject("fetching \(response.location) failed: \(error.message).")
        }
        guard reply.status == 200 else { return reject("\(response.location) answered HTTP \(reply.status).") }
        guard let applicationURL = reply.headers["application-url"], !applicationURL.isEmpty else {
            return reject("\(response.location) has no Application-URL header, so it is not a DIAL server.")
        }
        do {
            let description = try DIALDeviceDescription(parsing: reply.body)
            let endpoint = CastDeviceEndpoint(address: sender, family: .ipv4, port: CastDevice.devicePort,
                                        interfaceName: configuration.interface)
            let device = CastDevice(
                id: description.id, friendlyName: description.friendlyName, model: description.modelName,
                advertisesCapabilities: false, applicationURL: applicationURL, endpoints: [endpoint], sources: [.dial])
            hub.upsert(key, device)
        } catch {
            reject(error.message)
        }
    }

    static func openSocket(interface: String?) throws(CastDiscoveryError) -> POSIXSocket {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXSocket.error("socket") }
        let socket = POSIXSocket(fd: fd)
        socket.setTimeout(.milliseconds(200))
        var ttl: UInt8 = 4
        setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, 1)
        if let interface {
            guard let address = NetworkInterface.current().first(where: { $0.name == interface })?
                .addresses.first(where: { !$0.contains(":") })
            else {
                throw CastDiscoveryError(code: .socket, message: "interface \(interface) has no IPv4 address")
            }
            var source = in_addr()
            inet_pton(AF_INET, address, &source)
            guard setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &source, socklen_t(MemoryLayout<in_addr>.size)) == 0 else {
                throw POSIXSocket.error("IP_MULTICAST_IF \(interface)")
            }
            var bindAddress = sockaddr_in()
            bindAddress.sin_family = sa_family_t(AF_INET)
            bindAddress.sin_addr = source
            let bound = withUnsafePointer(to: &bindAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw POSIXSocket.error("bind \(address)") }
        }
        return socket
    }

    static func send(_ datagram: [UInt8], on socket: POSIXSocket) -> Bool {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(1900).bigEndian
        inet_pton(AF_INET, "239.255.255.250", &target.sin_addr)
        let sent = datagram.withUnsafeBytes { bytes in
            withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket.fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return sent == datagram.count
    }

    /// Datagrams and their sender address, read on a dedicated thread until `stop` is set.
    static func receive(on socket: POSIXSocket, until stop: StopFlag) -> AsyncStream<([UInt8], String)> {
        AsyncStream { continuation in
            let thread = Thread {
                var buffer = [UInt8](repeating: 0, count: SSDPResponse.maxSize + 1)
                while !stop.isSet {
                    var sender = sockaddr_in()
                    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let count = buffer.withUnsafeMutableBytes { bytes in
                        withUnsafeMutablePointer(to: &sender) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                recvfrom(socket.fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                            }
                        }
                    }
                    guard count > 0 else { continue }  // timeout (EAGAIN): check the stop flag
                    guard count <= SSDPResponse.maxSize else { continue }
                    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    inet_ntop(AF_INET, &sender.sin_addr, &text, socklen_t(text.count))
                    let address = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                    continuation.yield((Array(buffer[..<count]), address))
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}

/// A flag set once, read from any thread.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
