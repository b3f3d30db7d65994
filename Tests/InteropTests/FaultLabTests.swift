import CastJSON
import CastTestSupport
import Foundation
import Testing

/// The fault lab: `cast-receiver` in one network namespace, `castctl cast` in another, joined by a
/// veth (scripts/lab/castlab.sh), and real faults between them: every packet dropped by iptables,
/// then the receiver killed with SIGKILL and restarted. Root only (CI runs it as root).
///
/// The test asserts what happens (loss reported, session rejoined or resumed with the same content);
/// it prints the figures it measures (detection time, time to resume, position error) as
/// `fault-lab:` lines for the report, and never compares them with a threshold.
@Suite("Fault lab", .serialized, .enabled(if: getuid() == 0, "needs root to create network namespaces (CI runs the fault lab as root)"))
struct FaultLabTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/lab/castlab.sh").path
    static let receiverAddress = "10.77.0.1"
    static let senderAddress = "10.77.0.2"

    /// Runs `castlab.sh` with `arguments` to completion, its output to /dev/null (the daemons it
    /// starts must not hold a pipe of ours). Throws on a non-zero status.
    static func lab(_ arguments: [String]) async throws {
        let quoted = ([script] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let child = try ChildProcess("/bin/sh", ["-c", "\(quoted) >/dev/null 2>&1"])
        let status = await child.waitForExit()
        guard status == 0 else { throw HarnessError(message: "castlab.sh \(arguments.joined(separator: " ")) failed: \(status)") }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test func dropThenKillAndRestartAreRecovered() async throws {
        let tag = String(format: "f%06x", UInt32.random(in: 0..<0xffffff))
        try await Self.lab(["up", tag])
        let children = ChildList()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-faultlab-\(UUID().uuidString)")
        do {
            try await runFaults(tag: tag, folder: folder, children: children)
        } catch {
            Issue.record("fault lab failed: \(error)")
        }
        for child in children.all { _ = await child.terminate(signal: SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
        try await Self.lab(["down", tag])
    }

    /// The processes a run started, ended (SIGKILL) whatever happens.
    final class ChildList: @unchecked Sendable {
        private let lock = NSLock()
        private var children: [ChildProcess] = []
        func append(_ child: ChildProcess) { lock.withLock { children.append(child) } }
        var all: [ChildProcess] { lock.withLock { children } }
    }

    func runFaults(tag: String, folder: URL, children: ChildList) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(CastLocalFilesEndToEndTests.movie).write(to: folder.appendingPathComponent("movie.mp4"))
        let id = UUID().uuidString.lowercased()
        func startReceiver() async throws -> ChildProcess {
            let receiver = try ChildProcess(Self.script, ["exec", tag, "a", TestPaths.program("cast-receiver"), "--name", "Lab TV",
                                                          "--host", Self.receiverAddress, "--port", "8009", "--id", id,
                                                          "--eureka-port", "0", "--eureka-tls-port", "0"])
            children.append(receiver)
            guard await receiver.waitForLine(where: { $0.contains("listening on") }) != nil else {
                throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)")
            }
            return receiver
        }
        func castctl(_ arguments: [String]) throws -> ChildProcess {
            let child = try ChildProcess(Self.script, ["exec", tag, "b", TestPaths.program("castctl")] + arguments)
            children.append(child)
            return child
        }
        func event(_ child: ChildProcess, _ name: String) async -> JSONValue? {
            let line = await child.waitForLine { line in
                (try? JSONValue(parsing: line))?["event"]?.stringValue == name
            }
            return line.flatMap { try? JSONValue(parsing: $0) }
        }
        var receiver = try await startReceiver()
        let cast = try castctl(["cast", folder.appendingPathComponent("movie.mp4").path, "--host", Self.receiverAddress,
                                "--port", "8009", "--serve-host", Self.senderAddress, "--json", "--timeout", "60",
                                "--reconnect-timeout", "120"])
        let loaded = await cast.waitForLine { $0.contains("\"playerState\"") }
        #expect(loaded?.contains("PLAYING") == true, "\(cast.output) \(cast.errorOutput)")

        // 1. Every packet dropped both ways: the heartbeat notices, reconnecting starts; when the
        //    rules go, the session is rejoined where the receiver still is.
        let dropped = ContinuousClock.now
        for chain in ["INPUT", "OUTPUT"] { try await Self.lab(["exec", tag, "a", "iptables", "-A", chain, "-j", "DROP"]) }
        let lost = await event(cast, "connectionLost")
        #expect(lost != nil, "\(cast.output)")
        let detected = ContinuousClock.now
        _ = await cast.waitForLine { ($0.contains("\"reconnecting\"") && $0.contains("\"attempt\":2")) }
        for chain in ["INPUT", "OUTPUT"] { try await Self.lab(["exec", tag, "a", "iptables", "-D", chain, "-j", "DROP"]) }
        let undropped = ContinuousClock.now
        let rejoined = await event(cast, "rejoined")
        #expect(rejoined != nil, "\(cast.output) \(cast.errorOutput)")
        let rejoinedAt = ContinuousClock.now
        print("fault-lab: DROP: loss detected after \(String(format: "%.2f", Self.seconds(detected - dropped))) s; "
              + "rejoined \(String(format: "%.2f", Self.seconds(rejoinedAt - undropped))) s after the rules were removed "
              + "at position \(rejoined?["position"]?.doubleValue ?? -1)")

        // 2. kill -9, restart once castctl has found the device gone (an attempt refused): the same
        //    content again, at the position extrapolated to the loss.
        let before = rejoined?["position"]?.doubleValue ?? 0
        let beforeAt = rejoinedAt
        let killedAt = ContinuousClock.now
        kill(receiver.pid, SIGKILL)
        _ = await receiver.waitForExit()
        let firstLoss = lost?["message"]?.stringValue
        let lostAgain = await cast.waitForLine { line in
            let value = try? JSONValue(parsing: line)
            return value?["event"]?.stringValue == "connectionLost" && value?["message"]?.stringValue != firstLoss
        }
        let detectedAgain = ContinuousClock.now
        #expect(lostAgain != nil)
        #expect(await FaultLab.failedReconnectAttempt(cast) != nil, "\(cast.output)")
        let restartedAt = ContinuousClock.now
        receiver = try await startReceiver()
        let resumed = await event(cast, "resumed")
        #expect(resumed != nil, "\(cast.output) \(cast.errorOutput)")
        let resumedAt = ContinuousClock.now
        let expected = before + Self.seconds(killedAt - beforeAt)
        let position = resumed?["position"]?.doubleValue ?? -1
        let detection = String(format: "%.3f", Self.seconds(detectedAgain - killedAt))
        let toResume = String(format: "%.2f", Self.seconds(resumedAt - restartedAt))
        let figures = String(format: "position %.2f s vs extrapolated %.2f s (error %.2f s)", position, expected, position - expected)
        print("fault-lab: kill -9: loss detected after \(detection) s; resumed \(toResume) s after the restart; \(figures)")
        let after = try castctl(["status", "--host", Self.receiverAddress, "--port", "8009"])
        _ = await after.waitForExit()
        #expect(after.output.contains { $0.contains("Default Media Receiver") }, "\(after.output)")

        let exit = await cast.terminate(signal: SIGINT)
        #expect(exit == 0, "\(cast.errorOutput)")
        _ = await receiver.terminate()
    }
}
