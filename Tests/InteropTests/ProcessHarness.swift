import Foundation
import Synchronization

/// Paths the end-to-end tests need: the built programs and the Python venv.
enum TestPaths {
    /// The package root (two levels above this file).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The folder holding the built executables: next to the test bundle, or `CASTOR_BIN_DIR`.
    static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["CASTOR_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while candidate.path != "/" {
            candidate = candidate.deletingLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("castctl").path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug")
    }

    static func program(_ name: String) -> String { binDirectory.appendingPathComponent(name).path }

    /// The Python with pychromecast: `CASTOR_PYTHON`, or the package's `.venv`.
    static var python: String? {
        let candidates: [String?] = [ProcessInfo.processInfo.environment["CASTOR_PYTHON"], packageRoot.appendingPathComponent(".venv/bin/python").path]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A child process whose output lines can be awaited.
final class ChildProcess: Sendable {
    let process: Process
    private let lines = Mutex<[String]>([])
    private let errorText = Mutex("")
    private let waiters = Mutex<[(predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)]>([])
    private let finished = Mutex(false)

    init(_ executable: String, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let buffer = Mutex(Data())
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard let self else { return }
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                self.finish()
                return
            }
            let complete: [String] = buffer.withLock { data in
                data.append(chunk)
                var result: [String] = []
                while let newline = data.firstIndex(of: 0x0a) {
                    result.append(String(decoding: data[data.startIndex..<newline], as: UTF8.self))
                    data.removeSubrange(data.startIndex...newline)
                }
                return result
            }
            for line in complete { self.append(line) }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            if chunk.isEmpty { handle.readabilityHandler = nil; return }
            self?.errorText.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
        }
        try process.run()
    }

    private func append(_ line: String) {
        let ready = lines.withLock { lines in
            lines.append(line)
            return waiters.withLock { waiters in
                var ready: [CheckedContinuation<String?, Never>] = []
                waiters.removeAll { waiter in
                    guard waiter.predicate(line) else { return false }
                    ready.append(waiter.continuation)
                    return true
                }
                return ready
            }
        }
        for continuation in ready { continuation.resume(returning: line) }
    }

    private func finish() {
        finished.withLock { $0 = true }
        let pending = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters.map(\.continuation)
        }
        for continuation in pending { continuation.resume(returning: nil) }
    }

    /// Waits for the first output line satisfying `predicate` (nil when the output ends first).
    func waitForLine(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let found: String?? = lines.withLock { lines in
                if let line = lines.first(where: predicate) { return .some(line) }
                if finished.withLock({ $0 }) { return .some(nil) }
                waiters.withLock { $0.append((predicate, continuation)) }
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Every output line so far.
    var output: [String] { lines.withLock { $0 } }
    /// Everything written to standard error so far.
    var errorOutput: String { errorText.withLock { $0 } }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() async -> Int32 {
        if process.isRunning { process.terminate() }
        return await waitForExit()
    }

    /// Waits for the process to exit.
    func waitForExit() async -> Int32 {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        _ = await waitForLine { _ in false }  // drain: returns when the output pipe closes
        return process.terminationStatus
    }
}

/// A running `cast-receiver` program and the port it listens on.
struct ReceiverProcess {
    let child: ChildProcess
    let port: Int
    let id: String

    static let echoApp = "E4C40001=urn:x-cast:com.castor.test.echo"

    static func start(_ extra: [String] = []) async throws -> ReceiverProcess {
        let id = UUID().uuidString.lowercased()
        let child = try ChildProcess(
            TestPaths.program("cast-receiver"),
            ["--name", "Interop TV", "--port", "0", "--id", id, "--echo-app", echoApp] + extra)
        guard let ready = await child.waitForLine(where: { $0.contains("listening on") }),
            let port = ready.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            _ = await child.terminate()
            throw HarnessError(message: "cast-receiver did not start: \(child.output) \(child.errorOutput)")
        }
        return ReceiverProcess(child: child, port: port, id: id)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs a program to completion and returns its exit status and output.
func runProgram(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: [String], stderr: String) {
    let child = try ChildProcess(executable, arguments)
    let status = await child.waitForExit()
    return (status, child.output, child.errorOutput)
}
