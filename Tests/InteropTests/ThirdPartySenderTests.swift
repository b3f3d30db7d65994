import CastJSON
import Foundation
import Testing

/// Senders we did not write — VLC, catt, pychromecast 9.4 (Debian) and 14 (PyPI), nichromecast —
/// drive the `cast-receiver` program over real TLS on loopback, and the receiver records no violation.
///
/// Outside CI a missing sender skips its test with the reason; in CI (`CI=true`) it fails it, since
/// `make test` installs them all. VLC and catt need the device's standard ports (catt takes only an
/// address; VLC serves its stream on 8010), so they run in a private network namespace (root).
@Suite("Interop: third-party senders drive cast-receiver", .serialized)
struct ThirdPartySenderTests {
    static let driver = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/sender_session_driver.py").path
    static let isolatedDriver = TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/isolated_sender_driver.py").path
    /// The unprivileged user VLC runs as (VLC refuses to run as root); created when missing.
    static let vlcUser = "castor-interop"

    @Test("pychromecast 14 (PyPI): connect, launch, play, pause, seek, stop",
          .enabled(if: Peers.inCI || Peers.hasVenvPychromecast, "needs the venv with pychromecast 14: run `make test` (scripts/bootstrap.sh test)"))
    func pychromecast14() async throws {
        try await runSession(python: TestPaths.python, library: "pychromecast", sender: "pychromecast 14")
    }

    @Test("pychromecast 9.4 (Debian python3-pychromecast): connect, launch, play, pause, seek, stop",
          .enabled(if: Peers.inCI || Peers.hasDebianPychromecast, "needs Debian's python3-pychromecast (apt-get install python3-pychromecast)"))
    func pychromecast94() async throws {
        try await runSession(python: Peers.debianPython, library: "pychromecast", sender: "pychromecast 9.4", expectVersion: "9.")
    }

    @Test("nichromecast (PyPI): connect, launch, play, pause, seek, stop",
          .enabled(if: Peers.inCI || Peers.hasNichromecast, "needs the venv with nichromecast: run `make test` (scripts/bootstrap.sh test)"))
    func nichromecast() async throws {
        try await runSession(python: TestPaths.python, library: "nichromecast", sender: "nichromecast")
    }

    @Test("VLC 3.0 casts an ffmpeg clip: device auth, launch, LOAD, the receiver fetches VLC's stream, PLAYING, pause, seek, stop",
          .enabled(if: Peers.inCI || (Peers.isRoot && Peers.cvlc != nil && Peers.ffmpeg != nil),
                   "needs root (a network namespace and an unprivileged user, VLC refuses root), cvlc and ffmpeg"))
    func vlc() async throws {
        try #require(Peers.isRoot, "the VLC test runs as root (CI does)")
        try #require(Peers.cvlc != nil, "VLC is not installed (apt-get install vlc-bin vlc-plugin-base)")
        try #require(Peers.ffmpeg != nil && Peers.unshare != nil && Peers.runuser != nil, "ffmpeg, unshare and runuser are needed")
        try await ensureUser(Self.vlcUser)
        try await runIsolated(["vlc", "--user", Self.vlcUser], sender: "VLC",
                              expected: ["device_auth", "launch", "load", "fetch_vlc_stream", "playing", "pause", "resume",
                                         "seek", "stop", "vlc_exit", "receiver_exit"])
    }

    @Test("catt: status, info, cast of a 10 s clip with subtitles, seek, volume; the clip ends and catt exits 0",
          .enabled(if: Peers.inCI || (Peers.isRoot && Peers.catt != nil && Peers.ffmpeg != nil),
                   "needs root (a network namespace: catt only talks to port 8009), catt in the venv and ffmpeg"))
    func catt() async throws {
        try #require(Peers.isRoot, "the catt test runs as root (CI does)")
        let catt = try #require(Peers.catt, "catt is not installed in the venv: run scripts/bootstrap.sh test")
        try #require(Peers.ffmpeg != nil && Peers.unshare != nil, "ffmpeg and unshare are needed")
        try await runIsolated(["catt", "--catt", catt], sender: "catt",
                              expected: ["status", "info", "cast_playing", "duration", "seek", "volume", "cast_ends_by_itself",
                                         "subtitles_fetched", "duration_probe", "receiver_exit"])
    }

