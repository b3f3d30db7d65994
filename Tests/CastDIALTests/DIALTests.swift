import CastDiscoveryTestSupport
import Foundation
import CastTestSupport
import Testing

@testable import CastDIAL
@testable import CastDiscovery
@testable import CastDiscoveryCore

let realDescription = """
    <?xml version="1.0"?>
    <root xmlns="urn:schemas-upnp-org:device-1-0">
      <specVersion><major>1</major><minor>0</minor></specVersion>
      <device>
        <deviceType>urn:dial-multiscreen-org:device:dial:1</deviceType>
        <friendlyName>Living Room</friendlyName>
        <manufacturer>Google Inc.</manufacturer>
        <modelName>Eureka Dongle</modelName>
        <UDN>uuid:3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26</UDN>
      </device>
    </root>
    """

@Suite struct DIALTests {
    @Test func readsARealDescription() throws {
        let description = try DIALDeviceDescription(parsing: Array(realDescription.utf8))
        #expect(description.id.description == "3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26")
        #expect(description.friendlyName == "Living Room")
        #expect(description.modelName == "Eureka Dongle")
        #expect(description.manufacturer == "Google Inc.")
        #expect(description.deviceType == "urn:dial-multiscreen-org:device:dial:1")
    }

    @Test func missingNameFallsBackLikeChrome() throws {
        let xml = "<root><device><modelName>Chromecast</modelName><UDN>uuid:3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26</UDN></device></root>"
        #expect(try DIALDeviceDescription(parsing: Array(xml.utf8)).friendlyName == "Chromecast [1b26]")
    }

    @Test(arguments: [
        // External entity reading a local file.
        """
        <?xml version="1.0"?><!DOCTYPE root [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
        <root><device><friendlyName>&xxe;</friendlyName><UDN>uuid:3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26</UDN></device></root>
        """,
        // Billion laughs.
        """
        <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
        <root><device><friendlyName>&lol3;</friendlyName><UDN>uuid:3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26</UDN></device></root>
        """,
        // Deep nesting.
        "<root><device>" + String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000) + "</device></root>",
        // Not XML, wrong root, no device, no or bad UDN.
        "HTTP/1.1 404 Not Found",
        "<html><body>hi</body></html>",
        "<root><specVersion/></root>",
        "<root><device><friendlyName>TV</friendlyName></device></root>",
        "<root><device><UDN>uuid:not-a-uuid</UDN></device></root>",
    ])
    func hostileOrBrokenDescriptionsAreRejected(xml: String) {
        expectCode(.invalidDescription) { _ = try DIALDeviceDescription(parsing: Array(xml.utf8)) }
    }

    @Test func aTenMegabyteDescriptionIsRejectedBeforeParsing() {
        let huge = Array("<root><device><friendlyName>".utf8) + [UInt8](repeating: 0x41, count: 10 * 1024 * 1024)
            + Array("</friendlyName></device></root>".utf8)
        expectCode(.invalidDescription) { _ = try DIALDeviceDescription(parsing: huge) }
    }

    @Test func parsesSSDPResponses() throws {
        let text = "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nEXT:\r\n"
            + "LOCATION: http://192.168.1.20:8008/ssdp/device-desc.xml\r\nST: urn:dial-multiscreen-org:service:dial:1\r\n"
            + "USN: uuid:3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26::urn:dial-multiscreen-org:service:dial:1\r\nCONFIGID.UPNP.ORG: 7\r\n\r\n"
        let response = try SSDPResponse(parsing: Array(text.utf8))
        #expect(response.location == "http://192.168.1.20:8008/ssdp/device-desc.xml")
        #expect(response.searchTarget == "urn:dial-multiscreen-org:service:dial:1")
        #expect(response.maxAge == 1800)
        #expect(response.configID == 7)
        #expect(response.usn?.hasPrefix("uuid:3e1cc7c8") == true)
        expectCode(.malformedResponse) { _ = try SSDPResponse(parsing: Array("NOTIFY * HTTP/1.1\r\n\r\n".utf8)) }
        expectCode(.malformedResponse) { _ = try SSDPResponse(parsing: Array("HTTP/1.1 200 OK\r\nST: x\r\n\r\n".utf8)) }
        expectCode(.malformedResponse) { _ = try SSDPResponse(parsing: [0xff, 0xfe]) }
        let search = String(decoding: SSDPResponse.search(target: "urn:dial-multiscreen-org:service:dial:1"), as: UTF8.self)
        #expect(search.hasPrefix("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\n"))
    }
}

