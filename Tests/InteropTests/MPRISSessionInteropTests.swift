import CastJSON
import CastTestSupport
import Foundation
import Synchronization
import Testing

/// The MPRIS player through a receiver restart and alongside the TUI, read and driven by Debian's
/// `playerctl` on a private session bus (pychromecast is the other sender).
@Suite("MPRIS sessions with playerctl", .serialized)
struct MPRISSessionInteropTests {
    static let available = Peers.inCI || (Peers.onPath("dbus-daemon") != nil && Peers.onPath("playerctl") != nil && Peers.hasDebianPychromecast)
    let peers = MPRISInteropTests()

    /// Starts `cast-receiver` on `port` with device id `id` (the same device coming back after a restart).
    static func receiver(port: Int, id: String) async throws -> ReceiverProcess {
        let child = try ChildProcess(TestPaths.program("cast-receiver"),
                                     ["--name", "Interop TV", "--port", String(port), "--id", id, "--eureka-port", "0", "--eureka-tls-port", "0"])
        guard await child.waitForLine(where: { $0.contains("listening on") }) != nil else {
            _ = await child.terminate()
            throw HarnessError(message: "cast-receiver did not start on \(port): \(child.errorOutput)")
        }
        return ReceiverProcess(child: child, port: port, id: id)
    }

