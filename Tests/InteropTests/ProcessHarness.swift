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

    /// Starts `cast-receiver` on a free port. eureka_info stays off (its device ports 8008/8443 would
    /// collide between tests running in parallel); the tests that need it run in a private network namespace.
    static func start(_ extra: [String] = []) async throws -> ReceiverProcess {
        let id = UUID().uuidString.lowercased()
        let child = try ChildProcess(
            TestPaths.program("cast-receiver"),
            ["--name", "Interop TV", "--port", "0", "--id", id, "--echo-app", echoApp, "--eureka-port", "0",
             "--eureka-tls-port", "0"] + extra)
        guard let ready = await child.waitForLine(where: { $0.contains("listening on") }),
            let port = ready.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            _ = await child.terminate()
            throw HarnessError(message: "cast-receiver did not start: \(child.output) \(child.errorOutput)")
        }
        return ReceiverProcess(child: child, port: port, id: id)
    }
}

/// Ports for a device that a test kills and starts again on the same port.
enum RestartablePort {
    /// Runs `start` with a random port below the kernel's ephemeral range (`ip_local_port_range`,
    /// 32768-60999 by default), another one each time it throws (at most 20 tries), and returns what
    /// it started.
    ///
    /// `--port 0` gives a port inside that range, and while the device is down its senders keep
    /// dialling it: the kernel can give one of those outgoing connections the very port it dials (a
    /// loopback self-connect), which then holds the port when the device comes back. Below the range
    /// no outgoing connection is given the port.
    static func start<T>(_ start: (Int) async throws -> T) async throws -> T {
        let ports = belowEphemeral
        var failures: [String] = []
        for _ in 0..<20 {
            let port = Int.random(in: ports)
            do {
                return try await start(port)
            } catch {
                failures.append("\(port): \(error)")
            }
        }
        throw HarnessError(message: "no receiver started on 20 random ports in \(ports): \(failures.joined(separator: "; "))")
    }

    /// Up to 12 000 ports just below the ephemeral range's first port (from 1 024 at the lowest).
    static var belowEphemeral: Range<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let first = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        let end = max(first, 2_048)
        return max(1_024, end - 12_000)..<end
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs a program to completion and returns its exit status and output.
func runProgram(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) async throws -> (status: Int32, stdout: [String], stderr: String) {
    let child = try ChildProcess(executable, arguments, environment: environment)
    let status = await child.waitForExit()
    return (status, child.output, child.errorOutput)
}

extension ReceiverProcess {
    /// Stops the receiver (SIGTERM) and returns how many violations it reported on exit.
    func stopAndCountViolations() async -> (status: Int32, violations: Int?, lines: [String]) {
        let status = await child.terminate()
        return (status, violationCount(in: child.output), child.output.filter { $0.contains("violation") })
    }
}

/// The number in cast-receiver's closing line, `cast-receiver: stopped; N violation(s)`.
func violationCount(in lines: [String]) -> Int? {
    for line in lines.reversed() {
        guard let range = line.range(of: "stopped; ") else { continue }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
    return nil
}

/// Where the third-party senders are, and whether a missing one may skip its test.
enum Peers {
    /// In CI (`CI=true`) every peer must be there: a missing one fails its test instead of skipping it.
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let isRoot = getuid() == 0

    static func executable(_ path: String) -> String? {
        FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// A program on `PATH`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A program installed in the package's venv (`catt`).
    static func inVenv(_ name: String) -> String? {
        guard let python = TestPaths.python else { return nil }
        return executable(URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent(name).path)
    }

    /// Whether a Python package is installed where `python` imports it from: Debian's dist-packages
    /// for /usr/bin/python3, the venv's site-packages otherwise. A file check, not an import: trait
    /// conditions run on the test pool's few threads and must not wait for a Python process.
    static func hasPackage(_ package: String, for python: String?) -> Bool {
        guard let python, FileManager.default.isExecutableFile(atPath: python) else { return false }
        let files = FileManager.default
        if python == "/usr/bin/python3" {
            return files.fileExists(atPath: "/usr/lib/python3/dist-packages/\(package)/__init__.py")
        }
        let lib = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
        let versions = (try? files.contentsOfDirectory(atPath: lib.path)) ?? []
        return versions.contains { version in
            let site = lib.appendingPathComponent("\(version)/site-packages")
            if files.fileExists(atPath: site.appendingPathComponent("\(package)/__init__.py").path) { return true }
            // A module that is one extension file (cast_sender.cpython-311-x86_64-linux-gnu.so).
            let entries = (try? files.contentsOfDirectory(atPath: site.path)) ?? []
            return entries.contains { $0.hasPrefix(package + ".") && $0.hasSuffix(".so") }
        }
    }

    /// Debian's python3 (with python3-pychromecast 9.4), never the venv's or pyenv's.
    static let debianPython = executable("/usr/bin/python3")
    static let hasDebianPychromecast = hasPackage("pychromecast", for: debianPython)
    static let hasVenvPychromecast = hasPackage("pychromecast", for: TestPaths.python)
    static let hasNichromecast = hasPackage("nichromecast", for: TestPaths.python)
    static let catt = inVenv("catt")
    static let cvlc = onPath("cvlc")
    static let ffmpeg = onPath("ffmpeg")
    static let unshare = onPath("unshare")
    static let runuser = onPath("runuser")
}

