import CastTestSupport
import Foundation
import Testing

/// Whether this process runs as root (the lab needs network namespaces).
let isRoot = getuid() == 0

/// Paths the lab needs, found relative to this file and the test binary.
enum LabPaths {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let script = packageRoot.appendingPathComponent("scripts/lab/castlab.sh").path
    static func labScript(_ name: String) -> String { packageRoot.appendingPathComponent("scripts/lab/\(name)").path }

    /// The CastDiscoveryLabTool executable built next to the test bundle.
    static var tool: String? {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var candidates: [URL] = []
        var directory = binary.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("CastDiscoveryLabTool"))
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/CastDiscoveryLabTool"))
        return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The Python with pychromecast and zeroconf (`scripts/bootstrap.sh test` creates `.venv`).
    static var python: String? {
        let candidates = [ProcessInfo.processInfo.environment["CASTOR_PYTHON"],
                          packageRoot.appendingPathComponent(".venv/bin/python").path].compactMap { $0 }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

struct LabError: Error, CustomStringConvertible {
    var description: String
}

/// Two network namespaces joined by a veth pair, each with its own dbus-daemon and avahi-daemon
/// (scripts/lab/castlab.sh). `down()` ends only the processes this lab started and deletes its
/// namespaces; call it in a `defer`.
final class LabNetwork: @unchecked Sendable {
    let tag: String
    private var processes: [LabProcess] = []
    private let lock = NSLock()

    /// Host a's and b's addresses and interface names.
    static let addressA = "10.77.0.1"
    static let addressB = "10.77.0.2"
    var interfaceA: String { "cl\(tag)va" }
    var interfaceB: String { "cl\(tag)vb" }

    private init(tag: String) { self.tag = tag }

    static func up() throws -> LabNetwork {
        let tag = String(format: "%05x", UInt32.random(in: 0..<0xfffff)) + String(getpid() % 100)
        let lab = LabNetwork(tag: String(tag.prefix(8)))
        do {
            _ = try run([script, "up", lab.tag])
        } catch {
            lab.down()
            throw error
        }
        return lab
    }

    private static var script: String { LabPaths.script }

    /// Runs a command to completion and returns its stdout.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        // Output goes to files, not pipes: a daemon started by the command must not hold our
        // read end open.
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("castlab-out-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent("castlab-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let outFD = open(outURL.path, O_WRONLY | O_CLOEXEC)
        let errFD = open(errURL.path, O_WRONLY | O_CLOEXEC)
        let nullFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(outFD); close(errFD); close(nullFD) }
        let pid = try spawnChild(arguments, stdin: nullFD, stdout: outFD, stderr: errFD)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? Data(contentsOf: outURL)) ?? Data()
        let errors = (try? Data(contentsOf: errURL)) ?? Data()
        guard exitCode == 0 else {
            throw LabError(description: "\(arguments.joined(separator: " ")) failed (\(exitCode)): "
                + String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Starts `command` inside host `a` or `b`.
    func spawn(_ host: String, _ command: [String]) throws -> LabProcess {
        let process = try LabProcess(arguments: [Self.script, "exec", tag, host] + command)
        lock.withLock { processes.append(process) }
        return process
    }

    /// Runs `command` inside host `a` or `b` to completion; returns stdout.
    func run(_ host: String, _ command: [String]) throws -> String {
        try Self.run([Self.script, "exec", tag, host] + command)
    }

    func stopAvahi(_ host: String) throws { try Self.run([Self.script, "stop-avahi", tag, host]) }
    func startAvahi(_ host: String) throws { try Self.run([Self.script, "start-avahi", tag, host]) }

    /// Ends the processes this lab spawned, then the daemons, then deletes the namespaces.
    func down() {
        for process in lock.withLock({ processes }) { process.end() }
        _ = try? Self.run([Self.script, "down", tag])
    }
}

/// Starts `arguments` with the given descriptors as stdin/stdout/stderr (see `ChildProcess.spawn`).
///
/// `posix_spawn` and `waitpid` on the child's own PID rather than Foundation's `Process`, whose
/// Linux monitor blocks in `waitpid` on one running child and then reaps no other.
func spawnChild(_ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32 = -1) throws -> pid_t {
    do {
        return try ChildProcess.spawn(arguments, stdin: stdin, stdout: stdout, stderr: stderr)
    } catch {
        throw LabError(description: "\(error)")
    }
}

/// A process started in a lab namespace; its stdout lines arrive in ``lines``.
///
/// Spawned with `posix_spawn` and reaped with `waitpid` on its own PID: Foundation's `Process`
/// monitor on Linux blocks in `waitpid` on one running child and then never reaps the others.
final class LabProcess: @unchecked Sendable {
    let pid: pid_t
    private var inputFD: Int32
    let lines: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private var iterator: AsyncStream<String>.AsyncIterator
    private(set) var transcript: [String] = []
    /// Every line the process printed so far, read or not (at most ``printedCap``, the newest kept),
    /// for ``firstToPrint(_:limit:where:)``.
    private var printed: [String] = []
    static let printedCap = 10_000
    /// Left by the reaper thread once the process has exited and been reaped (`waitpid` on its pid).
    private let exitGroup = DispatchGroup()
    /// Whether the reaper has reaped the process (under `lock`).
    private var exited = false
    private let lock = NSLock()

    init(arguments: [String]) throws {
        (lines, continuation) = AsyncStream.makeStream(of: String.self)
        iterator = lines.makeAsyncIterator()
        var stdinPipe: [Int32] = [0, 0], stdoutPipe: [Int32] = [0, 0]
        guard ChildProcess.makeChannel(&stdinPipe), ChildProcess.makeChannel(&stdoutPipe) else { throw LabError(description: "socketpair failed") }
        for fd in stdinPipe + stdoutPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let child: pid_t
        do {
            child = try spawnChild(arguments, stdin: stdinPipe[0], stdout: stdoutPipe[1])
        } catch {
            for fd in stdinPipe + stdoutPipe { close(fd) }
            throw error
        }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        pid = child
        inputFD = stdinPipe[1]
        let readFD = stdoutPipe[0]
        let continuation = self.continuation
        Thread.detachNewThread { [self] in
            var buffer = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                buffer += chunk[..<count]
                while let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    lock.withLock {
                        printed.append(line)
                        if printed.count > Self.printedCap { printed.removeFirst(printed.count - Self.printedCap) }
                    }
                    continuation.yield(line)
                    ChangeSignal.shared.bump()
                    buffer.removeSubrange(...newline)
                }
            }
            close(readFD)
            continuation.finish()
        }
        // The reaper: a blocking waitpid on this pid alone, so ending the process awaits its exit
        // (``end()`` waits on `exitGroup` with a deadline) instead of polling for it.
        exitGroup.enter()
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            lock.withLock { exited = true }
            exitGroup.leave()
        }
    }

