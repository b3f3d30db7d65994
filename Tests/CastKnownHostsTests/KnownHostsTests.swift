import CastDiscoveryTestSupport
import Foundation
import CastJSON
import CastTestSupport
import CastTLS
import Synchronization
import Testing

@testable import CastDiscoveryCore
@testable import CastKnownHosts

/// A prober answering from a script the test changes.
final class FakeProber: CastDeviceProber {
    let answers = Mutex<[KnownHost: Result<CastDevice, CastDiscoveryError>]>([:])
    func set(_ host: KnownHost, _ answer: Result<CastDevice, CastDiscoveryError>) { answers.withLock { $0[host] = answer } }
    func probe(_ host: KnownHost) async throws(CastDiscoveryError) -> CastDevice {
        let answer = answers.withLock { $0[host] } ?? .failure(CastDiscoveryError(code: .socket, message: "no route"))
        return try answer.get()
    }
}

/// Answers `eureka_info` without any network.
final class FakeEurekaFetcher: HTTPFetcher {
    let body: String
    init(body: String) { self.body = body }
    let asked = Mutex<[String]>([])
    func get(_ url: URL, limit: Int) async throws(CastDiscoveryError) -> HTTPFetchResponse {
        asked.withLock { $0.append(url.absoluteString) }
        return HTTPFetchResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }
}

@Suite struct KnownHostsTests {
    @Test func parsesHostPortForms() throws {
        #expect(try KnownHost(parsing: "10.0.0.5") == KnownHost(host: "10.0.0.5", port: 8009))
        #expect(try KnownHost(parsing: "10.0.0.5:32187") == KnownHost(host: "10.0.0.5", port: 32_187))
        #expect(try KnownHost(parsing: "[fe80::1%eth0]:8009") == KnownHost(host: "fe80::1%eth0", port: 8009))
        #expect(try KnownHost(parsing: "fe80::1") == KnownHost(host: "fe80::1", port: 8009))
        #expect(try KnownHost(parsing: "tv.local").endpoint.family == .hostname)
        expectCode(.invalidArgument) { _ = try KnownHost(parsing: "10.0.0.5:99999") }
        expectCode(.invalidArgument) { _ = try KnownHost(parsing: "10.0.0.5:http") }
        expectCode(.invalidArgument) { _ = try KnownHost(parsing: "[::1") }
        expectCode(.invalidArgument) { _ = try KnownHost(parsing: "") }
    }

    @Test func probesPeriodicallyAndExplainsFailures() async throws {
        let clock = ManualClock()
        let prober = FakeProber()
        let good = KnownHost(host: "10.0.0.5"), closed = KnownHost(host: "10.0.0.6")
        prober.set(good, .success(makeDevice(address: "10.0.0.5", source: .knownHost)))
        prober.set(closed, .failure(CastDiscoveryError(code: .connectionRefused, message: "refused")))
        let browser = KnownHostsBrowser(
            configuration: .init(hosts: [good, closed], interval: .seconds(30), missesBeforeRemoval: 2, clock: clock),
            prober: prober)
        var events = browser.events().makeAsyncIterator()
        await browser.start()
        // Round 1, at once: the device appears; the closed port is explained.
        var round1: [DeviceBrowserEvent] = []
        for _ in 0..<2 { if let event = await events.next() { round1.append(event) } }
        let added = try #require(round1.compactMap { if case .added(let d) = $0 { d } else { nil } }.first)
        #expect(added.sources == [.knownHost])
        let refused = try #require(round1.compactMap { if case .diagnostic(let d) = $0 { d } else { nil } }.first)
        #expect(refused.code == .hostRefused && refused.subject == "10.0.0.6:8009")
        #expect(refused.fix?.contains("nc -vz 10.0.0.6 8009") == true)

        // The device stops answering: one miss keeps it (with a diagnostic), the second removes it.
        prober.set(good, .failure(CastDiscoveryError(code: .socket, message: "connect timed out")))
        try await waitUntil("the browser sleeps until its second round") {
            clock.sleeperDeadlines.contains(ManualClock.Instant(offset: .seconds(30)))
        }
        await clock.advance(by: .seconds(30))
        let miss = await events.next()
        guard case .diagnostic(let unreachable)? = miss else { Issue.record("expected a diagnostic, got \(String(describing: miss))"); return }
        #expect(unreachable.code == .hostUnreachable && unreachable.subject == "10.0.0.5:8009")
        #expect(browser.devices.count == 1)
        try await waitUntil("the browser sleeps until its third round") {
            clock.sleeperDeadlines.contains(ManualClock.Instant(offset: .seconds(60)))
        }
        await clock.advance(by: .seconds(30))
        guard case .removed(let removed)? = await events.next() else { Issue.record("expected removal"); return }
        #expect(removed.id == added.id)
        #expect(browser.devices.isEmpty)
        await browser.stop()
    }

