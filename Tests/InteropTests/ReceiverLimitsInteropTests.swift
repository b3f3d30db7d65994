import CastTestSupport
import CastTLS
import Foundation
import Testing

/// The `cast-receiver` program near its file-descriptor limit (set with `prlimit`): it leaves a reserve
/// of descriptors free for the rest of the process (the Cast listener by closing connections that have
/// not finished their TLS handshake, the eureka_info listener by pausing accept with a typed log line
/// instead of spinning), and senders are served again once descriptors free up.
///
/// The reserve is what keeps the receiver alive: libdispatch's worker monitor opens
/// `/proc/<tid>/stat` about once a second while work is queued and traps (SIGILL, "workq: registered
/// worker exited prematurely") when that open fails. Before the reserve, the accept loop took every
/// descriptor and sat at EMFILE, and the receiver died in 3 of about 10 parallel test runs (with a
/// limit one descriptor above its needs, in 10 of 10 runs).
@Suite(
    "cast-receiver at its descriptor limit", .timeLimit(.minutes(2)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
struct ReceiverDescriptorLimitTests {
    /// Descriptor numbers free below `limit` in process `pid`, read from /proc.
    static func freeDescriptors(pid: pid_t, limit: Int) -> Int? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        return limit - names.compactMap { Int($0) }.filter { $0 < limit }.count
    }

    /// A TCP port free on loopback just now (the eureka_info server takes no port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(message: "socket() failed: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw HarnessError(message: "bind() failed: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The listener the test floods: the Cast port, or the eureka_info HTTP port (whose accept
    /// loop, before the reserve, filled the table as well and spun at EMFILE without a log line).
    enum Flooded: String, CaseIterable, Sendable { case cast, eureka }

    @Test(
        "accept keeps the descriptor reserve free, pauses at most once per second, and a sender is served after descriptors free up",
        arguments: Flooded.allCases)
    func acceptBacksOff(flooded: Flooded) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cast-receiver-emfile-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        // A trap prints its backtrace to the receiver's standard error, which the failure messages show.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=yes,interactive=no"
        let eurekaPort = try Self.freePort()
        let receiver = try ChildProcess(
            TestPaths.program("cast-receiver"),
            ["--port", "0", "--latency-ms", "0", "--log", log.path, "--eureka-port", String(eurekaPort), "--eureka-tls-port", "0"],
            environment: environment)
        defer { kill(receiver.pid, SIGKILL) }
        guard let ready = await receiver.waitForLine(where: { $0.contains("listening on") }),
            let port = ready.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            _ = await receiver.terminate()
            throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)")
        }
        // The limit is set once it runs, so that exactly `reserve` + 10 descriptor numbers are free
        // below it (what it inherited from this test process varies, with gaps): the receiver may
        // accept 10 of the 40 connections, then must pause with `reserve` still free.
        let reserve = CastTransportServer.Limits().descriptorReserve
        let numbers = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(receiver.pid)/fd").compactMap { Int($0) })
        var maximum = 0  // RLIMIT_NOFILE bounds descriptor numbers: the first number with enough free ones below it
        var free = 0
        while free < reserve + 10 {
            if !numbers.contains(maximum) { free += 1 }
            maximum += 1
        }
        let prlimit = try await runProgram("/usr/bin/prlimit", ["--pid", String(receiver.pid), "--nofile=\(maximum):\(maximum)"])
        #expect(prlimit.status == 0, "prlimit: \(prlimit.stderr)")
        let started = ContinuousClock.now
        // More raw TCP connections than descriptors, all in the backlog at once (a loopback connect
        // completes in the kernel); they never speak TLS.
        let raw = try (0..<40).map { _ in try RawTCPConnection(port: flooded == .cast ? port : eurekaPort) }
        // The log is a file: inotify wakes the wait when the receiver writes to it (30 s is a safety net).
        // At the reserve the Cast listener closes connections that have not finished their TLS handshake
        // to admit new ones (reason=evicted); the eureka_info listener, which has no handshakes to close,
        // pauses accepting.
        let mark = flooded == .cast ? "reason=evicted" : "pausing accept"
        _ = await FileLineWatch.firstLine(in: log.path, until: .now + .seconds(30)) { $0.contains(mark) }
        var text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let freeWhenPaused = Self.freeDescriptors(pid: receiver.pid, limit: maximum) ?? -1
        try #require(text.contains(mark), "no \(mark) logged; \(freeWhenPaused) descriptors free (limit \(maximum)); log: \(text.suffix(2000))")
        if flooded == .eureka {
            #expect(text.contains("reason=descriptorReserve"), "log: \(text.suffix(2000))")
            #expect(text.contains("listener=eureka_info over HTTP"), "log: \(text.suffix(2000))")
        }
        // The old accept loop took every descriptor (0 free here) and paused only at EMFILE.
        // An accept at the reserve goes ahead while the connection it evicted is being closed (on its own
        // event loop, microseconds later): the count may catch one or two of those in flight.
        let floor = flooded == .cast ? reserve - 4 : reserve
        #expect(freeWhenPaused >= floor, "\(freeWhenPaused) descriptors free at the reserve (limit \(maximum), reserve \(reserve))")
        // Stay at the limit for a while: what the reserve prevents shows only over time, and no event
        // says it did not happen (libdispatch's worker monitor, which traps when it cannot open a file,
        // runs about once a second; a spinning accept loop is told by pauses per second, below). Not a
        // wait for a condition: the receiver's own "accepting again" line exists only for the Cast
        // listener (the eureka listener stays paused while the Cast listener holds its spares).
        try await Task.sleep(for: .seconds(2))
        #expect(kill(receiver.pid, 0) == 0, "the receiver died at its descriptor limit; stderr: \(receiver.errorOutput.suffix(2000))")
        for connection in raw { connection.close() }
        let status = try await runProgram(
            TestPaths.program("castctl"), ["status", "--host", "127.0.0.1", "--port", String(port), "--timeout", "60"])
        // On failure, say what became of the receiver.
        let receiverLog = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000)
        let alive = kill(receiver.pid, 0) == 0
        #expect(status.status == 0, "castctl: \(status.stderr)\nreceiver alive: \(alive); stderr: \(receiver.errorOutput.suffix(2000))\nlog: \(receiverLog)")
        let elapsed = started.duration(to: .now)
        text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let pauses = text.split(separator: "\n").filter { $0.contains("pausing accept") }.count
        // At most one pause per second of back-off: a busy accept loop logs thousands per second.
        #expect(pauses <= Int(elapsed.components.seconds) + 1, "\(pauses) accept pauses in \(elapsed)")
        _ = await receiver.terminate()
    }
}

