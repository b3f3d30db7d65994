import CastDiscoveryCore
import CastHTTP
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Finds DIAL devices with SSDP: M-SEARCH for `urn:dial-multiscreen-org:service:dial:1` on one
/// interface, fetch each `LOCATION`, require the `Application-URL` header and read the device
/// description.
///
/// Only responses whose `LOCATION` points at the address that sent them are followed (a
/// responder cannot make this host fetch from a third party). Devices found this way have no
/// capabilities (`CastDevice.advertisesCapabilities` is false) and are reached at the
/// description's host on port 8009, as Chrome does. Modern Chromecasts mostly stopped answering
/// DIAL; use it alongside mDNS in a `MergedDeviceBrowser`.
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
            self.fetcher = fetcher ?? BoundedHTTPFetcher(timeout: fetchTimeout)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    private let hub = DeviceEventHub()
    private let running = Mutex<(channel: any Channel, tasks: [Task<Void, Never>])?>(nil)

    /// Creates a browser; call ``start()`` to search.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Opens the UDP socket (on SwiftNIO's shared event loops) and starts searching.
    public func start() async {
        guard running.withLock({ $0 == nil }) else { return }
        hub.reopen()
        for diagnostic in NetworkInterface.multicastDiagnostics(interface: configuration.interface, source: .dial) {
            hub.report(diagnostic)
            if diagnostic.code == .interfaceUnavailable { return }
        }
        let (datagrams, continuation) = AsyncStream.makeStream(
            of: SSDPDatagram.self, bufferingPolicy: .bufferingNewest(Self.pendingDatagrams))
        let channel: any Channel
        do {
            channel = try await Self.openChannel(interface: configuration.interface, delivering: continuation)
        } catch {
            continuation.finish()
            hub.report(DiscoveryDiagnostic(code: .ssdpFailure, message: "Cannot open the SSDP socket: \(error.message).",
                                           fix: "check that UDP is allowed (iptables -L OUTPUT)", source: .dial))
            return
        }
        let configuration = self.configuration
        let hub = self.hub
        let seen = Mutex<Set<String>>([])
        let listener = Task {
            await withTaskGroup(of: Void.self) { group in
                for await datagram in datagrams {
                    guard let response = try? SSDPResponse(parsing: datagram.bytes),
                        response.searchTarget == nil || response.searchTarget == configuration.searchTarget
                    else { continue }
                    guard seen.withLock({ $0.count < Self.maximumResponders && $0.insert(response.location).inserted }) else {
                        continue
                    }
                    group.addTask { await Self.follow(response, from: datagram.sender, configuration: configuration, hub: hub) }
                }
            }
        }
        let searcher = Task {
            let datagram = SSDPResponse.search(target: configuration.searchTarget)
            let target: SocketAddress
            do { target = try SocketAddress(ipAddress: "239.255.255.250", port: 1900) } catch { return }
            for round in 0..<max(1, configuration.searches) {
                if Task.isCancelled { return }
                if round > 0 {
                    do { try await configuration.clock.sleep(for: configuration.interval, tolerance: nil) } catch { return }
                }
                do {
                    try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: datagram)))
                } catch {
                    hub.report(DiscoveryDiagnostic(
                        code: .ssdpFailure, message: "Sending the SSDP M-SEARCH failed: \(error).",
                        fix: "ip route   (a route to 239.255.255.250 or a default route is needed on the interface)",
                        source: .dial))
                }
            }
        }
        running.withLock { $0 = (channel, [listener, searcher]) }
    }

    /// Stops searching and finishes the event streams.
    public func stop() async {
        let current = running.withLock { value -> (channel: any Channel, tasks: [Task<Void, Never>])? in
            defer { value = nil }
            return value
        }
        if let current {
            for task in current.tasks { task.cancel() }
            // Closing the channel finishes the datagram stream, which ends the listener.
            try? await current.channel.close()
            for task in current.tasks { await task.value }
        }
        hub.finish(removingDevices: true)
    }

    /// See `DeviceBrowser.events()`.
    public func events() -> AsyncStream<DeviceBrowserEvent> { hub.events() }
    /// See `DeviceBrowser.devices`.
    public var devices: [CastDevice] { hub.devices }
    /// See `DeviceBrowser.diagnostics`.
    public var diagnostics: [DiscoveryDiagnostic] { hub.diagnostics }
    /// `DiscoverySource.dial`.
    public var discoverySource: DiscoverySource { .dial }

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

    /// Datagrams waiting for the listener; beyond this the oldest are dropped (a flood of answers
    /// cannot grow memory).
    static let pendingDatagrams = 64
    /// Distinct `LOCATION`s followed in one run; further responders are ignored.
    static let maximumResponders = 256

    /// Binds a UDP socket (to the interface's first IPv4 address when one is named, multicast sent
    /// through it) whose datagrams, each at most `SSDPResponse.maxSize` bytes, go to `continuation`.
    static func openChannel(
        interface: String?, delivering continuation: AsyncStream<SSDPDatagram>.Continuation
    ) async throws(CastDiscoveryError) -> any Channel {
        var bindAddress = "0.0.0.0"
        if let interface {
            guard let address = NetworkInterface.current().first(where: { $0.name == interface })?
                .addresses.first(where: { !$0.contains(":") })
            else {
                throw CastDiscoveryError(code: .socket, message: "interface \(interface) has no IPv4 address")
            }
            bindAddress = address
        }
        let bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: SSDPResponse.maxSize + 1))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SSDPDatagramHandler(continuation: continuation))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: bindAddress, port: 0).get()
        } catch {
            throw CastDiscoveryError(code: .socket, message: "bind \(bindAddress): \(error)", cause: error)
        }
        do {
            guard let options = channel as? any SocketOptionProvider else {
                throw CastDiscoveryError(code: .socket, message: "the UDP channel takes no socket options")
            }
            try await options.setIPMulticastTTL(4).get()
            if interface != nil {
                var source = in_addr()
                inet_pton(AF_INET, bindAddress, &source)
                try await options.setIPMulticastIF(source).get()
            }
        } catch {
            try? await channel.close()
            if let error = error as? CastDiscoveryError { throw error }
            throw CastDiscoveryError(code: .socket, message: "IP_MULTICAST options: \(error)", cause: error)
        }
        return channel
    }
}

/// One UDP datagram and the address that sent it.
struct SSDPDatagram: Sendable {
    var bytes: [UInt8]
    var sender: String
}

/// Hands every datagram that fits `SSDPResponse.maxSize` to the browser's bounded stream, and finishes
/// the stream when the channel closes.
private final class SSDPDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let continuation: AsyncStream<SSDPDatagram>.Continuation

    init(continuation: AsyncStream<SSDPDatagram>.Continuation) { self.continuation = continuation }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        guard envelope.data.readableBytes <= SSDPResponse.maxSize, let sender = envelope.remoteAddress.ipAddress,
            let bytes = envelope.data.readBytes(length: envelope.data.readableBytes)
        else { return }
        continuation.yield(SSDPDatagram(bytes: bytes, sender: sender))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A failed read on a UDP socket (an ICMP error for an earlier send) does not end the search.
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }
}