    /// Sends a line to the process's stdin.
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        lock.withLock { _ = bytes.withUnsafeBytes { write(inputFD, $0.baseAddress, $0.count) } }
    }

    /// Closes stdin (the lab tools and scripts then clean up and exit).
    func closeInput() {
        lock.withLock {
            if inputFD >= 0 { close(inputFD) }
            inputFD = -1
        }
    }

    /// The next JSON line satisfying `predicate`. Gives up (returns nil) when the process ends
    /// or after `limit` — a safety net so a broken lab fails instead of hanging, not a timing check.
    func next(limit: Duration = .seconds(30), where predicate: ([String: Any]) -> Bool) async -> [String: Any]? {
        let continuation = self.continuation
        let watchdog = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { continuation.finish() }
        }
        defer { watchdog.cancel() }
        var iterator = self.iterator
        defer { self.iterator = iterator }
        while let line = await iterator.next() {
            transcript.append(line)
            if let object = Self.object(line), predicate(object) { return object }
        }
        return nil
    }

    /// Whether a line already read (in ``transcript``) satisfies `predicate`.
    func didPrint(where predicate: ([String: Any]) -> Bool) -> Bool {
        transcript.contains { Self.object($0).map(predicate) ?? false }
    }

    /// A line as a JSON object; `nil` when it is not one.
    static func object(_ line: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// The first of `processes` to print a JSON line satisfying `predicate` (already printed, read
    /// or not, or still to come), awaited without consuming anyone's lines; `nil` when none has
    /// after `limit` (a safety net so a broken lab fails instead of hanging, not a timing check).
    static func firstToPrint(_ processes: [LabProcess], limit: Duration = .seconds(30),
                             where predicate: @escaping ([String: Any]) -> Bool) async -> LabProcess? {
        func printer() -> LabProcess? {
            processes.first { process in
                process.lock.withLock { process.printed }.contains { object($0).map(predicate) ?? false }
            }
        }
        // Each line a process prints bumps ChangeSignal.shared, so the condition is re-read then.
        guard await ChangeSignal.shared.wait(for: { printer() != nil }, until: .now + limit) else { return nil }
        return printer()
    }

    /// Waits for the process to exit (after ``closeInput()``); it is reaped by its reaper thread.
    /// Gives up after `limit` (a safety net: the tools exit at stdin EOF), leaving it to ``end()``.
    func waitForExit(limit: Duration = .seconds(30)) {
        _ = exitGroup.wait(timeout: .now() + Self.seconds(limit))
    }

    /// Ends the process if it still runs: close stdin and give it up to 3 s to clean up (it
    /// withdraws its advertisement), then SIGTERM to this PID only and up to 3 s more, then
    /// SIGKILL. Each step waits for the reaper's exit event, not in a loop of sleeps.
    func end() {
        closeInput()
        for signal in [SIGTERM, SIGKILL] {
            if exitGroup.wait(timeout: .now() + 3) == .success { return }
            // Signal only while not reaped (a reaped pid may already belong to another process).
            lock.withLock { if !exited { kill(pid, signal) } }
        }
        // SIGKILL cannot be ignored, so the exit follows; the deadline only guards against a hang.
        _ = exitGroup.wait(timeout: .now() + 30)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