/// A sender among idle connections that hold the receiver's descriptors (issue 45): under
/// `prlimit --nofile=64:64`, raw TCP connections that never speak TLS are held open (and replaced
/// when closed), and `castctl status` must still be served within its own default budget (10 s).
///
/// Before: accept paused at the reserve and the idlers kept every slot until their 10 s handshake
/// deadline, then their replacements took the slots again: a sender was served after 9.6 s with 20
/// idlers, 19.6 s with 40 and 69.6 s with 100, past castctl's timeout. Now each accept at the reserve
/// closes an idle pending handshake; the time it takes is a `make bench` figure, not asserted here.
@Suite(
    "cast-receiver admits a sender among idle connections", .timeLimit(.minutes(2)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
struct ReceiverAdmissionTests {
    @Test("castctl status is served with 100 idle connections held under a 64-descriptor limit")
    func aSenderIsServedAmongIdlers() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cast-receiver-admission-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let receiver = try ChildProcess(
            TestPaths.program("cast-receiver"),
            ["--port", "0", "--latency-ms", "0", "--log", log.path, "--eureka-port", "0", "--eureka-tls-port", "0"])
        defer { kill(receiver.pid, SIGKILL) }
        guard let ready = await receiver.waitForLine(where: { $0.contains("listening on") }),
            let port = ready.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            _ = await receiver.terminate()
            throw HarnessError(message: "cast-receiver did not start: \(receiver.errorOutput)")
        }
        let prlimit = try await runProgram("/usr/bin/prlimit", ["--pid", String(receiver.pid), "--nofile=64:64"])
        #expect(prlimit.status == 0, "prlimit: \(prlimit.stderr)")
        let idlers = IdleConnections(port: port, count: 100)
        defer { idlers.stop() }
        // The receiver is at its reserve once it evicts (or, before the fix, pauses accepting).
        let pressed = await FileLineWatch.firstLine(in: log.path, until: .now + .seconds(30)) {
            $0.contains("reason=evicted") || $0.contains("pausing accept")
        }
        try #require(pressed != nil, "the idlers never brought the receiver to its reserve; log: \(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(1500))")
        let status = try await runProgram(TestPaths.program("castctl"), ["status", "--host", "127.0.0.1", "--port", String(port)])
        let text = ((try? String(contentsOf: log, encoding: .utf8)) ?? "")
        #expect(status.status == 0, "castctl: \(status.stderr)\nlog: \(text.suffix(2000))")
        #expect(text.contains("reason=evicted"), "no eviction logged: \(text.suffix(2000))")
        #expect(kill(receiver.pid, 0) == 0, "the receiver died: \(receiver.errorOutput.suffix(2000))")
        print("admission: castctl status \(status.status == 0 ? "served" : "NOT served") among 100 idlers under 64 descriptors; "
              + "\(idlers.opened) idle connections opened, \(idlers.closedByServer) closed by the receiver")
        _ = await receiver.terminate()
    }
}

/// A plain TCP connection to loopback, made with a blocking connect.
final class RawTCPConnection {
    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(message: "socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw HarnessError(message: "connect() failed: \(errno)")
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}
