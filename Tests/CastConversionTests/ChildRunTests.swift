import Foundation
import Synchronization
import Testing
@testable import CastConversion

/// How ffmpeg is started: its own process group, no descriptor of ours but 0-3, no signal blocked or ignored,
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
        #expect(throws: ConversionError.self) { try ChildRun.start("/nonexistent/ffmpeg", []) }
        let sleeper = try ChildRun.start("/bin/sleep", ["600"])
        sleeper.kill(SIGSTOP)
        #expect(await sleeper.stop() == .signalled(SIGKILL))
    }

    @Test("ffmpeg missing: one line naming the Debian package")
    func missingTools() {
        #expect(throws: ConversionError.self) { try FFmpegTools.locate(searchPath: "/nonexistent") }
        do {
            _ = try FFmpegTools.locate(searchPath: "/nonexistent")
        } catch {
            #expect(error.code == .toolMissing)
            #expect(error.message == "ffmpeg is not installed: apt-get install ffmpeg (Debian package ffmpeg)")
        }
    }
}

@Suite("The ffmpeg limiter")
struct ConversionLimiterTests {
    @Test("At most `capacity` runs hold a slot; the next waits for a release, in order; a cancelled wait takes none")
    func limits() async throws {
        let limiter = ConversionLimiter(capacity: 1)
        #expect(await limiter.acquire())
        let second = Task { await limiter.acquire() }
        let cancelled = Task { await limiter.acquire() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(await limiter.running == 1)
        await limiter.release()
        #expect(await second.value)
        #expect(await limiter.running == 1)
        await limiter.release()
        #expect(await limiter.running == 0)
    }
}
