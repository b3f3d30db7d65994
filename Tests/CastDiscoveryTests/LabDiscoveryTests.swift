import Foundation
import Testing

@testable import CastDiscoveryCore

/// Real mDNS and SSDP between two network namespaces (scripts/lab/castlab.sh). Root only: CI
/// runs these as root; elsewhere they are skipped with the reason.
@Suite(.serialized, .enabled(if: isRoot, "needs root to create network namespaces (CI runs the lab tests as root)"))
struct LabDiscoveryTests {
    let deviceID = "0123456789abcdef0123456789abcdef"
    let dashedID = "01234567-89ab-cdef-0123-456789abcdef"

    func tool() throws -> String {
        guard let tool = LabPaths.tool else {
            throw LabError(description: "CastDiscoveryLabTool not built: run `swift build --build-tests` first")
        }
        return tool
    }

    func python() throws -> String {
        guard let python = LabPaths.python else {
            throw LabError(description: "no .venv with pychromecast: run `scripts/bootstrap.sh test`")
        }
        return python
    }

    /// The name `process` (a lab tool `publish`) has registered now.
    static func registeredName(_ process: LabProcess) async -> String? {
        process.send("name")
        return await process.next { $0["name"] != nil }?["name"] as? String
    }

    /// Whether `process` reported a registration under `name` (already read, or still to come).
    static func reportedRegistration(_ process: LabProcess, _ name: String) async -> Bool {
        func matches(_ event: [String: Any]) -> Bool { event["registered"] as? String == name }
        if process.didPrint(where: matches) { return true }
        return await process.next(where: matches) != nil
    }

    static func device(_ event: [String: Any]) -> [String: Any] { event["device"] as? [String: Any] ?? [:] }
    static func endpoints(_ device: [String: Any]) -> [[String: Any]] { device["endpoints"] as? [[String: Any]] ?? [] }

    @Test func ourPublisherIsFoundAcrossTheVethThenRemoved() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let tool = try tool()
        let browser = try lab.spawn("b", [tool, "browse"])
        let publisher = try lab.spawn("a", [tool, "publish", "--name", "Castor-Lab-TV", "--port", "8009",
                                            "id=\(deviceID)", "fn=Lab TV", "md=Castor Emulator", "ca=4101", "ve=05", "st=0", "rs="])
        let published = await publisher.next { $0["published"] != nil }
        #expect(published?["published"] as? String == "Castor-Lab-TV")

        // Found with the right name, model, capabilities and IPv4 address on the veth.
        let found = await browser.next { event in
            let device = Self.device(event)
            return (event["event"] as? String == "added" || event["event"] as? String == "updated")
                && Self.endpoints(device).contains { $0["address"] as? String == LabNetwork.addressA }
        }
        let device = try #require(found.map(Self.device), "browser transcript: \(browser.transcript)")
        #expect(device["id"] as? String == dashedID)
        #expect(device["friendlyName"] as? String == "Lab TV")
        #expect(device["model"] as? String == "Castor Emulator")
        #expect(device["capabilities"] as? Int == 4101)
        #expect(device["serviceName"] as? String == "Castor-Lab-TV")
        let endpoint = try #require(Self.endpoints(device).first { $0["address"] as? String == LabNetwork.addressA })
        #expect(endpoint["port"] as? Int == 8009)
        #expect(endpoint["interfaceName"] as? String == lab.interfaceB)

        // A TXT change (an app started) is an update of the same device.
        publisher.send(["txt", "id=\(deviceID)", "fn=Lab TV", "md=Castor Emulator", "ca=4101", "ve=05", "st=1",
                        "rs=Default Media Receiver"].joined(separator: "\t"))
        let updated = await browser.next { event in
            event["event"] as? String == "updated" && Self.device(event)["receiverStatusText"] as? String == "Default Media Receiver"
        }
        #expect(updated.map(Self.device)?["isBusy"] as? Bool == true, "browser transcript: \(browser.transcript)")