@Suite struct DiagnosticsTests {
    static let loopback = NetworkInterface(name: "lo", index: 1, isUp: true, isRunning: true, isLoopback: true,
                                           supportsMulticast: false, addresses: ["127.0.0.1"])

    @Test func onlyLoopbackMeansNoMulticastInterface() throws {
        let diagnostics = NetworkInterface.multicastDiagnostics(interface: nil, source: .mdns, interfaces: [Self.loopback])
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == .noMulticastInterface)
        #expect(diagnostic.message.contains("only the loopback interface exists"))
    }

    @Test func aDownInterfaceIsNamedWithTheFix() throws {
        let down = NetworkInterface(name: "eth0", index: 2, isUp: false, isRunning: false, isLoopback: false,
                                    supportsMulticast: true, addresses: [])
        let diagnostic = try #require(NetworkInterface.multicastDiagnostics(interface: nil, source: .mdns,
                                                                           interfaces: [Self.loopback, down]).first)
        #expect(diagnostic.code == .noMulticastInterface && diagnostic.fix == "sudo ip link set eth0 up")
        let chosen = try #require(NetworkInterface.multicastDiagnostics(interface: "eth0", source: .dial,
                                                                       interfaces: [Self.loopback, down]).first)
        #expect(chosen.code == .interfaceUnavailable && chosen.fix == "sudo ip link set eth0 up")
        let missing = try #require(NetworkInterface.multicastDiagnostics(interface: "wlan9", source: .dial,
                                                                        interfaces: [Self.loopback, down]).first)
        #expect(missing.code == .interfaceUnavailable && missing.subject == "wlan9")
        let up = NetworkInterface(name: "eth0", index: 2, isUp: true, isRunning: true, isLoopback: false,
                                  supportsMulticast: true, addresses: ["10.0.0.2"])
        #expect(NetworkInterface.multicastDiagnostics(interface: nil, source: .mdns, interfaces: [Self.loopback, up]).isEmpty)
        #expect(NetworkInterface.multicastDiagnostics(interface: "eth0", source: .mdns, interfaces: [up]).isEmpty)
    }

    @Test func thisHostsInterfacesAreRead() {
        let interfaces = NetworkInterface.current()
        #expect(interfaces.contains { $0.isLoopback && $0.addresses.contains("127.0.0.1") })
    }

    @Test func anEmptyReportIsNeverSilent() throws {
        let report = DiscoveryReport(devices: [], diagnostics: [], timeout: .seconds(5))
        let diagnostic = try #require(report.diagnostics.first)
        #expect(diagnostic.code == .noAnswer && diagnostic.message.contains("5 s"))
        // A known cause replaces the generic "no answer".
        let daemon = DiscoveryDiagnostic(code: .avahiDaemonNotRunning, message: "not running", fix: "start it", source: .mdns)
        #expect(DiscoveryReport(devices: [], diagnostics: [daemon], timeout: .seconds(5)).diagnostics == [daemon])
        // Transient problems seen during the run are kept when nothing was found.
        let refused = DiscoveryDiagnostic(code: .hostRefused, message: "refused", subject: "h:8009", source: .knownHost)
        let withRefusal = DiscoveryReport(devices: [], diagnostics: [], seenDiagnostics: [refused], timeout: .seconds(2), source: .knownHost)
        #expect(withRefusal.diagnostics.first == refused)
        #expect(withRefusal.diagnostics.last?.code == .noAnswer)
        #expect(DiscoveryReport(devices: [makeDevice()], diagnostics: [], timeout: .seconds(5)).diagnostics.isEmpty)
    }

    @Test func discoverRunsForTheTimeoutOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let browser = ScriptedBrowser()
        let run = Task { await browser.discover(timeout: .seconds(3), clock: clock) }
        try await waitUntil("discover sleeps for its timeout") { clock.sleeperDeadlines.contains(ManualClock.Instant(offset: .seconds(3))) }
        browser.hub.upsert("x", makeDevice())
        await clock.advance(by: .seconds(3))
        let report = await run.value
        #expect(report.devices.map(\.friendlyName) == ["TV"])
        #expect(report.diagnostics.isEmpty)
    }

    @Test func avahiErrorsMapToTheirFix() {
        let daemon = Avahi.daemonDiagnostic(source: .mdns)
        #expect(daemon.code == .avahiDaemonNotRunning && daemon.fix?.contains("systemctl enable --now avahi-daemon") == true)
        let bus = Avahi.busDiagnostic(socket: "/run/dbus/system_bus_socket", source: .mdns)
        #expect(bus.code == .dbusUnreachable && bus.fix?.contains("systemctl start dbus") == true)
    }
}

