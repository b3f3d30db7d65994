import CastJSON
import CastTestSupport
import Foundation
import Testing

/// Fault-lab cases 3 to 6: a link taken down, a request in flight when the network goes, a
/// receiver back at a new address found again over mDNS, and many restarts under one sender.
/// The receiver fetches what it is told to play (`--fetch-media`) from castctl's media server
/// across the veth, as a real device does.
///
/// Figures are printed as `fault-lab:` lines; the tests assert outcomes, never timings.
extension FaultLabTests {
    static let movedAddress = "10.77.0.3"

    /// Case 4: the receiver is killed, its host gets a new address (a new DHCP lease) and it
    /// restarts there on another port, announced by the namespace's avahi-daemon. castctl was
    /// pointed at the device by its id (`--device`): the façade's reconnect finds it again by id
    /// over mDNS and reloads what played, at the position extrapolated to the loss.
    @Test func aReceiverBackAtANewAddressIsFoundAgainByItsIdOverMDNS() async throws {
        try await FaultLab.run { lab in
            let movie = lab.folder.appendingPathComponent("movie.mp4").path
            var receiver = try await lab.startReceiver(extra: ["--advertise", "--fetch-media"])
            let cast = try lab.castctl(["cast", movie, "--device", lab.deviceId, "--serve-host", Self.senderAddress, "--json",
                                        "--timeout", "60", "--reconnect-timeout", "120"])
            let loaded = await FaultLab.line(cast) { $0.contains("\"playerState\"") }
            let loadedAt = ContinuousClock.now
            #expect(loaded?.contains("PLAYING") == true, "\(cast.output) \(cast.errorOutput)")
            let startPosition = loaded.flatMap { try? JSONValue(parsing: $0) }?["currentTime"]?.doubleValue ?? 0
            // The receiver really fetched the movie from castctl's server across the veth.
            #expect(await FaultLab.line(receiver) { $0.contains("cast-receiver: fetch") } != nil, "\(receiver.output)")
            // Let it play a little, so the resume position means something: playback time passes on the
            // receiver's own clock, in another process, and a device reports no progress unasked, so
            // there is no event to await here (nothing is asserted on it; it only gives the printed
            // extrapolation error three seconds to show itself).
            try await Task.sleep(for: .seconds(3))

            let killedAt = ContinuousClock.now
            kill(receiver.pid, SIGKILL)
            _ = await receiver.waitForExit()
            #expect(await FaultLab.event(cast, "connectionLost") != nil, "\(cast.output)")
            let veth = "cl\(lab.tag)va"
            try await lab.exec("a", ["ip", "addr", "del", "\(Self.receiverAddress)/24", "dev", veth])
            try await lab.exec("a", ["ip", "addr", "add", "\(Self.movedAddress)/24", "dev", veth])
            let restartedAt = ContinuousClock.now
            receiver = try await lab.startReceiver(host: Self.movedAddress, port: 8010, extra: ["--advertise", "--fetch-media"])
            let resumed = await FaultLab.event(cast, "resumed")
            let resumedAt = ContinuousClock.now
            #expect(resumed != nil, "\(cast.output) \(cast.errorOutput)")
            #expect(await FaultLab.line(receiver) { $0.contains("cast-receiver: fetch") } != nil, "the restarted receiver fetched nothing")
            let resumedPosition = resumed?["position"]?.doubleValue ?? -1
            let extrapolated = startPosition + Self.seconds(killedAt - loadedAt)
            // What the restarted receiver itself reports, at its new address and port.
            let reported = try await lab.receiverPosition(host: Self.movedAddress, port: 8010)
            let reportedAt = ContinuousClock.now
            #expect(reported?.title == "movie", "\(String(describing: reported))")
            let position = reported?.position ?? -1
            // It plays on from the resumed position, not from the start.
            #expect(position >= resumedPosition, "receiver at \(position), resumed at \(resumedPosition)")
            print("fault-lab: new address: resumed \(FaultLab.format(Self.seconds(resumedAt - restartedAt))) s after the restart at "
                  + "\(Self.movedAddress):8010; resume position \(FaultLab.format(resumedPosition)) s vs extrapolated "
                  + "\(FaultLab.format(extrapolated)) s (error \(FaultLab.format(resumedPosition - extrapolated)) s); the receiver reported "
                  + "\(FaultLab.format(position)) s \(FaultLab.format(Self.seconds(reportedAt - resumedAt))) s after the resume")
            #expect(await cast.terminate(signal: SIGINT) == 0, "\(cast.errorOutput)")
            _ = await receiver.terminate()
        }
    }

