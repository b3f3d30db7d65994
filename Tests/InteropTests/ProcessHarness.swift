import CastTestSupport
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
