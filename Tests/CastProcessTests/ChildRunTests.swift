import Foundation
import Synchronization
import Testing
@testable import CastProcess

/// How every child (ffmpeg, ffprobe, espeak-ng, yt-dlp) is started: its own process group, no descriptor of ours but 0-3, no signal blocked or ignored,
/// the parent-death signal set, a missing program named.
@Suite("Child processes")
struct ChildRunTests {
    @Test("A child leads its own process group, has only descriptors 0-3, and no blocked or ignored signal (read from /proc; SIGINT and SIGPIPE, which castctl ignores, at their defaults)")
    func isolation() async throws {
        let progress = Mutex<[String]>([])
        // Standard output to a pipe, descriptor 3 for progress: the child then holds exactly 0, 1, 2 and 3.
        let run = try ChildRun.start("/bin/sleep", ["600"], output: .lines { _ in }, progress: { line in progress.withLock { $0.append(line) } })
        let stat = try String(contentsOfFile: "/proc/\(run.pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        #expect(fields[2] == Substring(String(run.pid)), "process group: \(stat)")
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(run.pid)/fd").compactMap(Int.init).sorted()
        #expect(descriptors == [0, 1, 2, 3])
        let status = try String(contentsOfFile: "/proc/\(run.pid)/status", encoding: .utf8).split(separator: "\n")
        #expect(status.contains("SigBlk:\t0000000000000000"), "\(status.filter { $0.hasPrefix("Sig") })")
        // Signals 32 and 33 are glibc's own (its sigaction refuses them): whatever the test runner's parent set for
        // them stays; every signal a program uses is at its default.
        let ignored = status.first { $0.hasPrefix("SigIgn:") }.flatMap { UInt64($0.dropFirst(8), radix: 16) }
        #expect(ignored.map { $0 & ~0x1_8000_0000 } == 0, "\(status.filter { $0.hasPrefix("Sig") })")
        #expect(LiveChildren.shared.all.contains(run.pid))
        #expect(await run.stop() == .signalled(SIGKILL))
        #expect(!LiveChildren.shared.all.contains(run.pid))
    }

    @Test("The parent-death signal is SIGKILL (read back with prctl through Python, a child of the child)")
    func deathSignal() async throws {
        let python = try #require(["/usr/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }, "needs python3")
        let lines = Mutex<[String]>([])
        // PR_GET_PDEATHSIG (2) of the process itself, which execve keeps.
        let run = try ChildRun.start(python, ["-c", """
            import ctypes, ctypes.util
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            signal = ctypes.c_int(0)
            libc.prctl(2, ctypes.byref(signal), 0, 0, 0)
            print(signal.value)
            """], output: .lines { line in lines.withLock { $0.append(line) } })
        #expect(await run.exit() == .exited(0), "\(run.errorTail)")
        #expect(lines.withLock { $0 } == ["9"])
    }

    @Test("Collected output over its cap kills the child; a missing program is toolMissing; stop kills a stopped group")
    func limits() async throws {
        let big = try ChildRun.start("/bin/sh", ["-c", "head -c 1000000 /dev/zero; sleep 600"], output: .collect(limit: 1000))
        #expect(await big.exit() == .signalled(SIGKILL))
        #expect(big.outputOverflowed && big.collectedOutput.count <= 1000)
        #expect(throws: ProcessError.self) { try ChildRun.start("/nonexistent/ffmpeg", []) }
        let sleeper = try ChildRun.start("/bin/sleep", ["600"])
        sleeper.kill(SIGSTOP)
        #expect(await sleeper.stop() == .signalled(SIGKILL))
    }

    @Test("exit(within:) gives a child that ends its status; one that outlives the deadline is stopped (the wait ends) and nil")
    func exitWithin() async throws {
        let quick = try ChildRun.start("/bin/sh", ["-c", "exit 3"])
        #expect(await quick.exit(within: .seconds(600)) == .exited(3))
        let sleeper = try ChildRun.start("/bin/sleep", ["600"])
        #expect(await sleeper.exit(within: .milliseconds(50)) == nil)
        #expect(sleeper.exitStatus == .signalled(SIGKILL))
    }

    @Test("Records come whole, in order, however the child writes them; a partial record at the end is dropped")
    func records() async throws {
        let received = Mutex<[[UInt8]]>([])
        // 10 records of 1000 bytes written in pieces of 777, then 300 bytes that make no record.
        let script = """
            import os, time
            data = b"".join(bytes([48 + i]) * 1000 for i in range(10)) + bytes(300)
            for start in range(0, len(data), 777):
                os.write(1, data[start:start + 777])
                time.sleep(0.001)
            """
        let run = try ChildRun.start("/usr/bin/python3", ["-c", script], output: .records(size: 1000) { record in
            received.withLock { $0.append(record) }
        })
        #expect(await run.exit() == .exited(0), "\(run.errorTail)")
        let records = received.withLock { $0 }
        #expect(records.count == 10)
        #expect(records.allSatisfy { $0.count == 1000 && Set($0).count == 1 })
        #expect(records.map { $0[0] } == (0..<10).map { UInt8(48 + $0) })
    }

    @Test("An environment given replaces this process's; none given passes it on")
    func environment() async throws {
        let lines = Mutex<[String]>([])
        let run = try ChildRun.start("/usr/bin/env", [], output: .lines { line in lines.withLock { $0.append(line) } },
                                     environment: ["CASTOR_CHILD_TEST": "yes"])
        #expect(await run.exit() == .exited(0))
        #expect(lines.withLock { $0 } == ["CASTOR_CHILD_TEST=yes"])
        let inherited = Mutex<[String]>([])
        let second = try ChildRun.start("/usr/bin/env", [], output: .lines { line in inherited.withLock { $0.append(line) } })
        #expect(await second.exit() == .exited(0))
        #expect(inherited.withLock { $0 }.contains { $0.hasPrefix("PATH=") })
    }

    @Test("A program is found on PATH; a missing one is nil")
    func locate() {
        #expect(ChildRun.executable(named: "sh", path: "/nonexistent:/bin") == "/bin/sh")
        #expect(ChildRun.executable(named: "no-such-program-castor", path: "/bin:/usr/bin") == nil)
        #expect(ChildRun.executable(named: "/bin/sh") == "/bin/sh")
    }
}