    /// Case 3: the receiver's end of the veth goes down (no FIN, no RST: the heartbeat notices),
    /// then up again (the app still runs: rejoined). Case 6: a command awaited when the network
    /// goes fails with a typed `connectionLost` error, and is not re-sent after the rejoin.
    @Test func linkDownUpAndALossDuringARequestInFlight() async throws {
        try await FaultLab.run { lab in
            let queue = lab.folder.appendingPathComponent("queue")
            try FileManager.default.createDirectory(at: queue, withIntermediateDirectories: true)
            for name in ["a", "b", "c"] {
                try Data(CastLocalFilesEndToEndTests.movie).write(to: queue.appendingPathComponent("\(name).mp4"))
            }
            let log = lab.folder.appendingPathComponent("receiver.log").path
            // Replies come 1.5 s after each request, so a request is surely in flight when the network goes.
            let receiver = try await lab.startReceiver(extra: ["--fetch-media", "--log", log, "--latency-ms", "1500"])
            let cast = try lab.castctl(["cast", queue.path, "--host", Self.receiverAddress, "--port", "8009",
                                        "--serve-host", Self.senderAddress, "--json", "--control", "--timeout", "60",
                                        "--reconnect-timeout", "120"], standardInput: true)
            let loaded = await FaultLab.line(cast) { $0.contains("\"playerState\"") }
            #expect(loaded?.contains("PLAYING") == true, "\(cast.output) \(cast.errorOutput)")
            #expect(await FaultLab.line(receiver) { $0.contains("cast-receiver: fetch") && $0.contains("a.mp4") } != nil)

            // 3. Link down: nothing reaches the sender, not even a reset.
            let veth = "cl\(lab.tag)va"
            let downAt = ContinuousClock.now
            try await lab.exec("a", ["ip", "link", "set", veth, "down"])
            #expect(await FaultLab.event(cast, "connectionLost") != nil, "\(cast.output)")
            let detectedAt = ContinuousClock.now
            #expect(await FaultLab.line(cast) { $0.contains("\"reconnecting\"") && $0.contains("\"attempt\":2") } != nil)
            try await lab.exec("a", ["ip", "link", "set", veth, "up"])
            let upAt = ContinuousClock.now
            #expect(await FaultLab.event(cast, "rejoined") != nil, "\(cast.output) \(cast.errorOutput)")
            let rejoinedAt = ContinuousClock.now
            print("fault-lab: link down: loss detected after \(FaultLab.format(Self.seconds(detectedAt - downAt))) s; rejoined "
                  + "\(FaultLab.format(Self.seconds(rejoinedAt - upAt))) s after the link came up")

            // 6. "next" is sent; once the receiver has it (and sits on the reply), every packet is dropped.
            func queueUpdates() -> Int {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                    .filter { $0.contains("received") && $0.contains("QUEUE_UPDATE") }.count
            }
            let before = queueUpdates()
            #expect(cast.writeLine("next"))
            #expect(await FaultLab.waitForFile(log) { $0.contains("received") && $0.contains("QUEUE_UPDATE") })
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-A", chain, "-j", "DROP"]) }
            let result = await FaultLab.event(cast, "command")
            #expect(result?["command"]?.stringValue == "next")
            #expect(result?["ok"] == .bool(false), "\(String(describing: result))")
            #expect(result?["code"]?.stringValue == "connectionLost", "\(String(describing: result))")
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-D", chain, "-j", "DROP"]) }
            #expect(await FaultLab.event(cast, "rejoined", 2) != nil, "\(cast.output) \(cast.errorOutput)")
            // The receiver went to the next item once (it had the request), and nothing sent it again.
            let reported = try await lab.receiverPosition(host: Self.receiverAddress, port: 8009)
            #expect(reported?.title == "b", "\(String(describing: reported))")
            #expect(queueUpdates() - before == 1, "QUEUE_UPDATE received \(queueUpdates() - before) times")
            print("fault-lab: request in flight: \(result?["command"]?.stringValue ?? "?") failed with "
                  + "\(result?["code"]?.stringValue ?? "?") after \(result?["seconds"]?.doubleValue ?? -1) s; received once: "
                  + "\(queueUpdates() - before == 1)")
            // A command sent after the rejoin works.
            #expect(cast.writeLine("pause"))
            let paused = await FaultLab.event(cast, "command", 2)
            #expect(paused?["ok"] == .bool(true), "\(String(describing: paused))")
            #expect(await cast.terminate(signal: SIGINT) == 0, "\(cast.errorOutput)")
            _ = await receiver.terminate()
        }
    }

