import CastJSON
import Foundation
import Testing

/// pychromecast, a real third-party sender, drives the `cast-receiver` program over real TLS.
@Suite("Interop: pychromecast drives cast-receiver", .serialized)
struct PychromecastInteropTests {
    static let python = TestPaths.python

    @Test(.enabled(if: python != nil, "needs the Python venv with pychromecast: run `make test` (scripts/bootstrap.sh test)"))
    func pychromecastRunsAWholeSession() async throws {
        let receiver = try await ReceiverProcess.start()
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/pychromecast_driver.py").path
        let result = try await runProgram(
            try #require(Self.python),
            [script, "--port", String(receiver.port), "--uuid", receiver.id, "--echo-app", ReceiverProcess.echoApp])
        let stopped = await receiver.stopAndCountViolations()
        var checks: [String: (ok: Bool, detail: String)] = [:]
        var done = false
        for line in result.stdout {
            guard let json = try? JSONValue(parsing: line) else { continue }
            if json["done"] == true { done = true }
            if let name = json["check"]?.stringValue {
                checks[name] = (json["ok"]?.boolValue ?? false, json["detail"]?.stringValue ?? "")
            }
        }
        #expect(result.status == 0, "driver failed: \(result.stderr.suffix(2000))")
        #expect(done, "the driver did not finish: \(result.stdout)")
        let expected = [
            "receiver_status", "set_volume", "mute", "unmute", "launch_dmr", "play_media", "subtitle_track", "title",
            "pause", "play", "seek", "enable_subtitle", "queue_next", "queue_prev", "huge_duration", "huge_seek",
            "huge_start", "huge_status", "custom_namespace_launch",
            "custom_namespace_round_trip", "quit_app",
        ]
        for name in expected {
            let check = checks[name]
            #expect(check?.ok == true, "\(name): \(check?.detail ?? "not reported")")
        }
        #expect(checks["exception"] == nil, "\(checks["exception"]?.detail ?? "")")
        // The receiver exits cleanly on SIGTERM; a whole pychromecast session (volume, media, tracks,
        // queue, durations and positions no Duration holds, a custom namespace) is accepted without a
        // single refusal.
        print("cast-receiver violations with pychromecast 14 (whole session): \(stopped.violations.map(String.init) ?? "unknown")")
        #expect(stopped.status == 0)
        #expect(stopped.violations == 0, "\(stopped.lines)")
    }
}
