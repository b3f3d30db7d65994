import CastJSON
import CastTestSupport
import Foundation
import Testing

/// A private session bus (what `dbus-run-session` starts), stopped when the test ends.
struct PrivateBus {
    let daemon: ChildProcess
    let address: String

    static func start() async throws -> PrivateBus {
        let daemon = try ChildProcess(try #require(Peers.onPath("dbus-daemon")), ["--session", "--nofork", "--nopidfile", "--print-address=1"])
        guard let address = await daemon.waitForLine(where: { $0.hasPrefix("unix:") }) else {
            _ = await daemon.terminate()
            throw HarnessError(message: "dbus-daemon did not start: \(daemon.errorOutput)")
        }
        return PrivateBus(daemon: daemon, address: address.trimmingCharacters(in: .whitespaces))
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        env["CASTOR_LOG_LEVEL"] = nil
        return env
    }
}

/// `castctl mpris` on a private session bus, driven by Debian's `playerctl` (a client we did not write),
/// with pychromecast (Debian) as the other sender that loads and pauses on the emulated receiver.
/// Kills `child` if it still runs after `seconds`: a safety net so a hung peer fails the test
/// instead of hanging the suite (not a timing check; cancel it once the child is done).
func watchdog(_ child: ChildProcess, seconds: Int = 60) -> Task<Void, Never> {
    Task {
        try? await Task.sleep(for: .seconds(seconds))
        if !Task.isCancelled { kill(child.pid, SIGKILL) }
    }
}

@Suite("MPRIS with playerctl", .serialized)
struct MPRISInteropTests {
    static let playerctlPath = Peers.onPath("playerctl")
    static let busctlPath = Peers.onPath("busctl")

    /// Runs the other sender (pychromecast) once and returns its JSON line.
    func otherSender(_ command: String, receiver: ReceiverProcess) async throws -> JSONValue {
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/mpris_other_sender.py").path
        let result = try await runProgram(try #require(Peers.debianPython),
                                          [script, command, "--port", String(receiver.port), "--uuid", receiver.id])
        let json = try JSONValue(parsing: result.stdout.last ?? "")
        #expect(json["ok"] == true, "pychromecast \(command): \(result.stdout) \(result.stderr)")
        return json
    }