    /// Case 5 for castctl: the receiver killed and restarted `CASTOR_FAULTLAB_CASTCTL_CYCLES` times
    /// (20 by default) under one castctl process: every cycle resumes, and the sender's descriptors and
    /// resident memory after the last cycle are compared with those after the third. The issue asks
    /// for 100 cycles of the façade, which `theFacadeAloneResumesManyRestartsInARowLeakingNothing`
    /// runs; here 20 are enough for what castctl adds on top of it (its media server, its status
    /// lines) to show a descriptor leaked per cycle, at a fifth of the CI time.
    @Test func manyRestartsUnderOneSenderLeakNothing() async throws {
        let cycles = ProcessInfo.processInfo.environment["CASTOR_FAULTLAB_CASTCTL_CYCLES"].flatMap(Int.init) ?? 20
        try await FaultLab.run { lab in
            let movie = lab.folder.appendingPathComponent("movie.mp4").path
            var receiver = try await lab.startReceiver()
            let cast = try lab.castctl(["cast", movie, "--host", Self.receiverAddress, "--port", "8009", "--serve-host",
                                        Self.senderAddress, "--json", "--timeout", "60", "--reconnect-timeout", "120"])
            let loaded = await FaultLab.line(cast) { $0.contains("\"playerState\"") }
            #expect(loaded?.contains("PLAYING") == true, "\(cast.output) \(cast.errorOutput)")
            let started = ContinuousClock.now
            var early: (descriptors: Int, rssKiB: Int)?
            var resumedCycles = 0
            for cycle in 1...cycles {
                kill(receiver.pid, SIGKILL)
                _ = await receiver.waitForExit()
                receiver = try await lab.startReceiver()
                guard await FaultLab.event(cast, "resumed", cycle) != nil else {
                    Issue.record("cycle \(cycle) did not resume: \(cast.output.suffix(5)) \(cast.errorOutput)")
                    break
                }
                resumedCycles = cycle
                if cycle == min(3, cycles) { early = FaultLab.footprint(of: cast.pid) }
            }
            let elapsed = Self.seconds(ContinuousClock.now - started)
            let late = FaultLab.footprint(of: cast.pid)
            #expect(resumedCycles == cycles)
            let first = try #require(early), last = try #require(late)
            print("fault-lab: \(resumedCycles) kill/restart cycles in \(FaultLab.format(elapsed)) s: castctl descriptors "
                  + "\(first.descriptors) after cycle 3, \(last.descriptors) after cycle \(resumedCycles); RSS "
                  + "\(first.rssKiB) KiB after cycle 3, \(last.rssKiB) KiB after cycle \(resumedCycles)")
            // A leak of one descriptor per cycle would show as ~cycles more; allow the few a cycle may hold transiently.
            #expect(last.descriptors <= first.descriptors + 2, "descriptors \(first.descriptors) → \(last.descriptors)")
            #expect(last.rssKiB <= first.rssKiB + 32 * 1024, "RSS \(first.rssKiB) KiB → \(last.rssKiB) KiB")
            #expect(await cast.terminate(signal: SIGINT) == 0, "\(cast.errorOutput)")
            _ = await receiver.terminate()
        }
    }
}
