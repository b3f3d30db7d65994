import CastJSON
import CastTestSupport
import Foundation
import Testing

/// The example programs, run as a user runs them.
@Suite("Examples end to end", .serialized)
struct CastctlEndToEndTests {
    @Test func demoRunsAWholeSessionWithNoViolations() async throws {
        let result = try await runProgram(TestPaths.program("castctl"), ["demo", "--step-seconds", "0.2"])
        #expect(result.status == 0, "\(result.stdout.joined(separator: "\n"))\n\(result.stderr)")
        let text = result.stdout.joined(separator: "\n")
        for expected in ["device authentication: genuine", "Launched Default Media Receiver", "Loaded a queue of 3 items", "Seeked to 0:02:00",
                         "Playback rate 1.5×", "Subtitles on: active tracks [1]", "Next item: “Elephants Dream”",
                         "Muted: true", "got “HELLO FROM LINUX”", "Protocol violations recorded by the receiver: 0"] {
            #expect(text.contains(expected), "missing “\(expected)” in:\n\(text)")
        }
    }

    @Test func tuiDrawsTheExpandedControllerOverAnEmulatedSession() async throws {
        let result = try await runProgram(TestPaths.program("castctl"), ["tui", "--emulated", "--frames", "4", "--interval-ms", "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout.joined(separator: "\n")
        #expect(text.contains("Castor — Castor TUI TV"))
        #expect(text.contains("Big Buck Bunny"))
        #expect(text.contains("[1] ⏪") && text.contains("[␣]") && text.contains("[4] ⏩"))
        #expect(text.contains("volume  50%"))
    }

    @Test func castctlQueueOptionsAndLogLevels() async throws {
        let receiver = try await ReceiverProcess.start(["--strict"])
        let castctl = TestPaths.program("castctl")
        let device = ["--host", "127.0.0.1", "--port", String(receiver.port)]
        func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: [String], stderr: String) {
            var env = ProcessInfo.processInfo.environment
            env["CASTOR_LOG_LEVEL"] = nil
            env.merge(environment) { $1 }
            let child = try ChildProcess(castctl, arguments + device, environment: env)
            let status = await child.waitForExit()
            return (status, child.output, child.errorOutput)
        }

        // queue load takes what load takes: --content-type, --stream-type, --paused (autoplay false), a start.
        let queued = try await run(["queue", "load", "http://127.0.0.1:9/a.mp3", "http://127.0.0.1:9/b.mp3", "--content-type", "audio/mpeg",
                                    "--start-index", "1", "--start", "5", "--paused", "--json"])
        #expect(queued.status == 0, "\(queued.stderr)")
        let status = try JSONValue(parsing: queued.stdout.last ?? "")
        #expect(status["playerState"] == "PAUSED")
        #expect(status["media"]?["contentId"] == "http://127.0.0.1:9/b.mp3")
        #expect(status["media"]?["contentType"] == "audio/mpeg")
        #expect(status["currentTime"] == 5)
        let inserted = try await run(["queue", "insert", "http://127.0.0.1:9/c", "--content-type", "audio/flac", "--json"])
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let list = try await run(["queue", "list", "--json"])
        let items = try JSONValue(parsing: list.stdout.last ?? "").arrayValue ?? []
        #expect(items.map { $0["media"]?["contentType"]?.stringValue } == ["audio/mpeg", "audio/mpeg", "audio/flac"])
        #expect(items.map { $0["autoplay"]?.boolValue } == [true, false, true])

        // Logging: errors only by default; -v, --log-level and CASTOR_LOG_LEVEL raise it. The emulated
        // device has no genuine credentials: under the default `.report` policy that is a debug line.
        let authLine = "Device authentication failed"
        let quiet = try await run(["status"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(try await run(["status", "-v"]).stderr.contains(authLine))
        #expect(try await run(["status", "--log-level", "debug"]).stderr.contains(authLine))
        #expect(try await run(["status"], environment: ["CASTOR_LOG_LEVEL": "debug"]).stderr.contains(authLine))
        #expect(try await run(["status"], environment: ["CASTOR_LOG_LEVEL": "info"]).stderr.isEmpty)
        let flagWins = try await run(["status", "--log-level", "error"], environment: ["CASTOR_LOG_LEVEL": "trace"])
        #expect(flagWins.stderr.isEmpty, "\(flagWins.stderr)")
        let bogus = try await run(["status"], environment: ["CASTOR_LOG_LEVEL": "loud"])
        #expect(bogus.status != 0)
        #expect(bogus.stderr.contains("CASTOR_LOG_LEVEL=loud is not a log level"))
        for line in try await run(["status", "-vv"]).stderr.split(separator: "\n") {
            #expect(line.contains(" trace ") || line.contains(" debug ") || line.contains(" info ") || line.contains(" notice "), "\(line)")
        }

        let exit = await receiver.child.terminate()
        #expect(exit == 0, "violations: \(receiver.child.output.filter { $0.contains("violation") })")
    }

    @Test("castctl: queue titles, tui's --timeout/--require-genuine/--trust-root, and bad options refused before connecting")
    func castctlOptionGaps() async throws {
        // The receiver answers device authentication under a test root it writes for us.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("castor-root-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: root) }
        let receiver = try await ReceiverProcess.start(["--strict", "--export-trust-root", root.path])
        let castctl = TestPaths.program("castctl")
        let device = ["--host", "127.0.0.1", "--port", String(receiver.port)]
        func run(_ arguments: [String]) async throws -> (status: Int32, stdout: [String], stderr: String) {
            let result = try await runProgram(castctl, arguments)
            return (result.status, result.stdout, result.stderr)
        }

        // queue load / insert take a title per URL, like load's --title.
        let queued = try await run(["queue", "load", "http://127.0.0.1:9/a.mp3", "http://127.0.0.1:9/b.mp3", "--title", "Alpha",
                                    "--repeat-mode", "repeat_all", "--json"] + device)
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(try JSONValue(parsing: queued.stdout.last ?? "")["repeatMode"] == "REPEAT_ALL")
        #expect(try await run(["queue", "insert", "http://127.0.0.1:9/c.mp3", "--title", "Gamma"] + device).status == 0)
        let list = try await run(["queue", "list", "--json"] + device)
        let items = try JSONValue(parsing: list.stdout.last ?? "").arrayValue ?? []
        #expect(items.map { $0["media"]?["metadata"]?["title"]?.stringValue } == ["Alpha", "b.mp3", "Gamma"])

        // tui takes the device options the other commands take: --timeout; --require-genuine refuses the device
        // while its root is unknown and accepts it with --trust-root.
        let tui = try await run(["tui", "--frames", "1", "--interval-ms", "10", "--timeout", "20"] + device)
        #expect(tui.status == 0, "\(tui.stderr)")
        let refused = try await run(["tui", "--frames", "1", "--interval-ms", "10", "--require-genuine"] + device)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not a verified Cast device"), "\(refused.stderr)")
        let trusted = try await run(["tui", "--frames", "1", "--interval-ms", "10", "--require-genuine", "--trust-root", root.path] + device)
        #expect(trusted.status == 0, "\(trusted.stderr)")

        // Bad options fail with a usage error (64) before anything is sent.
        for arguments in [["tui", "--emulated", "--require-genuine"], ["tui", "--timeout", "0"] + device,
                          ["queue", "load", "http://127.0.0.1:9/a.mp3", "--repeat-mode", "SOMETIMES"] + device,
                          ["queue", "load", "http://127.0.0.1:9/a.mp3", "--title", "A", "--title", "B"] + device,
                          ["load", "http://127.0.0.1:9/a.mp3", "--stream-type", "LIVELY"] + device,
                          ["load", "http://127.0.0.1:9/a.mp3", "--content-type", "mp3"] + device,
                          ["discover", "--known-host", "bad host:99999"]] {
            let result = try await run(arguments)
            #expect(result.status == 64, "castctl \(arguments): \(result.status) \(result.stderr)")
        }
        let exit = await receiver.child.terminate()
        #expect(exit == 0, "violations: \(receiver.child.output.filter { $0.contains("violation") })")
    }

    @Test func castctlCommandsAgainstCastReceiver() async throws {
        let receiver = try await ReceiverProcess.start(["--strict"])
        let castctl = TestPaths.program("castctl")
        let device = ["--host", "127.0.0.1", "--port", String(receiver.port), "--json"]
        func run(_ arguments: [String]) async throws -> JSONValue {
            let result = try await runProgram(castctl, arguments + device)
            #expect(result.status == 0, "castctl \(arguments): \(result.stderr)")
            return try JSONValue(parsing: result.stdout.last ?? "")
        }
        let status = try await run(["status"])
        #expect(status["volume"]?["level"] != nil)
        #expect(status["device"]?["genuine"] != nil)

        let loaded = try await run(["load", "http://127.0.0.1:9/movie.mp4", "--title", "Movie", "--subtitles",
                                    "http://127.0.0.1:9/movie.vtt", "--start", "10"])
        #expect(loaded["playerState"] == "PLAYING")
        #expect(loaded["activeTrackIds"] == [1])
        #expect(try await run(["pause"])["playerState"] == "PAUSED")
        #expect(try await run(["play"])["playerState"] == "PLAYING")
        #expect((try await run(["seek", "42"])["currentTime"]?.doubleValue ?? 0) >= 42)
        #expect(try await run(["rate", "1.5"])["playbackRate"] == 1.5)
        #expect(try await run(["tracks", "--off"])["activeTrackIds"] == [])
        let queued = try await run(["queue", "load", "http://127.0.0.1:9/a.mp4", "http://127.0.0.1:9/b.mp4", "http://127.0.0.1:9/c.mp4"])
        #expect(queued["playerState"] == "PLAYING")
        let list = try await run(["queue", "list"])
        #expect(list.arrayValue?.count == 3)
        let next = try await run(["queue", "next"])
        #expect(next["media"]?["contentId"] == "http://127.0.0.1:9/b.mp4")
        #expect(try await run(["volume", "0.25"])["volume"]?["level"] == 0.25)
        #expect(try await run(["volume", "--mute"])["volume"]?["muted"] == true)

        // A custom channel: launch the echo app, then send on its namespace.
        let parts = ReceiverProcess.echoApp.split(separator: "=").map(String.init)
        _ = try await run(["launch", parts[0]])
        let echoed = try await run(["app", "send", parts[1], #"{"type":"PING","n":7}"#])
        #expect(echoed["n"] == 7 && echoed["type"] == "PING", "the echo app answers with the request itself: \(echoed)")
        let stopped = try await run(["stop"])
        #expect(stopped["applications"]?.arrayValue?.contains { $0["appId"] == .string(parts[0]) } == false)

        // Failures: one line on standard error and a non-zero status.
        let missing = try await runProgram(castctl, ["launch", "NOPE0000"] + device)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("NOT_FOUND"))
        #expect(missing.stderr.split(separator: "\n").count == 1)
        let refused = try await runProgram(castctl, ["status", "--host", "127.0.0.1", "--port", "1", "--timeout", "2"])
        #expect(refused.status != 0)
        #expect(refused.stderr.hasPrefix("castctl: "))

        // castctl is a well-behaved sender: the only violation the strict receiver recorded is the
        // deliberate launch of an app that does not exist (every refused request is recorded).
        let exit = await receiver.child.terminate()
        let violations = receiver.child.output.filter { $0.hasPrefix("cast-receiver: violation ") }
        #expect(exit == 3, "--strict exits 3 after violations: \(violations)")
        #expect(violations.count == 1 && violations.first?.contains("[refusedRequest]") == true
                && violations.first?.contains("NOPE0000") == true, "\(violations)")
    }

    /// A sender that verifies devices accepts cast-receiver once it trusts the exported test root,
    /// and refuses it without.
    @Test func castctlRequireGenuineTrustsTheExportedRoot() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("castor-root-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: root) }
        let receiver = try await ReceiverProcess.start(["--export-trust-root", root.path, "--strict"])
        #expect(FileManager.default.fileExists(atPath: root.path))
        let castctl = TestPaths.program("castctl")
        let device = ["--host", "127.0.0.1", "--port", String(receiver.port), "--json"]
        let trusted = try? await runProgram(castctl, ["status", "--trust-root", root.path, "--require-genuine"] + device)
        let untrusted = try? await runProgram(castctl, ["status", "--require-genuine"] + device)
        // The receiver is stopped before any expectation can end the test.
        let stopped = await receiver.stopAndCountViolations()
        #expect(trusted?.status == 0, "\(trusted?.stderr ?? "castctl did not run")")
        let status = try? JSONValue(parsing: trusted?.stdout.last ?? "")
        #expect(status?["device"]?["genuine"] == "verified", "\(String(describing: status))")
        #expect(untrusted.map { $0.status != 0 } == true, "a test root is not a Cast root: \(untrusted?.stdout ?? [])")
        print("cast-receiver violations with castctl --require-genuine: \(stopped.violations.map(String.init) ?? "unknown")")
        #expect(stopped.status == 0 && stopped.violations == 0, "\(stopped.lines)")
    }
}