    // MARK: Helpers

    private func runSession(python: String?, library: String, sender: String, expectVersion: String? = nil) async throws {
        let python = try #require(python, "\(sender): no Python interpreter")
        let receiver = try await ReceiverProcess.start()
        let run: Result<(status: Int32, stdout: [String], stderr: String), any Error>
        do {
            run = .success(try await runProgram(
                python, [Self.driver, "--library", library, "--port", String(receiver.port), "--uuid", receiver.id,
                         "--media", "http://127.0.0.1:9/clip.mp4"]))
        } catch {
            run = .failure(error)
        }
        // The receiver is stopped whatever happened to the driver.
        let stopped = await receiver.stopAndCountViolations()
        let result = try run.get()
        let checks = Self.checks(result.stdout)
        #expect(result.status == 0, "\(sender) driver failed: \(result.stderr.suffix(2000))")
        #expect(checks.done, "\(sender) driver did not finish: \(result.stdout)")
        for name in ["connect", "launch", "play", "duration", "pause", "resume", "seek", "stop", "quit"] {
            #expect(checks.results[name]?.ok == true, "\(sender) \(name): \(checks.results[name]?.detail ?? "not reported")")
        }
        if let expectVersion {
            #expect(checks.results["library"]?.detail.contains("pychromecast \(expectVersion)") == true,
                    "\(checks.results["library"]?.detail ?? "no library line")")
        }
        print("cast-receiver violations with \(sender): \(stopped.violations.map(String.init) ?? "unknown")")
        #expect(stopped.status == 0)
        #expect(stopped.violations == 0, "\(sender): \(stopped.lines)")
    }

    private func runIsolated(_ arguments: [String], sender: String, expected: [String]) async throws {
        let workdir = FileManager.default.temporaryDirectory.appendingPathComponent("castor-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workdir) }
        let unshare = try #require(Peers.unshare)
        let python = try #require(Peers.debianPython, "needs /usr/bin/python3")
        let result = try await runProgram(
            unshare, ["-n", "--", python, Self.isolatedDriver] + arguments
                + ["--receiver", TestPaths.program("cast-receiver"), "--workdir", workdir.path])
        let checks = Self.checks(result.stdout)
        #expect(result.status == 0, "\(sender) driver failed: \(result.stderr.suffix(2000)) \(result.stdout.suffix(20))")
        #expect(checks.done, "\(sender) driver did not finish: \(result.stdout)")
        for name in expected {
            #expect(checks.results[name]?.ok == true, "\(sender) \(name): \(checks.results[name]?.detail ?? "not reported")")
        }
        #expect(checks.results["exception"] == nil, "\(checks.results["exception"]?.detail ?? "")")
        let violations = violationCount(in: checks.receiverLines)
        print("cast-receiver violations with \(sender): \(violations.map(String.init) ?? "unknown")")
        #expect(violations == 0, "\(sender): \(checks.receiverLines.filter { $0.contains("violation") })")
    }

    private func ensureUser(_ name: String) async throws {
        if getpwnam(name) != nil { return }
        let created = try await runProgram(
            "/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
        // Another test run may have created it in the meantime.
        #expect(created.status == 0 || getpwnam(name) != nil, "useradd \(name): \(created.stderr)")
    }

    private static func checks(_ lines: [String]) -> (results: [String: (ok: Bool, detail: String)], done: Bool, receiverLines: [String]) {
        var results: [String: (ok: Bool, detail: String)] = [:]
        var done = false
        var receiverLines: [String] = []
        for line in lines {
            guard let json = try? JSONValue(parsing: line) else { continue }
            if json["done"] == true { done = true }
            if let receiverLine = json["receiver"]?.stringValue { receiverLines.append(receiverLine) }
            if let name = json["check"]?.stringValue {
                results[name] = (json["ok"]?.boolValue ?? false, json["detail"]?.stringValue ?? "")
            }
        }
        return (results, done, receiverLines)
    }
}
