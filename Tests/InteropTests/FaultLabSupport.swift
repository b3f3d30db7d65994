import CastJSON
import CastTestSupport
import Foundation
import Synchronization
import Testing

/// One run of the fault lab: two namespaces from scripts/lab/castlab.sh (host a: the receiver,
/// 10.77.0.1; host b: the sender, 10.77.0.2), a folder with a movie, and every process the run
/// started. ``run(_:)`` tears it all down whatever happens, deleting only its own namespaces.
final class FaultLab: @unchecked Sendable {
    let tag: String
    let folder: URL
    let deviceId = UUID().uuidString.lowercased()
    private let lock = NSLock()
    private var children: [ChildProcess] = []

    private init(tag: String, folder: URL) {
        self.tag = tag
        self.folder = folder
    }

    /// Sets a lab up, runs `body`, and tears the lab down (also when `body` throws: the error is recorded).
    static func run(_ body: (FaultLab) async throws -> Void) async throws {
        let tag = String(format: "f%06x", UInt32.random(in: 0..<0xffffff))
        try await FaultLabTests.lab(["up", tag])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-faultlab-\(UUID().uuidString)")
        let lab = FaultLab(tag: tag, folder: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(CastLocalFilesEndToEndTests.movie).write(to: folder.appendingPathComponent("movie.mp4"))
            try await body(lab)
        } catch {
            Issue.record("fault lab failed: \(error)")
        }
        for child in lab.all { _ = await child.terminate(signal: SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
        try await FaultLabTests.lab(["down", tag])
    }

    var all: [ChildProcess] { lock.withLock { children } }

    /// Runs `command` inside host `host` to completion; throws on a non-zero status.
    func exec(_ host: String, _ command: [String]) async throws {
        try await FaultLabTests.lab(["exec", tag, host] + command)
    }

    /// Starts `cast-receiver` in host a, waits for its ready line.
    func startReceiver(host: String = FaultLabTests.receiverAddress, port: Int = 8009, extra: [String] = []) async throws -> ChildProcess {
        let receiver = try ChildProcess(FaultLabTests.script, [
            "exec", tag, "a", TestPaths.program("cast-receiver"), "--name", "Lab TV", "--host", host, "--port", String(port),
            "--id", deviceId, "--eureka-port", "0", "--eureka-tls-port", "0",
        ] + extra)
        lock.withLock { children.append(receiver) }
        guard await Self.line(receiver, where: { $0.contains("listening on") }) != nil else {
            throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)")
        }
        return receiver
    }

    /// Tears `child` down with the lab.
    func adopt(_ child: ChildProcess) {
        lock.withLock { children.append(child) }
    }

    /// Starts castctl in host b.
    func castctl(_ arguments: [String], standardInput: Bool = false) throws -> ChildProcess {
        let child = try ChildProcess(FaultLabTests.script, ["exec", tag, "b", TestPaths.program("castctl")] + arguments,
                                     standardInput: standardInput)
        lock.withLock { children.append(child) }
        return child
    }

    /// The first line of `child` satisfying `predicate`; `nil` when its output ends first. A safety
    /// net, not a timing assertion: a child that has not printed it after `limit` is killed (so a
    /// broken run fails instead of hanging CI).
    static func line(_ child: ChildProcess, limit: Duration = .seconds(150),
                     where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        let watchdog = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { kill(child.pid, SIGKILL) }
        }
        defer { watchdog.cancel() }
        return await child.waitForLine(where: predicate)
    }

    /// The `count`-th JSON line of `child` whose `event` is `name` (1-based); `nil` when the output ends first.
    static func event(_ child: ChildProcess, _ name: String, _ count: Int = 1) async -> JSONValue? {
        let seen = Mutex(0)
        let line = await Self.line(child) { line in
            guard (try? JSONValue(parsing: line))?["event"]?.stringValue == name else { return false }
            return seen.withLock { seen in
                seen += 1
                return seen >= count
            }
        }
        return line.flatMap { try? JSONValue(parsing: $0) }
    }

    /// The next `reconnecting` event of `child` (castctl `--json` or the façade driver) after those
    /// it has printed so far whose attempt is the second or later: the sender has tried the device
    /// at least once and failed. `nil` when the output ends first.
    static func failedReconnectAttempt(_ child: ChildProcess) async -> JSONValue? {
        @Sendable func retry(_ line: String) -> Bool {
            guard let value = try? JSONValue(parsing: line), value["event"]?.stringValue == "reconnecting" else { return false }
            return (value["attempt"]?.doubleValue ?? 0) >= 2
        }
        let earlier = child.output.filter(retry).count
        let seen = Mutex(0)
        let line = await Self.line(child) { line in
            guard retry(line) else { return false }
            return seen.withLock { seen in
                seen += 1
                return seen > earlier
            }
        }
        return line.flatMap { try? JSONValue(parsing: $0) }
    }

    /// The media position, title, playback rate and active track ids the receiver at `host:port`
    /// reports now: the status a PLAY (which changes nothing while it plays) is answered with, from a
    /// separate castctl.
    func receiverPosition(host: String, port: Int) async throws
        -> (position: Double, title: String?, rate: Double?, activeTrackIds: [Int])? {
        let play = try castctl(["play", "--host", host, "--port", String(port), "--json", "--timeout", "20"])
        _ = await play.waitForExit()
        guard let value = play.output.last.flatMap({ try? JSONValue(parsing: $0) }), let position = value["currentTime"]?.doubleValue
        else { return nil }
        let tracks = value["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) ?? []
        return (position, value["media"]?["metadata"]?["title"]?.stringValue, value["playbackRate"]?.doubleValue, tracks)
    }

    /// Descriptors and resident memory (KiB) of process `pid`, from /proc.
    static func footprint(of pid: pid_t) -> (descriptors: Int, rssKiB: Int)? {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return (fds.count, kib)
    }

    /// Waits until the file at `path` (a receiver's `--log`) holds a line satisfying `predicate`,
    /// woken by inotify when the file changes; `false` if none has after `limit` (a safety net, not
    /// a timing assertion).
    static func waitForFile(_ path: String, limit: Duration = .seconds(30), _ predicate: @escaping @Sendable (Substring) -> Bool) async -> Bool {
        await FileLineWatch.firstLine(in: path, until: .now + limit, where: predicate) != nil
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
}
