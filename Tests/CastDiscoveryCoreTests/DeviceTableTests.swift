import CastDiscoveryTestSupport
import Testing

@testable import CastDiscoveryCore

@Suite struct DeviceTableTests {
    @Test func addUpdateRemove() {
        var table = DeviceTable()
        let device = makeDevice()
        #expect(table.upsert("a", device) == [.added(device)])
        #expect(table.upsert("a", device) == [])  // nothing changed: no event
        let busy = makeDevice(status: "YouTube")
        #expect(table.upsert("a", busy) == [.updated(busy)])
        #expect(table.remove("a") == [.removed(busy)])
        #expect(table.remove("a") == [])
        #expect(table.devices.isEmpty)
    }

    @Test func observationsOfOneIdMergeIntoOneDevice() throws {
        var table = DeviceTable()
        let v4 = makeDevice(address: "10.0.0.5")
        let v6 = makeDevice(address: "fe80::1")
        _ = table.upsert("mdns|v4", v4)
        let events = table.upsert("mdns|v6", v6)
        let merged = try #require(events.first?.device)
        #expect(events.count == 1 && events.first == .updated(merged))
        #expect(merged.endpoints == v4.endpoints.union(v6.endpoints))
        #expect(table.devices.count == 1)
        // Losing one address is an update; losing the last is a removal.
        #expect(table.remove("mdns|v4") == [.updated(v6)])
        #expect(table.remove("mdns|v6") == [.removed(v6)])
    }

    @Test func aGroupWhoseLeaderMovesIsAnUpdate() {
        var table = DeviceTable()
        let group = "fedcba9876543210fedcba9876543210"
        let before = makeDevice(group, name: "Downstairs", address: "10.0.0.7", port: 32_187)
        _ = table.upsert("mdns|Google-Cast-Group", before)
        // Same service, same id, the new leader answers from another address and port.
        let after = makeDevice(group, name: "Downstairs", address: "10.0.0.9", port: 32_190)
        #expect(table.upsert("mdns|Google-Cast-Group", after) == [.updated(after)])
        #expect(table.devices == [after])
        // Announced by the new leader under a new observation while the old one lingers: still one device.
        var table2 = DeviceTable()
        _ = table2.upsert("mdns|if2|old", before)
        _ = table2.upsert("mdns|if2|new", after)
        #expect(table2.devices.count == 1)
        #expect(table2.remove("mdns|if2|old") == [.updated(after)])
    }

    @Test func anObservationChangingIdMovesBetweenDevices() {
        var table = DeviceTable()
        let first = makeDevice("11111111111111111111111111111111")
        let second = makeDevice("22222222222222222222222222222222")
        _ = table.upsert("k", first)
        #expect(table.upsert("k", second) == [.removed(first), .added(second)])
    }

    @Test func mdnsFieldsWinOverDialAndGapsAreFilled() {
        var table = DeviceTable()
        var dial = makeDevice(name: "DIAL name", source: .dial)
        dial.applicationURL = "http://10.0.0.5:8008/apps/"
        dial.model = nil
        _ = table.upsert("dial|x", dial)
        let mdns = makeDevice(name: "mDNS name", source: .mdns)
        _ = table.upsert("mdns|x", mdns)
        let merged = table.devices[0]
        #expect(merged.friendlyName == "mDNS name")
        #expect(merged.model == "Chromecast")
        #expect(merged.applicationURL == "http://10.0.0.5:8008/apps/")
        #expect(merged.sources == [.mdns, .dial])
    }

    @Test func hubStreamsStartWithASnapshot() async {
        let hub = DeviceEventHub()
        let device = makeDevice()
        hub.upsert("a", device)
        let diagnostic = DiscoveryDiagnostic(code: .noAnswer, message: "m", source: .mdns)
        hub.report(diagnostic)
        hub.report(diagnostic)  // unchanged: not repeated
        let stream = hub.events()
        hub.remove("a")
        hub.finish(removingDevices: true)
        var events: [DeviceBrowserEvent] = []
        for await event in stream { events.append(event) }
        #expect(events == [.added(device), .diagnostic(diagnostic), .removed(device)])
    }
}

@Suite struct MergedBrowserTests {
    @Test func deduplicatesByIdAcrossSources() async {
        let mdns = ScriptedBrowser(), known = ScriptedBrowser()
        let merged = MergedDeviceBrowser([mdns, known])
        let events = merged.events()
        await merged.start()
        var iterator = events.makeAsyncIterator()
        mdns.hub.upsert("x", makeDevice(address: "10.0.0.5", source: .mdns))
        guard case .added(let first)? = await iterator.next() else { Issue.record("expected added"); return }
        #expect(first.sources == [.mdns])
        known.hub.upsert("y", makeDevice(name: "10.0.0.5", address: "10.0.0.5", source: .knownHost))
        guard case .updated(let both)? = await iterator.next() else { Issue.record("expected updated"); return }
        #expect(both.sources == [.mdns, .knownHost])
        #expect(both.friendlyName == "TV")  // mDNS's name wins over the known host's address
        #expect(merged.devices.count == 1)
        mdns.hub.remove("x")
        guard case .updated(let knownOnly)? = await iterator.next() else { Issue.record("expected updated"); return }
        #expect(knownOnly.sources == [.knownHost])
        known.hub.remove("y")
        guard case .removed? = await iterator.next() else { Issue.record("expected removed"); return }
        let diagnostic = DiscoveryDiagnostic(code: .hostRefused, message: "refused", subject: "10.0.0.9:8009", source: .knownHost)
        known.hub.report(diagnostic)
        #expect(await iterator.next() == .diagnostic(diagnostic))
        #expect(merged.diagnostics == [diagnostic])
        await merged.stop()
        #expect(await iterator.next() == nil)
    }
}