        // Withdrawing produces a removal.
        publisher.closeInput()
        let removed = await browser.next { $0["event"] as? String == "removed" }
        #expect(removed.map(Self.device)?["id"] as? String == dashedID, "browser transcript: \(browser.transcript)")
        browser.closeInput()
        browser.waitForExit()
    }

    @Test func aMalformedRecordIsSkippedAndExplainedWhileOthersAreFound() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let tool = try tool()
        // avahi-publish (not our publisher, which refuses to build such a record) advertises a
        // service whose id is not hexadecimal, next to a good one.
        let broken = try lab.spawn("a", ["avahi-publish", "-s", "Broken-Cast", "_googlecast._tcp", "8009",
                                         "id=not-a-uuid", "fn=Broken", "md=Nope"])
        let good = try lab.spawn("a", [tool, "publish", "--name", "Castor-Good", "--port", "8009",
                                       "id=\(deviceID)", "fn=Good TV", "md=Castor Emulator", "ca=5"])
        _ = await good.next { $0["published"] != nil }
        let browser = try lab.spawn("b", [tool, "browse"])
        var sawDiagnostic = false, sawGood = false
        while !(sawDiagnostic && sawGood) {
            guard let event = await browser.next(where: { _ in true }) else { break }
            if let diagnostic = event["diagnostic"] as? [String: Any], diagnostic["code"] as? String == "malformed-record" {
                #expect(diagnostic["subject"] as? String == "Broken-Cast")
                #expect((diagnostic["message"] as? String)?.contains("not-a-uuid") == true)
                sawDiagnostic = true
            }
            if Self.device(event)["id"] as? String == dashedID { sawGood = true }
            #expect(Self.device(event)["friendlyName"] as? String != "Broken")
        }
        #expect(sawDiagnostic && sawGood, "browser transcript: \(browser.transcript)")
        broken.end()
        good.closeInput()
        browser.closeInput()
    }

    @Test func aNameCollisionPicksAnAlternativeName() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let tool = try tool()
        let first = try lab.spawn("a", [tool, "publish", "--name", "Living Room", "--port", "8009",
                                        "id=11111111111111111111111111111111", "fn=Living Room", "md=Castor Emulator"])
        #expect(await first.next { $0["published"] != nil }?["published"] as? String == "Living Room")
        // Host b wants the same instance name for another device: Avahi's probe sees host a's
        // and picks "Living Room #2". When the machine is busy, b's probes can end before a's
        // answer arrives; both then hold "Living Room" until their announcements meet, and mDNS
        // renames one of them, either one. Either way the end is the same: two names, one of
        // them the alternative, and the loser learns it from `registrations()`.
        let second = try lab.spawn("b", [tool, "publish", "--name", "Living Room", "--port", "8009",
                                         "id=22222222222222222222222222222222", "fn=Living Room", "md=Castor Emulator"])
        let published = await second.next { $0["published"] != nil || $0["error"] != nil }
        var names = ["a": "Living Room", "b": try #require(published?["published"] as? String, "\(second.transcript)")]
        // A late conflict is settled when the loser's avahi-daemon confirms its alternative name,
        // which the tool prints as {"registered": NAME}: await that line from either host, then
        // ask both for their names (`firstToPrint`'s 30 s is a safety net, not a timing check).
        if names["a"] == names["b"] {
            _ = await LabProcess.firstToPrint([first, second]) { ($0["registered"] as? String).map { $0 != "Living Room" } ?? false }
            names = ["a": await Self.registeredName(first) ?? "", "b": await Self.registeredName(second) ?? ""]
        }
        #expect(Set(names.values) == ["Living Room", "Living Room #2"], "a: \(first.transcript) b: \(second.transcript)")
        let loser = names["a"] == "Living Room #2" ? first : second
        #expect(await Self.reportedRegistration(loser, "Living Room #2"), "\(loser.transcript)")
        // Both are found, as two devices (different ids), restricted to the veth interface.
        let browser = try lab.spawn("b", [tool, "browse", "--interface", lab.interfaceB])
        var ids = Set<String>()
        while ids.count < 2, let event = await browser.next(where: { $0["event"] as? String == "added" }) {
            if let id = Self.device(event)["id"] as? String { ids.insert(id) }
        }
        #expect(ids == ["11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"])
        first.closeInput()
        second.closeInput()
        browser.closeInput()
    }

    @Test func aGroupWhoseLeaderMovesStaysOneDevice() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let tool = try tool()
        let groupID = "fedcba9876543210fedcba9876543210"
        let txt = ["id=\(groupID)", "fn=Downstairs", "md=Google Cast Group", "ca=2084"]
        let browser = try lab.spawn("b", [tool, "browse"])
        // The group is first hosted by host a on port 32187 …
        let leaderA = try lab.spawn("a", [tool, "publish", "--name", "Google-Cast-Group-\(groupID)", "--port", "32187"] + txt)
        _ = await leaderA.next { $0["published"] != nil }
        let first = await browser.next { event in
            Self.endpoints(Self.device(event)).contains { $0["address"] as? String == LabNetwork.addressA && $0["port"] as? Int == 32187 }
        }
        #expect(first?["event"] as? String == "added" || first?["event"] as? String == "updated")
        // … then the leader moves to host b (same id, another port): never a second device.
        leaderA.closeInput()
        leaderA.waitForExit()
        let leaderB = try lab.spawn("b", [tool, "publish", "--name", "Google-Cast-Group-\(groupID)", "--port", "32190"] + txt)
        _ = await leaderB.next { $0["published"] != nil }
        let moved = await browser.next { event in
            Self.endpoints(Self.device(event)).contains { $0["port"] as? Int == 32190 }
        }
        let device = try #require(moved.map(Self.device), "browser transcript: \(browser.transcript)")
        #expect(device["id"] as? String == "fedcba98-7654-3210-fedc-ba9876543210")
        let seenIDs = Set(browser.transcript.compactMap { line -> String? in
            guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return Self.device(object)["id"] as? String
        })
        #expect(seenIDs == ["fedcba98-7654-3210-fedc-ba9876543210"])
        leaderB.closeInput()
        browser.closeInput()
    }

    @Test func aPythonZeroconfAdvertiserIsFound() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let (tool, python) = (try tool(), try python())
        let advertiser = try lab.spawn("a", [python, LabPaths.labScript("zeroconf_advertise.py"), LabNetwork.addressA,
                                             "Zeroconf-Speaker", "abcdefabcdefabcdefabcdefabcdef01"])
        let registered = await advertiser.next { $0["registered"] != nil }
        #expect(registered != nil)
        let browser = try lab.spawn("b", [tool, "browse"])
        let found = await browser.next { Self.device($0)["id"] as? String == "abcdefab-cdef-abcd-efab-cdefabcdef01" }
        let device = try #require(found.map(Self.device), "browser transcript: \(browser.transcript)")
        #expect(device["friendlyName"] as? String == "Zeroconf Kitchen")
        #expect(device["model"] as? String == "Zeroconf Speaker")
        #expect(device["capabilities"] as? Int == 4)
        #expect(Self.endpoints(device).contains { $0["address"] as? String == LabNetwork.addressA && $0["port"] as? Int == 8009 })
        advertiser.closeInput()
        browser.closeInput()
    }

    @Test func pychromecastFindsOurAdvertisement() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let (tool, python) = (try tool(), try python())
        let publisher = try lab.spawn("a", [tool, "publish", "--name", "Castor-Emulator-\(deviceID)", "--port", "8009",
                                            "id=\(deviceID)", "fn=Castor Lab", "md=Castor Emulator", "ca=5", "ve=05", "st=0", "rs="])
        _ = await publisher.next { $0["published"] != nil }
        let output = try lab.run("b", [python, LabPaths.labScript("pychromecast_discover.py"), LabNetwork.addressB, dashedID, "20"])
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect(result["found"] as? Bool == true, "\(output)")
        #expect(result["friendly_name"] as? String == "Castor Lab")
        #expect(result["model_name"] as? String == "Castor Emulator")
        // pychromecast takes whichever address zeroconf resolved first: host a's IPv4 or its
        // IPv6 link-local address on the veth (our publisher advertises both).
        let addressesOfA = try lab.run("a", ["ip", "-o", "addr", "show", "dev", lab.interfaceA])
            .split(separator: "\n").compactMap { line in
                line.split(separator: " ").drop { $0 != "inet" && $0 != "inet6" }.dropFirst().first
                    .map { String($0.split(separator: "/")[0]) }
            }
        #expect(addressesOfA.contains(LabNetwork.addressA))
        #expect(addressesOfA.contains(result["host"] as? String ?? "?"), "\(output) not in \(addressesOfA)")
        #expect(result["port"] as? Int == 8009)
        publisher.closeInput()
    }

    @Test func ssdpFindsADIALServerAcrossTheVeth() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let (tool, python) = (try tool(), try python())
        let responder = try lab.spawn("a", [python, LabPaths.labScript("ssdp_responder.py"), LabNetwork.addressA,
                                            "11111111-2222-3333-4444-555555555555", "Lab DIAL TV"])
        _ = await responder.next { $0["listening"] != nil }
        let output = try lab.run("b", [tool, "ssdp", "--interface", lab.interfaceB, "--timeout", "5"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        let devices = report["devices"] as? [[String: Any]] ?? []
        let device = try #require(devices.first, "\(output)")
        #expect(device["id"] as? String == "11111111-2222-3333-4444-555555555555")
        #expect(device["friendlyName"] as? String == "Lab DIAL TV")
        #expect(device["model"] as? String == "Lab DIAL TV")
        #expect(device["applicationURL"] as? String == "http://\(LabNetwork.addressA):8008/apps/")
        #expect(Self.endpoints(device).first?["address"] as? String == LabNetwork.addressA)
        responder.closeInput()
        let searches = await responder.next { $0["searches"] != nil }
        #expect((searches?["searches"] as? [String])?.allSatisfy { $0 == LabNetwork.addressB } == true)
    }

    @Test func stoppedAvahiIsExplainedNotAnEmptyListAndBrowsingResumes() async throws {
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let tool = try tool()
        let publisher = try lab.spawn("a", [tool, "publish", "--name", "Castor-Lab-TV", "--port", "8009",
                                            "id=\(deviceID)", "fn=Lab TV", "md=Castor Emulator", "ca=5"])
        _ = await publisher.next { $0["published"] != nil }
        let browser = try lab.spawn("b", [tool, "browse"])
        _ = await browser.next { $0["event"] as? String == "added" }
        // The daemon goes away under a running browser: its devices are removed and it says why.
        try lab.stopAvahi("b")
        let removed = await browser.next { $0["event"] as? String == "removed" }
        #expect(removed != nil, "browser transcript: \(browser.transcript)")
        let live = await browser.next { ($0["diagnostic"] as? [String: Any])?["code"] as? String == "avahi-daemon-not-running" }
        #expect(live != nil, "browser transcript: \(browser.transcript)")
        // A one-shot discovery now reports the cause and its fix instead of nothing.
        let output = try lab.run("b", [tool, "discover", "--timeout", "1"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect((report["devices"] as? [Any])?.isEmpty == true)
        let diagnostics = report["diagnostics"] as? [[String: Any]] ?? []
        let diagnostic = try #require(diagnostics.first { $0["code"] as? String == "avahi-daemon-not-running" }, "\(output)")
        #expect((diagnostic["fix"] as? String)?.contains("avahi-daemon") == true)
        #expect(!diagnostics.contains { $0["code"] as? String == "no-answer" })
        // The daemon comes back: the running browser reconnects by itself and finds the device again.
        try lab.startAvahi("b")
        let again = await browser.next { $0["event"] as? String == "added" }
        #expect(again.map(Self.device)?["id"] as? String == dashedID, "browser transcript: \(browser.transcript)")
        publisher.closeInput()
        browser.closeInput()
    }
}

/// `cast-receiver --advertise` listens where it advertises: pychromecast on the other host finds it
/// over mDNS and connects to the address it resolved.
extension LabDiscoveryTests {
    /// The cast-receiver program built next to the test bundle.
    static var castReceiver: String? {
        LabPaths.tool.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("cast-receiver").path }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
    }

    @Test("cast-receiver --advertise (without and with --host): found over mDNS and reachable from the other host",
          arguments: [[], ["--host", LabNetwork.addressA]])
    func castReceiverListensWhereItAdvertises(_ host: [String]) async throws {
        let receiver = try #require(Self.castReceiver, "cast-receiver not built: run `swift build --build-tests` first")
        let lab = try LabNetwork.up()
        defer { lab.down() }
        let python = try python()
        _ = try lab.spawn("a", [receiver, "--advertise", "--port", "8009", "--id", dashedID, "--name", "Lab Receiver",
                                "--eureka-port", "0", "--eureka-tls-port", "0"] + host)
        // Spawned and awaited, not run to completion: discovery takes seconds, and a blocking wait
        // would hold one of the test pool's threads all that time.
        let connector = try lab.spawn("b", [python, LabPaths.labScript("pychromecast_discover.py"), LabNetwork.addressB, dashedID, "30",
                                            "--connect"])
        let result = try #require(await connector.next(limit: .seconds(90)) { $0["found"] != nil }, "pychromecast_discover.py --connect printed no result")
        let output = "\(result)"
        #expect(result["found"] as? Bool == true, "\(output)")
        #expect(result["friendly_name"] as? String == "Lab Receiver")
        #expect(result["host"] as? String == LabNetwork.addressA, "\(output)")
        #expect(result["connected"] as? Bool == true, "pychromecast could not connect to what was advertised: \(output)")
        // Without --host the receiver listens on every address; with it, only on that one: loopback on
        // host a answers in the first case only.
        let loopback = try lab.run("a", ["bash", "-c", "if (exec 3<>/dev/tcp/127.0.0.1/8009) 2>/dev/null; then echo open; else echo closed; fi"])
        #expect(loopback.contains(host.isEmpty ? "open" : "closed"), "\(loopback)")
    }
}
