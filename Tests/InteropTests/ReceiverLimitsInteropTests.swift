import CastTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// The `cast-receiver` program at its file-descriptor limit (set with `prlimit`): accept pauses
/// with a typed log line instead of spinning, and senders are served again once descriptors free up.
@Suite(
    "cast-receiver at its descriptor limit", .timeLimit(.minutes(2)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
struct ReceiverDescriptorLimitTests {
    @Test("accept backs off once per second at EMFILE, and a sender is served after descriptors free up")
    func acceptBacksOff() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cast-receiver-emfile-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let receiver = try ChildProcess(
            TestPaths.program("cast-receiver"), ["--port", "0", "--latency-ms", "0", "--log", log.path])
        defer { kill(receiver.pid, SIGKILL) }
        guard let ready = await receiver.waitForLine(where: { $0.contains("listening on") }),
            let port = ready.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            _ = await receiver.terminate()
            throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)")
        }
        // The limit is set once it runs: 40 descriptors more than it has open (what it inherited
        // from this test process varies), so 100 connections exhaust them.
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(receiver.pid)/fd").count
        let limit = try await runProgram("/usr/bin/prlimit", ["--pid", String(receiver.pid), "--nofile=\(open + 40):\(open + 40)"])
        #expect(limit.status == 0, "prlimit: \(limit.stderr)")
        let started = ContinuousClock.now
        // More raw TCP connections than descriptors: they never speak TLS.
        var raw: [any Channel] = []
        for _ in 0..<100 {
            raw.append(try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get())
        }
        var text = ""
        for _ in 0..<600 where !text.contains("accept failed") {
            try await Task.sleep(for: .milliseconds(50))  // the log is a file: read it again
            text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        let openNow = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(receiver.pid)/fd").count) ?? -1
        try #require(text.contains("accept failed"), "no accept failure logged; \(openNow) descriptors open (limit \(open + 40)); log: \(text.suffix(2000))")
        #expect(text.contains("reason=acceptFailed"))
        #expect(text.contains("Too many open files"))
        try await Task.sleep(for: .seconds(2))  // let a busy loop show itself, were there one
        for channel in raw { try? await channel.close() }
        let status = try await runProgram(
            TestPaths.program("castctl"), ["status", "--host", "127.0.0.1", "--port", String(port), "--timeout", "60"])
        #expect(status.status == 0, "castctl: \(status.stderr)")
        let elapsed = started.duration(to: .now)
        text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let pauses = text.split(separator: "\n").filter { $0.contains("accept failed") }.count
        // At most one pause per second of back-off: a busy accept loop logs thousands per second.
        #expect(pauses <= Int(elapsed.components.seconds) + 1, "\(pauses) accept failures in \(elapsed)")
        _ = await receiver.terminate()
    }
}