/// Serves canned HTTP answers by URL, with no network.
final class CannedFetcher: HTTPFetcher {
    let answers: [String: HTTPFetchResponse]
    init(_ answers: [String: HTTPFetchResponse]) { self.answers = answers }
    func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse {
        guard let answer = answers[url.absoluteString] else {
            throw CastDiscoveryError(code: .http, message: "connection refused by the test")
        }
        return answer
    }
}

@Suite struct SSDPFollowTests {
    static let location = "http://10.0.0.8:8008/ssdp/device-desc.xml"

    static func response(location: String = location) throws -> SSDPResponse {
        try SSDPResponse(parsing: Array(("HTTP/1.1 200 OK\r\nLOCATION: \(location)\r\n"
            + "ST: urn:dial-multiscreen-org:service:dial:1\r\n\r\n").utf8))
    }

    static func follow(_ response: SSDPResponse, from sender: String, answers: [String: HTTPFetchResponse]) async -> DeviceEventHub {
        let hub = DeviceEventHub()
        await SSDPDeviceBrowser.follow(response, from: sender, configuration: .init(interface: "eth0", fetcher: CannedFetcher(answers)),
                                       hub: hub)
        return hub
    }

    @Test func aGoodResponderBecomesADevice() async throws {
        let hub = await Self.follow(try Self.response(), from: "10.0.0.8", answers: [
            Self.location: HTTPFetchResponse(status: 200, headers: ["application-url": "http://10.0.0.8:8008/apps/"],
                                             body: Array(realDescription.utf8)),
        ])
        let device = try #require(hub.devices.first)
        #expect(device.friendlyName == "Living Room" && device.sources == [.dial] && !device.advertisesCapabilities)
        #expect(device.applicationURL == "http://10.0.0.8:8008/apps/")
        #expect(device.endpoints == [CastDeviceEndpoint(address: "10.0.0.8", family: .ipv4, port: 8009, interfaceName: "eth0")])
        #expect(hub.diagnostics.isEmpty)
    }

    @Test func aLocationOnAnotherHostIsNotFollowed() async throws {
        // A responder at 10.0.0.8 pointing at 10.0.0.99: never fetched (the canned fetcher has it).
        let elsewhere = "http://10.0.0.99:8008/ssdp/device-desc.xml"
        let hub = await Self.follow(try Self.response(location: elsewhere), from: "10.0.0.8", answers: [
            elsewhere: HTTPFetchResponse(status: 200, headers: ["application-url": "x"], body: Array(realDescription.utf8)),
        ])
        #expect(hub.devices.isEmpty)
        #expect(hub.diagnostics.first?.code == .malformedDescription)
        #expect(hub.diagnostics.first?.message.contains("not the responding address") == true)
    }

    @Test func aServerWithoutApplicationURLIsNotDIAL() async throws {
        let hub = await Self.follow(try Self.response(), from: "10.0.0.8", answers: [
            Self.location: HTTPFetchResponse(status: 200, headers: [:], body: Array(realDescription.utf8)),
        ])
        #expect(hub.devices.isEmpty)
        #expect(hub.diagnostics.first?.message.contains("Application-URL") == true)
    }

    @Test func hostileDescriptionsAndHTTPErrorsAreSkippedWithADiagnostic() async throws {
        let xxe = """
            <?xml version="1.0"?><!DOCTYPE root [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <root><device><friendlyName>&xxe;</friendlyName><UDN>uuid:3e1cc7c8-f0f6-1c6e-4bd5-4c3a7cfb1b26</UDN></device></root>
            """
        for answer in [HTTPFetchResponse(status: 200, headers: ["application-url": "x"], body: Array(xxe.utf8)),
                       HTTPFetchResponse(status: 404, headers: [:], body: [])] {
            let hub = await Self.follow(try Self.response(), from: "10.0.0.8", answers: [Self.location: answer])
            #expect(hub.devices.isEmpty)
            #expect(hub.diagnostics.first?.code == .malformedDescription)
        }
        let refused = await Self.follow(try Self.response(), from: "10.0.0.8", answers: [:])
        #expect(refused.diagnostics.first?.message.contains("connection refused by the test") == true)
    }
}
