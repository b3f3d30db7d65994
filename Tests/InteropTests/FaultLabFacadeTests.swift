import CastJSON
import CastTestSupport
import Foundation
import Testing

/// The fault lab's cases against a program built on the public `Cast` façade alone
/// (Tests/FaultLabDriver), so what the façade gives a user's program is checked without castctl's
/// code in between: every packet dropped, kill -9 and a restart at the same address, a restart
/// at a new address found again by Cast id over mDNS, the link taken down and up, a request in
/// flight when the network goes, and many restarts in a row. Same assertions as the castctl runs;
/// figures are printed as `fault-lab (façade):` lines, never asserted.
extension FaultLabTests {
    /// Starts the façade driver in host b (with a channel to its standard input when `standardInput`;
    /// killed if it still runs after `lifetime`, a safety net only).
    static func driver(_ lab: FaultLab, _ arguments: [String], standardInput: Bool = false,
                       lifetime: Duration = .seconds(480)) throws -> ChildProcess {
        let child = try ChildProcess(script, ["exec", lab.tag, "b", TestPaths.program("FaultLabDriver")] + arguments,
                                     standardInput: standardInput, lifetime: lifetime)
        lab.adopt(child)
        return child
    }

    /// Cases 1 and 2. The movie plays at 1.5× with French subtitles (track 2 of three text tracks),
    /// so "same rate and active tracks" after the resume means something.
    @Test func theFacadeAloneRejoinsAfterADropAndResumesAfterAKill() async throws {
        try await FaultLab.run { lab in
            var receiver = try await lab.startReceiver()
            let driver = try Self.driver(lab, ["--host", Self.receiverAddress, "--port", "8009", "--reconnect-timeout", "120",
                                               "--rate", "1.5", "--subtitles", "fr"])
            let loaded = await FaultLab.event(driver, "loaded")
            #expect(loaded != nil, "\(driver.output) \(driver.errorOutput)")

            // Every packet dropped both ways: the heartbeat notices; once the rules go, the session is rejoined.
            let dropped = ContinuousClock.now
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-A", chain, "-j", "DROP"]) }
            #expect(await FaultLab.event(driver, "connectionLost") != nil, "\(driver.output)")
            let detected = ContinuousClock.now
            #expect(await FaultLab.event(driver, "reconnecting", 2) != nil, "\(driver.output)")
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-D", chain, "-j", "DROP"]) }
            let undropped = ContinuousClock.now
            let rejoined = await FaultLab.event(driver, "rejoined")
            let rejoinedAt = ContinuousClock.now
            #expect(rejoined != nil, "\(driver.output) \(driver.errorOutput)")
            print("fault-lab (façade): DROP: loss detected after \(FaultLab.format(Self.seconds(detected - dropped))) s; rejoined "
                  + "\(FaultLab.format(Self.seconds(rejoinedAt - undropped))) s after the rules were removed")

            // kill -9, restart at the same address once the driver has found the device gone (an attempt
            // refused): the movie is loaded again where it was, at the same rate and with the same subtitles on.
            let killedAt = ContinuousClock.now
            kill(receiver.pid, SIGKILL)
            _ = await receiver.waitForExit()
            #expect(await FaultLab.event(driver, "connectionLost", 2) != nil, "\(driver.output)")
            let detectedAgain = ContinuousClock.now
            #expect(await FaultLab.failedReconnectAttempt(driver) != nil, "\(driver.output)")
            let restartedAt = ContinuousClock.now
            receiver = try await lab.startReceiver()
            let resumed = await FaultLab.event(driver, "resumed")
            let resumedAt = ContinuousClock.now
            #expect(resumed != nil, "\(driver.output) \(driver.errorOutput)")
            let position = resumed?["position"]?.doubleValue ?? -1
            #expect(position >= 10, "resumed at \(position), loaded at 10 s")
            // Where the movie was when the receiver died, extrapolated from the rejoin at 1.5×.
            let extrapolated = (rejoined?["position"]?.doubleValue ?? 0) + 1.5 * Self.seconds(killedAt - rejoinedAt)
            let reported = try await lab.receiverPosition(host: Self.receiverAddress, port: 8009)
            #expect(reported?.title == "Fault lab movie", "\(String(describing: reported))")
            #expect((reported?.position ?? -1) >= position, "receiver at \(reported?.position ?? -1), resumed at \(position)")
            #expect(reported?.rate == 1.5, "\(String(describing: reported))")
            #expect(reported?.activeTrackIds == [2], "\(String(describing: reported))")
            print("fault-lab (façade): kill -9: loss detected after \(String(format: "%.3f", Self.seconds(detectedAgain - killedAt))) s; "
                  + "resumed \(FaultLab.format(Self.seconds(resumedAt - restartedAt))) s after the restart at position "
                  + "\(FaultLab.format(position)) s vs extrapolated \(FaultLab.format(extrapolated)) s (error "
                  + "\(FaultLab.format(position - extrapolated)) s); receiver rate \(reported?.rate ?? -1), active tracks "
                  + "\(reported?.activeTrackIds ?? [])")
            #expect(!driver.output.contains { $0.contains("\"ended\"") }, "\(driver.output)")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }

    @Test func theFacadeAloneFindsADeviceBackAtANewAddressByItsId() async throws {
        try await FaultLab.run { lab in
            var receiver = try await lab.startReceiver(extra: ["--advertise"])
            let driver = try Self.driver(lab, ["--device", lab.deviceId, "--reconnect-timeout", "120"])
            #expect(await FaultLab.event(driver, "loaded") != nil, "\(driver.output) \(driver.errorOutput)")
            kill(receiver.pid, SIGKILL)
            _ = await receiver.waitForExit()
            #expect(await FaultLab.event(driver, "connectionLost") != nil, "\(driver.output)")
            let veth = "cl\(lab.tag)va"
            try await lab.exec("a", ["ip", "addr", "del", "\(Self.receiverAddress)/24", "dev", veth])
            try await lab.exec("a", ["ip", "addr", "add", "\(Self.movedAddress)/24", "dev", veth])
            let restartedAt = ContinuousClock.now
            receiver = try await lab.startReceiver(host: Self.movedAddress, port: 8010, extra: ["--advertise"])
            let resumed = await FaultLab.event(driver, "resumed")
            #expect(resumed != nil, "\(driver.output) \(driver.errorOutput)")
            let resumedAt = ContinuousClock.now
            let reported = try await lab.receiverPosition(host: Self.movedAddress, port: 8010)
            #expect(reported?.title == "Fault lab movie", "\(String(describing: reported))")
            print("fault-lab (façade): new address: resumed \(FaultLab.format(Self.seconds(resumedAt - restartedAt))) s after the "
                  + "restart at \(Self.movedAddress):8010, position \(FaultLab.format(resumed?["position"]?.doubleValue ?? -1)) s")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }

    /// Case 3: the receiver's end of the veth goes down (no FIN, no RST: the heartbeat notices), then
    /// up again (the app still runs: rejoined). Case 6: `next`, awaited on the façade when the network
    /// goes, fails with a typed `connectionLost` error, and the façade does not send it again after the
    /// rejoin (the receiver logs the QUEUE_UPDATE once and stays on item b; a resend would move it to c).
    @Test func theFacadeAloneRejoinsAfterTheLinkWentDownAndFailsARequestInFlight() async throws {
        try await FaultLab.run { lab in
            let log = lab.folder.appendingPathComponent("receiver.log").path
            // Replies come 1.5 s after each request, so a request is surely in flight when the network goes.
            let receiver = try await lab.startReceiver(extra: ["--log", log, "--latency-ms", "1500"])
            let driver = try Self.driver(lab, ["--host", Self.receiverAddress, "--port", "8009", "--reconnect-timeout", "120",
                                               "--items", "a,b,c", "--control"], standardInput: true)
            #expect(await FaultLab.event(driver, "loaded") != nil, "\(driver.output) \(driver.errorOutput)")

            // 3. Link down: nothing reaches the sender, not even a reset.
            let veth = "cl\(lab.tag)va"
            let downAt = ContinuousClock.now
            try await lab.exec("a", ["ip", "link", "set", veth, "down"])
            #expect(await FaultLab.event(driver, "connectionLost") != nil, "\(driver.output)")
            let detectedAt = ContinuousClock.now
            #expect(await FaultLab.event(driver, "reconnecting", 2) != nil, "\(driver.output)")
            try await lab.exec("a", ["ip", "link", "set", veth, "up"])
            let upAt = ContinuousClock.now
            #expect(await FaultLab.event(driver, "rejoined") != nil, "\(driver.output) \(driver.errorOutput)")
            let rejoinedAt = ContinuousClock.now
            // The rejoin makes about five round trips (device authentication, receiver and media status, the
            // queue's ids and items), each answered 1.5 s late here: most of this figure is that latency. The
            // link-up rejoin time itself is measured by theFacadeAloneRejoinsAsSoonAsTheLinkComesBack.
            print("fault-lab (façade): link down: loss detected after \(FaultLab.format(Self.seconds(detectedAt - downAt))) s; "
                  + "rejoined \(FaultLab.format(Self.seconds(rejoinedAt - upAt))) s after the link came up (replies 1.5 s late)")

            // 6. "next" is sent; once the receiver has it (and sits on the reply), every packet is dropped.
            func queueUpdates() -> Int {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                    .filter { $0.contains("received") && $0.contains("QUEUE_UPDATE") }.count
            }
            let before = queueUpdates()
            #expect(driver.writeLine("next"))
            #expect(await FaultLab.waitForFile(log) { $0.contains("received") && $0.contains("QUEUE_UPDATE") })
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-A", chain, "-j", "DROP"]) }
            let result = await FaultLab.event(driver, "command")
            #expect(result?["command"]?.stringValue == "next")
            #expect(result?["ok"] == .bool(false), "\(String(describing: result))")
            // Two deadlines of 10 s race here: the connection's liveness (10 s after the last message in) and the
            // request's own timeout (10 s after it was sent). The last message in usually came just before the
            // request went out, so the loss is usually reported first (every fresh clone until 067724a: after
            // 9.992-9.999 s); one run had the timeout first (after 10.002 s). Either way the request failed, once.
            let code = result?["code"]?.stringValue
            #expect(code == "connectionLost" || code == "timeout", "\(String(describing: result))")
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-D", chain, "-j", "DROP"]) }
            #expect(await FaultLab.event(driver, "rejoined", 2) != nil, "\(driver.output) \(driver.errorOutput)")
            // The receiver went to the next item once (it had the request), and nothing sent it again.
            let reported = try await lab.receiverPosition(host: Self.receiverAddress, port: 8009)
            #expect(reported?.title == "b", "\(String(describing: reported))")
            #expect(queueUpdates() - before == 1, "QUEUE_UPDATE received \(queueUpdates() - before) times")
            print("fault-lab (façade): request in flight: \(result?["command"]?.stringValue ?? "?") failed with "
                  + "\(result?["code"]?.stringValue ?? "?") after \(result?["seconds"]?.doubleValue ?? -1) s; received once: "
                  + "\(queueUpdates() - before == 1)")
            // A command sent after the rejoin works.
            #expect(driver.writeLine("pause"))
            let paused = await FaultLab.event(driver, "command", 2)
            #expect(paused?["ok"] == .bool(true), "\(String(describing: paused))")
            #expect(!driver.output.contains { $0.contains("\"ended\"") }, "\(driver.output)")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }

    /// The link-up rejoin time (issue 45): the receiver's end of the veth goes down; once the loss is
    /// noticed the driver waits an hour before each attempt (`--reconnect-delay 3600`), so only the network
    /// coming back (the sender's end of the veth gets its carrier again: an rtnetlink link-up in its
    /// namespace) can start one. Before, nothing cut the back-off short: the session was not rejoined
    /// within the test's lifetime. The time from the link coming up to the rejoin is this run's figure
    /// (goal: within 2 s), printed, never asserted; the receiver answers at once (no added latency).
    @Test func theFacadeAloneRejoinsAsSoonAsTheLinkComesBack() async throws {
        try await FaultLab.run { lab in
            let receiver = try await lab.startReceiver(extra: ["--latency-ms", "0"])
            let driver = try Self.driver(lab, ["--host", Self.receiverAddress, "--port", "8009", "--reconnect-timeout", "3600",
                                               "--reconnect-delay", "3600"])
            #expect(await FaultLab.event(driver, "loaded") != nil, "\(driver.output) \(driver.errorOutput)")
            let veth = "cl\(lab.tag)va"
            try await lab.exec("a", ["ip", "link", "set", veth, "down"])
            #expect(await FaultLab.event(driver, "connectionLost") != nil, "\(driver.output)")
            let waiting = await FaultLab.event(driver, "reconnecting")
            #expect((waiting?["nextIn"]?.doubleValue ?? 0) >= 3000, "\(String(describing: waiting))")
            try await lab.exec("a", ["ip", "link", "set", veth, "up"])
            let upAt = ContinuousClock.now
            let rejoined = await FaultLab.event(driver, "rejoined")
            let rejoinedAt = ContinuousClock.now
            #expect(rejoined?["attempt"] == 1, "\(driver.output) \(driver.errorOutput)")
            #expect(driver.errorOutput.contains("The network came back"), "\(driver.errorOutput)")
            print("fault-lab (façade): link up during an hour's back-off: rejoined "
                  + "\(FaultLab.format(Self.seconds(rejoinedAt - upAt))) s after the link came up (goal ≤ 2 s)")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }

    /// Case 5, which the issue asks of the façade: the receiver killed and restarted
    /// `CASTOR_FAULTLAB_CYCLES` times (100 by default, as in CI) under one driver process. Every cycle
    /// resumes, and the driver's descriptors and resident memory after the last cycle are compared
    /// with those after the third (by then every lazily made pool and cache exists).
    @Test func theFacadeAloneResumesManyRestartsInARowLeakingNothing() async throws {
        let cycles = ProcessInfo.processInfo.environment["CASTOR_FAULTLAB_CYCLES"].flatMap(Int.init) ?? 100
        try await FaultLab.run { lab in
            var receiver = try await lab.startReceiver()
            let driver = try Self.driver(lab, ["--host", Self.receiverAddress, "--port", "8009", "--reconnect-timeout", "120"],
                                         lifetime: .seconds(900))
            #expect(await FaultLab.event(driver, "loaded") != nil, "\(driver.output) \(driver.errorOutput)")
            let started = ContinuousClock.now
            var early: (descriptors: Int, rssKiB: Int)?
            var resumedCycles = 0
            var samples: [String] = []  // every 10th cycle: descriptors/RSS KiB, printed to show a trend
            for cycle in 1...cycles {
                kill(receiver.pid, SIGKILL)
                _ = await receiver.waitForExit()
                receiver = try await lab.startReceiver()
                guard await FaultLab.event(driver, "resumed", cycle) != nil else {
                    Issue.record("cycle \(cycle) did not resume: \(driver.output.suffix(5)) \(driver.errorOutput)")
                    break
                }
                resumedCycles = cycle
                if cycle == min(3, cycles) { early = FaultLab.footprint(of: driver.pid) }
                if cycle % 10 == 0, let now = FaultLab.footprint(of: driver.pid) { samples.append("\(cycle): \(now.descriptors)/\(now.rssKiB)") }
            }
            let elapsed = Self.seconds(ContinuousClock.now - started)
            let late = FaultLab.footprint(of: driver.pid)
            #expect(resumedCycles == cycles)
            let first = try #require(early), last = try #require(late)
            print("fault-lab (façade): \(resumedCycles) kill/restart cycles in \(FaultLab.format(elapsed)) s: descriptors "
                  + "\(first.descriptors) after cycle 3, \(last.descriptors) after cycle \(resumedCycles); RSS "
                  + "\(first.rssKiB) KiB after cycle 3, \(last.rssKiB) KiB after cycle \(resumedCycles); descriptors/RSS KiB by cycle: "
                  + samples.joined(separator: ", "))
            // A leak of one descriptor per cycle would show as ~cycles more; allow the few a cycle may hold transiently.
            #expect(last.descriptors <= first.descriptors + 2, "descriptors \(first.descriptors) → \(last.descriptors)")
            #expect(last.rssKiB <= first.rssKiB + 32 * 1024, "RSS \(first.rssKiB) KiB → \(last.rssKiB) KiB")
            #expect(!driver.output.contains { $0.contains("\"ended\"") }, "\(driver.output.suffix(5))")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }
}
