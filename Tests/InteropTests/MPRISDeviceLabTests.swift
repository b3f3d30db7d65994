import CastJSON
import CastTestSupport
import Foundation
import Testing

/// `castctl mpris --device NAME`: the device found over mDNS. `cast-receiver --advertise` in one
/// network namespace (its own avahi-daemon), castctl in the other (its own avahi-daemon), joined by
/// a veth (scripts/lab/castlab.sh); pychromecast loads, playerctl reads and drives the player on a
/// private session bus (a socket path, reachable from both namespaces). Root only (CI runs it as root).
@Suite("MPRIS over mDNS", .serialized)
struct MPRISDeviceLabTests {
    static let script = TestPaths.packageRoot.appendingPathComponent("scripts/lab/castlab.sh").path
    static let receiverAddress = "10.77.0.1"
    static let available = getuid() == 0 && (Peers.inCI || (Peers.onPath("dbus-daemon") != nil && Peers.onPath("playerctl") != nil
                                                             && Peers.onPath("avahi-daemon") != nil && Peers.hasDebianPychromecast))

    /// Runs `castlab.sh` to completion, its output to /dev/null (the daemons it starts must not hold a pipe of ours).
    static func lab(_ arguments: [String]) async throws {
        let quoted = ([script] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let child = try ChildProcess("/bin/sh", ["-c", "\(quoted) >/dev/null 2>&1"])
        guard await child.waitForExit() == 0 else { throw HarnessError(message: "castlab.sh \(arguments.joined(separator: " ")) failed") }
    }

    @Test("castctl mpris --device finds the receiver by its friendly name over mDNS and publishes what plays on it",
          .enabled(if: available, "needs root (network namespaces), avahi-daemon, dbus-daemon, playerctl and Debian's python3-pychromecast"))
    func deviceFoundOverMDNS() async throws {
        let tag = String(format: "m%06x", UInt32.random(in: 0..<0xffffff))
        try await Self.lab(["up", tag])
        var children: [ChildProcess] = []
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("castor-mpris-\(tag).sock").path
        do {
            try await run(tag: tag, socket: socket) { children.append($0) }
        } catch {
            Issue.record("MPRIS lab failed: \(error)")
        }
        for child in children.reversed() { _ = await child.terminate(signal: SIGKILL) }
        try? FileManager.default.removeItem(atPath: socket)
        try await Self.lab(["down", tag])
    }

    func run(tag: String, socket: String, keep: (ChildProcess) -> Void) async throws {
        let id = UUID().uuidString.lowercased()
        let name = "MPRIS Lab TV \(tag)"
        let receiver = try ChildProcess(Self.script, ["exec", tag, "a", TestPaths.program("cast-receiver"), "--advertise", "--name", name,
                                                      "--host", Self.receiverAddress, "--port", "8009", "--id", id,
                                                      "--eureka-port", "0", "--eureka-tls-port", "0"])
        keep(receiver)
        guard await receiver.waitForLine(where: { $0.contains("listening on") }) != nil else {
            throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)")
        }
        let sender = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/mpris_other_sender.py").path
        func otherSender(_ command: String) async throws -> JSONValue {
            let child = try ChildProcess(Self.script, ["exec", tag, "a", try #require(Peers.debianPython), sender, command,
                                                       "--host", Self.receiverAddress, "--port", "8009", "--uuid", id])
            _ = await child.waitForExit()
            return try JSONValue(parsing: child.output.last ?? "")
        }
        #expect(try await otherSender("load")["status"]?["playerState"] == "PLAYING")

        // A session bus on a socket path (abstract sockets do not cross network namespaces).
        let daemon = try ChildProcess(try #require(Peers.onPath("dbus-daemon")),
                                      ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(socket)", "--print-address=1"])
        keep(daemon)
        let address = try #require(await daemon.waitForLine(where: { $0.hasPrefix("unix:") }), "dbus-daemon: \(daemon.errorOutput)")
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address.trimmingCharacters(in: .whitespaces)
        environment["CASTOR_LOG_LEVEL"] = nil
        let bus = PrivateBus(daemon: daemon, address: environment["DBUS_SESSION_BUS_ADDRESS"]!)

        let mpris = try ChildProcess(Self.script, ["exec", tag, "b", TestPaths.program("castctl"), "mpris", "--device", name,
                                                   "--bus-address", bus.address], environment: environment)
        keep(mpris)
        let mprisGuard = watchdog(mpris, seconds: 120)
        defer { mprisGuard.cancel() }
        let published = try #require(await mpris.waitForLine(where: { $0.hasPrefix("published ") }), "castctl mpris: \(mpris.errorOutput)")
        let player = String(published.dropFirst("published org.mpris.MediaPlayer2.".count))
        let peers = MPRISInteropTests()
        let p = ["--player", player]
        #expect(try await peers.playerctl(bus, p + ["metadata", "--format", "{{title}} {{artist}} {{mpris:length}}"]) == "Song 1 The Castors 200000000")
        #expect(try await peers.playerctl(bus, p + ["status"]) == "Playing")
        try await peers.playerctl(bus, p + ["play-pause"])
        #expect(try await otherSender("status")["status"]?["playerState"] == "PAUSED")
        #expect(await mpris.terminate() == 0, "\(mpris.errorOutput)")
    }
}