    /// `playerctl --follow status` for `player`: one line per PlaybackStatus change, starting with the current one.
    static func follow(_ bus: PrivateBus, _ player: String) throws -> ChildProcess {
        try ChildProcess(try #require(MPRISInteropTests.playerctlPath), ["--player", player, "--follow", "status"], environment: bus.environment)
    }

    @Test("The player survives a receiver restart (kill -9, started again): Stopped and still listed while reconnecting, then the resumed track playing",
          .enabled(if: available, "needs dbus-daemon (apt dbus), playerctl and Debian's python3-pychromecast"))
    func survivesAReceiverRestart() async throws {
        let first = try await RestartablePort.start { try await Self.receiver(port: $0, id: UUID().uuidString.lowercased()) }
        var second: ReceiverProcess?
        let bus = try await PrivateBus.start()
        var children: [ChildProcess] = []
        var finished = false
        defer {
            if !finished {
                for pid in children.map(\.pid) + [second?.child.pid, bus.daemon.pid, first.child.pid].compactMap({ $0 }) { kill(pid, SIGKILL) }
            }
        }
        _ = try await peers.otherSender("load", receiver: first)
        let mpris = try ChildProcess(TestPaths.program("castctl"), ["mpris", "--host", "127.0.0.1", "--port", String(first.port),
                                                                    "--reconnect-timeout", "120", "-v"], environment: bus.environment)
        children.append(mpris)
        let mprisGuard = watchdog(mpris, seconds: 300)  // a receiver restart and ~10 peer runs fit, however loaded
        defer { mprisGuard.cancel() }
        let published = try #require(await mpris.waitForLine(where: { $0.hasPrefix("published ") }), "castctl mpris: \(mpris.errorOutput)")
        let player = String(published.dropFirst("published org.mpris.MediaPlayer2.".count))
        let p = ["--player", player]
        #expect(try await peers.playerctl(bus, p + ["metadata", "--format", "{{title}} {{artist}} {{status}}"]) == "Song 1 The Castors Playing")
        try await peers.playerctl(bus, p + ["position", "30"])

        let before = try Self.follow(bus, player)
        children.append(before)
        let beforeGuard = watchdog(before)
        defer { beforeGuard.cancel() }
        #expect(await before.waitForLine(where: { $0 == "Playing" }) != nil)

        // The receiver dies without a word.
        kill(first.child.pid, SIGKILL)
        _ = await first.child.waitForExit()

        // While reconnecting: still on the bus (no flapping in the desktop's controls), Stopped,
        // no track, and nothing to control (a play is refused, not queued).
        #expect(await before.waitForLine(where: { $0 == "Stopped" }) != nil, "\(before.output)")
        let list = try await peers.playerctl(bus, ["--list-all"])
        #expect(list.split(separator: "\n").contains(Substring(player)), "\(list)")
        #expect(try await peers.playerctl(bus, p + ["status"]) == "Stopped")
        let play = try ChildProcess(try #require(MPRISInteropTests.playerctlPath), p + ["play"], environment: bus.environment)
        #expect(await play.waitForExit() != 0, "play while reconnecting: \(play.output)")
        let during = try Self.follow(bus, player)
        children.append(during)
        let duringGuard = watchdog(during, seconds: 120)
        defer { duringGuard.cancel() }
        #expect(await during.waitForLine(where: { $0 == "Stopped" }) != nil)

        // The device comes back on the same address, running no app: castctl's façade relaunches
        // the app and loads what played, and the player shows it playing again.
        let restarted = try await Self.receiver(port: first.port, id: first.id)
        second = restarted
        #expect(await during.waitForLine(where: { $0 == "Playing" }) != nil, "\(during.output) \(mpris.errorOutput)")
        #expect(try await peers.playerctl(bus, p + ["metadata", "--format", "{{title}} {{artist}} {{mpris:length}}"]) == "Song 1 The Castors 200000000")
        // Resumed where it was (30 s, plus playback until the loss), not from the start.
        let position = Double(try await peers.playerctl(bus, p + ["position"])) ?? 0
        #expect(position >= 30 && position < 200, "position after the resume: \(position)")
        let status = try await peers.otherSender("status", receiver: restarted)
        #expect(status["status"]?["playerState"] == "PLAYING")
        #expect(status["status"]?["media"]?["metadata"]?["title"] == "Song 1", "\(status)")

        // And it is driven as before.
        try await peers.playerctl(bus, p + ["pause"])
        #expect(try await peers.otherSender("status", receiver: restarted)["status"]?["playerState"] == "PAUSED")

        for child in [before, during] { _ = await child.terminate() }
        #expect(await mpris.terminate() == 0, "\(mpris.errorOutput)")
        _ = await bus.daemon.terminate()
        let stopped = await restarted.stopAndCountViolations()
        #expect(stopped.status == 0 && stopped.violations == 0, "\(stopped.lines)")
        finished = true
    }

    @Test("castctl tui --mpris publishes the TUI's session: playerctl reads and pauses it, and the TUI shows the pause",
          .enabled(if: Peers.inCI || (Peers.onPath("dbus-daemon") != nil && Peers.onPath("playerctl") != nil), "needs dbus-daemon (apt dbus) and playerctl"))
    func tuiPublishesItsSession() async throws {
        let bus = try await PrivateBus.start()
        let tui = try ChildProcess(TestPaths.program("castctl"), ["tui", "--emulated", "--mpris", "--frames", "100000", "--interval-ms", "50"],
                                   environment: bus.environment)
        let tuiGuard = watchdog(tui, seconds: 300)
        defer {
            tuiGuard.cancel()
            kill(tui.pid, SIGKILL)
            kill(bus.daemon.pid, SIGKILL)
        }
        let line = try #require(await tui.waitForLine(where: { $0.contains("desktop: org.mpris.MediaPlayer2.castor.") }),
                                "castctl tui: \(tui.errorOutput)")
        let busName = String(try #require(line.split(separator: " ").last))
        let player = String(busName.dropFirst("org.mpris.MediaPlayer2.".count))
        let p = ["--player", player]
        #expect(try await peers.playerctl(bus, ["--list-all"]).split(separator: "\n").contains(Substring(player)))
        #expect(try await peers.playerctl(bus, p + ["metadata", "--format", "{{title}} {{mpris:length}}"]) == "Big Buck Bunny 596000000")
        #expect(try await peers.playerctl(bus, p + ["status"]) == "Playing")
        try await peers.playerctl(bus, p + ["pause"])
        #expect(try await peers.playerctl(bus, p + ["status"]) == "Paused")
        // The TUI draws from the same façade: its next frames show the pause made from the desktop.
        #expect(await tui.waitForLine(where: { $0.contains("Big Buck") == false && $0.hasSuffix("paused  ×1.0") }) != nil, "\(tui.output.suffix(10))")
        try await peers.playerctl(bus, p + ["next"])
        #expect(try await peers.playerctl(bus, p + ["metadata", "title"]) == "Elephants Dream")
        _ = await tui.terminate()
        let after = try ChildProcess(try #require(MPRISInteropTests.playerctlPath), ["--list-all"], environment: bus.environment)
        _ = await after.waitForExit()
        #expect(!after.output.contains(player), "\(after.output)")
    }

    @Test("castctl mpris publishes while a session runs (started by another sender), removes the player when it ends, publishes the next one",
          .enabled(if: available, "needs dbus-daemon (apt dbus), playerctl and Debian's python3-pychromecast"))
    func followsSessionsAsTheyComeAndGo() async throws {
        let receiver = try await ReceiverProcess.start()
        let bus = try await PrivateBus.start()
        let mpris = try ChildProcess(TestPaths.program("castctl"), ["mpris", "--host", "127.0.0.1", "--port", String(receiver.port)],
                                     environment: bus.environment)
        let mprisGuard = watchdog(mpris, seconds: 300)
        defer {
            mprisGuard.cancel()
            for pid in [mpris.pid, bus.daemon.pid, receiver.child.pid] { kill(pid, SIGKILL) }
        }
        func listed() async throws -> [String] {
            let list = try ChildProcess(try #require(MPRISInteropTests.playerctlPath), ["--list-all"], environment: bus.environment)
            _ = await list.waitForExit()
            return list.output
        }
        func published(_ count: Int) async -> String? {
            let seen = Mutex(0)
            return await mpris.waitForLine { line in
                line.hasPrefix("published ") && seen.withLock { $0 += 1; return $0 == count }
            }
        }

        // Connected, nothing plays: no player.
        #expect(try await listed().allSatisfy { !$0.hasPrefix("castor.") })
        _ = try await peers.otherSender("load", receiver: receiver)
        let first = try #require(await published(1), "castctl mpris: \(mpris.errorOutput)")
        let player = String(first.dropFirst("published org.mpris.MediaPlayer2.".count))
        #expect(try await listed().contains(player))
        #expect(try await peers.playerctl(bus, ["--player", player, "metadata", "title"]) == "Song 1")

        // The other sender stops the app: the session is over and the player leaves the bus.
        _ = try await peers.otherSender("stop", receiver: receiver)
        #expect(await mpris.waitForLine { $0 == "no media session" } != nil, "\(mpris.output) \(mpris.errorOutput)")
        #expect(try await listed().allSatisfy { $0 != player })

        // The next session, started by anyone, is published again under the same name.
        _ = try await peers.otherSender("load", receiver: receiver)
        let second = try #require(await published(2), "\(mpris.output) \(mpris.errorOutput)")
        #expect(second == first)
        #expect(try await peers.playerctl(bus, ["--player", player, "status"]) == "Playing")

        #expect(await mpris.terminate(signal: SIGINT) == 0, "\(mpris.errorOutput)")
        _ = await bus.daemon.terminate()
        let stopped = await receiver.stopAndCountViolations()
        #expect(stopped.status == 0 && stopped.violations == 0, "\(stopped.lines)")
    }
}