    @Test func tlsProberReadsAReceiverOverLoopback() async throws {
        let server = try await CastTransportServer.start(host: "127.0.0.1", port: 0)
        let peers = Mutex<[ScriptedCastPeer]>([])
        let accept = Task {
            for await connection in server.connections {
                // A minimal receiver platform: GET_STATUS answered with a running app.
                let peer = ScriptedCastPeer(transport: connection)
                peer.on(namespace: "urn:x-cast:com.google.cast.receiver", type: "GET_STATUS") { message, json in
                    [message.reply(json: [
                        "type": "RECEIVER_STATUS", "requestId": json["requestId"]!,
                        "status": ["volume": ["level": 0.5, "muted": false], "applications": [[
                            "appId": "CC1AD845", "displayName": "Default Media Receiver", "sessionId": "s-1",
                            "transportId": "t-1", "isIdleScreen": false, "statusText": "Ready To Cast", "namespaces": [],
                        ]]],
                    ])]
                }
                peer.start()
                peers.withLock { $0.append(peer) }
            }
        }
        defer { accept.cancel() }
        let host = KnownHost(host: "127.0.0.1", port: server.port)
        // No eureka_info on this "device" (nothing on 127.0.0.1:8008 is asked: askEurekaInfo off).
        // A budget no loaded machine runs out of: since device authentication and the first
        // GET_STATUS share the request timeout, 5 s was used up by a loopback handshake under make test
        // (the connect, TCP and the TLS handshake, has its own 5 s by default: widened too).
        let prober = TLSStatusProber(connectTimeout: .seconds(60), requestTimeout: .seconds(60), askEurekaInfo: false)
        let device = try await prober.probe(host)
        #expect(device.id == CastDeviceID.derived(from: "127.0.0.1:\(server.port)"))
        #expect(device.friendlyName == "127.0.0.1")
        #expect(device.endpoints == [CastDeviceEndpoint(address: "127.0.0.1", family: .ipv4, port: server.port)])
        #expect(device.receiverStatusText == "Ready To Cast")
        #expect(device.isBusy == true)
        #expect(peers.withLock { $0.count } == 1)
        await server.close()
    }

    @Test func tlsProberTakesTheIdentityFromEurekaInfo() async throws {
        let server = try await CastTransportServer.start(host: "127.0.0.1", port: 0)
        let accept = Task {
            for await connection in server.connections {
                let peer = ScriptedCastPeer(transport: connection)
                peer.on(namespace: "urn:x-cast:com.google.cast.receiver", type: "GET_STATUS") { message, json in
                    [message.reply(json: ["type": "RECEIVER_STATUS", "requestId": json["requestId"]!,
                                          "status": ["volume": ["level": 0.3, "muted": false]]])]
                }
                peer.start()
            }
        }
        defer { accept.cancel() }
        let fetcher = FakeEurekaFetcher(body: """
            {"name": "Kitchen speaker", "ssdp_udn": "99f3c58b-f347-1cc1-0cd8-7f79d33599cf", "cast_build_revision": "1.56.500000",
             "device_info": {"model_name": "Google Home Mini", "manufacturer": "Google Inc.",
                             "capabilities": {"display_supported": false, "multizone_supported": true}}}
            """)
        let device = try await TLSStatusProber(connectTimeout: .seconds(60), requestTimeout: .seconds(60), fetcher: fetcher)
            .probe(KnownHost(host: "127.0.0.1", port: server.port))
        #expect(fetcher.asked.withLock { $0 } == ["http://127.0.0.1:8008/setup/eureka_info?params=name,device_info"])
        #expect(device.id.description == "99f3c58b-f347-1cc1-0cd8-7f79d33599cf")
        #expect(device.friendlyName == "Kitchen speaker")
        #expect(device.model == "Google Home Mini")
        #expect(device.buildRevision == "1.56.500000")
        #expect(device.capabilities == [.audioOut])
        #expect(device.isBusy == false && device.receiverStatusText == nil)
        await server.close()
    }

    @Test func tlsProberReportsARefusedPort() async throws {
        // A port bound without listening: connections are refused, and no parallel test can take it.
        let refusing = try RefusingPort()
        let port = refusing.port
        do {
            _ = try await TLSStatusProber(askEurekaInfo: false).probe(KnownHost(host: "127.0.0.1", port: port))
            Issue.record("a closed port answered")
        } catch {
            #expect(error.code == .connectionRefused, "\(error)")
            let diagnostic = KnownHostsBrowser.diagnostic(for: error, host: KnownHost(host: "127.0.0.1", port: port))
            #expect(diagnostic.code == .hostRefused)
        }
        _ = refusing
    }
}
