internal import CastProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One run of an external tool (espeak-ng, ffprobe, yt-dlp, a user's TTS command) through CastProcess — its
/// own process group, `PR_SET_PDEATHSIG`, killed at exit — bounded here by a deadline, an output cap and the
/// calling task's cancellation, each of which kills the whole group and reaps the child before returning.
struct ToolRun {
    /// What a finished child left.
    struct Result: Sendable {
        /// The exit status (128 + N when signal N ended it).
        var status: Int32
        /// Standard output (at most the cap).
        var output: [UInt8]
        /// The last line of standard error, or an empty string.
        var lastErrorLine: String
    }

    /// Why a run failed before the child exited on its own.
    enum Failure: Error, Sendable, Equatable {
        /// The program is not on `PATH` (or its path is not executable).
        case missing(String)
        /// fork, exec or a pipe failed.
        case notStarted(String)
        /// It ran longer than allowed and was killed.
        case timedOut
        /// It wrote more than allowed and was killed.
        case tooMuchOutput
        /// The calling task was cancelled; the child was killed.
        case cancelled
    }

    /// Runs `program` (looked up on `PATH` when it has no slash) with `arguments`.
    /// - Parameters:
    ///   - environment: variables set on top of this process's environment.
    ///   - timeout: the child is killed after this long.
    ///   - outputLimit: the child is killed when standard output passes this many bytes.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration,
                    outputLimit: Int = 1 << 20) async throws(Failure) -> Result {
        guard let path = ChildRun.executable(named: program) else { throw .missing(program) }
        let merged = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let run: ChildRun
        do {
            run = try ChildRun.start(path, arguments, output: .collect(limit: outputLimit), environment: merged)
        } catch {
            if error.code == .toolMissing { throw .missing(program) }
            throw .notStarted(error.message)
        }
        // Whichever comes first — the exit, the deadline, the caller's cancellation — the group is gone after.
        let exit = await withTaskCancellationHandler {
            await run.exit(within: timeout)
        } onCancel: {
            run.kill(SIGKILL)
        }
        if Task.isCancelled {
            _ = await run.stop()
            throw .cancelled
        }
        guard let exit else { throw .timedOut }
        if run.outputOverflowed { throw .tooMuchOutput }
        let status: Int32 = switch exit {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
        return Result(status: status, output: run.collectedOutput, lastErrorLine: run.lastErrorLine)
    }
}