    /// Runs playerctl on the bus; its trimmed standard output.
    @discardableResult
    func playerctl(_ bus: PrivateBus, _ arguments: [String]) async throws -> String {
        let child = try ChildProcess(try #require(Self.playerctlPath), arguments, environment: bus.environment)
        let guardTask = watchdog(child)
        let status = await child.waitForExit()
        guardTask.cancel()
        #expect(status == 0, "playerctl \(arguments): \(child.errorOutput)")
        return child.output.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the peers of the playerctl tests are here (in CI they must be).
    static let hasPlayerctlPeers = Peers.inCI
        || (Peers.onPath("dbus-daemon") != nil && Peers.onPath("playerctl") != nil && Peers.hasDebianPychromecast)

    /// Starts `castctl mpris` on `bus`, joined to `receiver`'s session, and waits until it has published
    /// its player: the child, its bus name, and the watchdog to cancel once the test is done with it.
    func startCastctlMPRIS(_ receiver: ReceiverProcess, _ bus: PrivateBus) async throws -> (child: ChildProcess, busName: String, guard: Task<Void, Never>) {
        let child = try ChildProcess(TestPaths.program("castctl"), ["mpris", "--host", "127.0.0.1", "--port", String(receiver.port),
                                                                    "--name", "Interop TV"], environment: bus.environment)
        let guardTask = watchdog(child, seconds: 300)
        let published = await child.waitForLine(where: { $0.hasPrefix("published ") })
        guard let busName = published?.dropFirst("published ".count).description else {
            guardTask.cancel()
            kill(child.pid, SIGKILL)
            throw HarnessError(message: "castctl mpris did not publish: \(child.errorOutput)")
        }
        return (child, busName, guardTask)
    }

    @Test("playerctl lists, reads and drives a Cast session through castctl mpris",
          .enabled(if: hasPlayerctlPeers, "needs dbus-daemon (apt dbus), playerctl and Debian's python3-pychromecast"))
    func playerctlDrivesTheReceiver() async throws {
        let receiver = try await ReceiverProcess.start()
        let bus = try await PrivateBus.start()
        var mpris: ChildProcess?
        var finished = false
        defer {
            // Only when a `try` failed midway; the normal path stops every child itself.
            if !finished { for pid in [mpris?.pid, bus.daemon.pid, receiver.child.pid].compactMap({ $0 }) { kill(pid, SIGKILL) } }
        }

        // Another sender loads a three-song queue with metadata.
        let loaded = try await otherSender("load", receiver: receiver)
        #expect(loaded["status"]?["playerState"] == "PLAYING")

        // castctl mpris joins that session and publishes it.
        let (child, busName, mprisGuard) = try await startCastctlMPRIS(receiver, bus)
        mpris = child
        defer { mprisGuard.cancel() }
        #expect(busName.hasPrefix("org.mpris.MediaPlayer2.castor.d"))
        let player = String(busName.dropFirst("org.mpris.MediaPlayer2.".count))
        let list = try await playerctl(bus, ["--list-all"])
        #expect(list.split(separator: "\n").contains(Substring(player)), "\(list)")
        let p = ["--player", player]

        // What the other sender loaded.
        #expect(try await playerctl(bus, p + ["metadata", "--format", "{{title}} {{artist}} {{mpris:length}}"]) == "Song 1 The Castors 200000000")
        #expect(try await playerctl(bus, p + ["status"]) == "Playing")

        // playerctl's commands reach the receiver (each D-Bus reply comes after the receiver's answer).
        try await playerctl(bus, p + ["play-pause"])
        var status = try await otherSender("status", receiver: receiver)
        #expect(status["status"]?["playerState"] == "PAUSED")
        #expect(try await playerctl(bus, p + ["status"]) == "Paused")

        try await playerctl(bus, p + ["position", "30"])
        status = try await otherSender("status", receiver: receiver)
        #expect(status["status"]?["currentTime"]?.doubleValue == 30)

        try await playerctl(bus, p + ["volume", "0.4"])
        status = try await otherSender("status", receiver: receiver)
        #expect(status["volume"]?.doubleValue.map { abs($0 - 0.4) < 0.001 } == true, "\(status)")

        try await playerctl(bus, p + ["loop", "Playlist"])
        status = try await otherSender("status", receiver: receiver)
        #expect(status["status"]?["repeatMode"] == "REPEAT_ALL")
        #expect(try await playerctl(bus, p + ["loop"]) == "Playlist")

        let firstItem = status["status"]?["currentItemId"]
        try await playerctl(bus, p + ["next"])
        status = try await otherSender("status", receiver: receiver)
        #expect(status["status"]?["currentItemId"] != firstItem)
        #expect(try await playerctl(bus, p + ["metadata", "title"]) == "Song 2")
        try await playerctl(bus, p + ["previous"])
        #expect(try await playerctl(bus, p + ["metadata", "title"]) == "Song 1")

        try await playerctl(bus, p + ["shuffle", "On"])
        status = try await otherSender("status", receiver: receiver)
        #expect(status["status"]?["repeatMode"] == "REPEAT_ALL_AND_SHUFFLE")
        #expect(try await playerctl(bus, p + ["shuffle"]) == "On")

        // A pause made by another sender shows up in `playerctl --follow status`.
        try await playerctl(bus, p + ["play"])
        let follow = try ChildProcess(try #require(Self.playerctlPath), p + ["--follow", "status"], environment: bus.environment)
        let followGuard = watchdog(follow)
        defer { followGuard.cancel() }
        #expect(await follow.waitForLine(where: { $0 == "Playing" }) != nil)
        _ = try await otherSender("pause", receiver: receiver)
        #expect(await follow.waitForLine(where: { $0 == "Paused" }) != nil, "\(follow.output)")
        _ = await follow.terminate()

        // The interfaces as the specification defines them.
        if let busctl = Self.busctlPath {
            let introspection = try ChildProcess(busctl, ["--user", "introspect", busName, "/org/mpris/MediaPlayer2"], environment: bus.environment)
            _ = await introspection.waitForExit()
            let text = introspection.output.joined(separator: "\n")
            for expected in ["org.mpris.MediaPlayer2 ", "org.mpris.MediaPlayer2.Player ", ".SetPosition ", "ox ", ".Seeked ", ".LoopStatus ",
                             ".Volume ", ".Metadata ", "a{sv}"] {
                #expect(text.contains(expected), "missing \(expected) in \(text)")
            }
        }

        // Bad input gets the spec's error, not a crash.
        let bad = try ChildProcess(try #require(Self.playerctlPath), p + ["open", "ftp://example.com/a.mp3"], environment: bus.environment)
        #expect(await bad.waitForExit() != 0)

        // SIGTERM: castctl leaves the bus and exits cleanly; the receiver's session keeps playing.
        #expect(await child.terminate() == 0, "\(child.errorOutput)")
        let after = try ChildProcess(try #require(Self.playerctlPath), ["--list-all"], environment: bus.environment)
        _ = await after.waitForExit()
        #expect(!after.output.contains(player), "\(after.output)")
        _ = await bus.daemon.terminate()
        let exit = await receiver.child.terminate()
        #expect(exit == 0, "violations: \(receiver.child.output.filter { $0.contains("violation") })")
        finished = true
    }

    @Test("A song of 1e21 seconds that pychromecast loaded is published with the longest length D-Bus holds, and playerctl seeks in it",
          .enabled(if: hasPlayerctlPeers, "needs dbus-daemon (apt dbus), playerctl and Debian's python3-pychromecast"))
    func aDurationNoDurationHoldsIsTheLongestLength() async throws {
        let receiver = try await ReceiverProcess.start()
        let bus = try await PrivateBus.start()
        var stopped = false
        defer { if !stopped { kill(receiver.child.pid, SIGKILL); kill(bus.daemon.pid, SIGKILL) } }
        // Another sender (not ours) loads it; the receiver reports what the LOAD said, as devices do.
        let loaded = try await otherSender("huge", receiver: receiver)
        #expect(loaded["status"]?["media"]?["duration"]?.doubleValue == 1e21)

        // castctl mpris joins the session: its player turns the reported numbers into Durations and
        // microseconds (both trapped on such numbers before 2a3f3a5).
        let (child, busName, mprisGuard) = try await startCastctlMPRIS(receiver, bus)
        defer {
            mprisGuard.cancel()
            if !stopped { kill(child.pid, SIGKILL) }
        }
        let p = ["--player", String(busName.dropFirst("org.mpris.MediaPlayer2.".count))]
        #expect(try await playerctl(bus, p + ["metadata", "--format", "{{title}} {{mpris:length}}"]) == "Forever \(Int64.max)")
        #expect(try await playerctl(bus, p + ["status"]) == "Playing")

        // A seek a billion seconds in reaches the receiver, and the position reads back.
        try await playerctl(bus, p + ["position", "1000000000"])
        let status = try await otherSender("status", receiver: receiver)
        #expect(status["status"]?["currentTime"]?.doubleValue.map { $0 >= 1e9 } == true, "\(status)")
        let position = try await playerctl(bus, p + ["position"])
        #expect(Double(position).map { $0 >= 1e9 } == true, "position \(position)")

        #expect(await child.terminate() == 0, "\(child.errorOutput)")
        _ = await bus.daemon.terminate()
        #expect(await receiver.child.terminate() == 0)
        stopped = true
    }

    @Test("With --host and no --name, Identity is the name the device gives itself (eureka_info on port 8008), read with dbus-send",
          .enabled(if: Peers.inCI || (Peers.onPath("dbus-daemon") != nil && Peers.onPath("dbus-send") != nil && Peers.hasDebianPychromecast),
                   "needs dbus-daemon and dbus-send (apt dbus) and Debian's python3-pychromecast"))
    func identityIsTheDevicesOwnName() async throws {
        // The device's own ports, as a real device has them (the other tests keep eureka_info off).
        let receiver = try await ReceiverProcess.start(["--name", "Kitchen Speaker", "--eureka-port", "8008"])
        let bus = try await PrivateBus.start()
        var mpris: ChildProcess?
        defer { for pid in [mpris?.pid, bus.daemon.pid, receiver.child.pid].compactMap({ $0 }) { kill(pid, SIGKILL) } }
        _ = try await otherSender("load", receiver: receiver)
        let child = try ChildProcess(TestPaths.program("castctl"), ["mpris", "--host", "127.0.0.1", "--port", String(receiver.port)],
                                     environment: bus.environment)
        mpris = child
        let published = await child.waitForLine(where: { $0.hasPrefix("published ") })
        let busName = try #require(published?.dropFirst("published ".count).description, "castctl mpris: \(child.errorOutput)")
        let get = try ChildProcess(try #require(Peers.onPath("dbus-send")), [
            "--session", "--print-reply", "--dest=\(busName)", "/org/mpris/MediaPlayer2",
            "org.freedesktop.DBus.Properties.Get", "string:org.mpris.MediaPlayer2", "string:Identity",
        ], environment: bus.environment)
        #expect(await get.waitForExit() == 0, "\(get.errorOutput)")
        #expect(get.output.joined(separator: "\n").contains("string \"Kitchen Speaker\""), "\(get.output)")
        #expect(await child.terminate() == 0, "\(child.errorOutput)")
    }
}
