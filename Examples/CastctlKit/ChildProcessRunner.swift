import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs an external tool of the field (espeak-ng, ffprobe, a user's TTS command) to completion,
/// bounded in time and output, and never lets it outlive castctl.
///
/// The child runs in its own process group, is spawned through `setpriv --pdeathsig KILL` when
/// util-linux has it (the kernel kills it if castctl dies), from a thread that lives until the
/// child is reaped (a parent-death signal follows the thread that spawned). On timeout or
/// cancellation the whole group is killed with SIGKILL; every path reaps the child.
public enum ChildProcessRunner {
    /// What a finished child left.
    public struct Result: Sendable {
        /// The exit status (128 + N when signal N ended it).
        public var status: Int32
        /// Standard output (at most the cap).
        public var output: Data
        /// Standard error as text (at most the cap).
        public var errorText: String
    }

    /// Why a run failed before the child exited on its own.
    public enum Failure: Error, Sendable {
        /// The program could not be started.
        case notStarted(String)
        /// It ran longer than allowed and was killed.
        case timedOut
        /// It wrote more than allowed and was killed.
        case tooMuchOutput
        /// The task was cancelled; the child was killed.
        case cancelled
    }

    /// The program that sets the parent-death signal, when installed.
    static let setpriv: String? = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `arguments` (the program first, looked up on `PATH` when it has no slash).
    /// - Parameters:
    ///   - input: written to its standard input, then closed (`nil`: /dev/null).
    ///   - environment: extra variables on top of this process's environment.
    ///   - timeout: killed after this long.
    ///   - outputLimit: killed when standard output passes this many bytes (standard error keeps its first 64 KiB).
    public static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                           timeout: Duration, outputLimit: Int = 1 << 20) async throws(Failure) -> Result {
        guard let program = arguments.first, let path = resolve(program) else {
            throw .notStarted("\(arguments.first ?? "?") is not installed (not found on PATH)")
        }
        let full = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = (setpriv.map { [$0, "--pdeathsig", "KILL", "--"] } ?? []) + [path] + arguments.dropFirst()
        let job = Job()
        let outcome: Swift.Result<Result, Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: job.execute(argv, input: input, environment: full, timeout: timeout, outputLimit: outputLimit))
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
        } onCancel: {
            job.cancel()
        }
        return try outcome.get()
    }

    private static func resolve(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// One child: spawned, fed, drained and reaped on one thread; killable from any other.
    private final class Job: @unchecked Sendable {
        private let lock = NSLock()
        private var pid: pid_t = 0
        private var cancelled = false

        func cancel() {
            lock.lock()
            cancelled = true
            let pid = self.pid
            lock.unlock()
            if pid > 0 { kill(-pid, SIGKILL) }
        }

        func execute(_ argv: [String], input: Data?, environment: [String: String], timeout: Duration,
                     outputLimit: Int) -> Swift.Result<Result, Failure> {
            var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
            // Close-on-exec from creation, so a program spawned at the same moment cannot inherit our ends.
            func channel(_ fds: inout [Int32]) -> Bool {
                socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0
            }
            guard channel(&outPipe), channel(&errPipe), input == nil || channel(&inPipe) else {
                for fd in inPipe + outPipe + errPipe where fd >= 0 { close(fd) }
                return .failure(.notStarted("pipe() failed: \(String(cString: strerror(errno)))"))
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            if inPipe[0] >= 0 { posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0) } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var mask = sigset_t()
            sigemptyset(&mask)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigmask(&attributes, &mask)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)  // its own group: killed as a whole, deaf to the terminal's Ctrl-C
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
            let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
            let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                for pointer in cArguments { free(pointer) }
                for pointer in cEnvironment { free(pointer) }
            }
            var child: pid_t = 0
            lock.lock()
            let spawnStatus = cancelled ? ECANCELED : posix_spawn(&child, argv[0], &actions, &attributes, cArguments, cEnvironment)
            if spawnStatus == 0 { pid = child }
            lock.unlock()
            for fd in [inPipe[0], outPipe[1], errPipe[1]] where fd >= 0 { close(fd) }
            guard spawnStatus == 0 else {
                for fd in [inPipe[1], outPipe[0], errPipe[0]] where fd >= 0 { close(fd) }
                return spawnStatus == ECANCELED ? .failure(.cancelled)
                    : .failure(.notStarted("cannot start \(argv[0]): \(String(cString: strerror(spawnStatus)))"))
            }
            if let input, inPipe[1] >= 0 {
                // Small inputs (text to speak) fit the pipe; a child that does not read gets EPIPE, not a hang.
                signal(SIGPIPE, SIG_IGN)
                input.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let written = write(inPipe[1], buffer.baseAddress! + offset, buffer.count - offset)
                        if written < 0 { if errno == EINTR { continue } else { break } }
                        offset += written
                    }
                }
                close(inPipe[1])
            }
            let deadline = ContinuousClock.now.advanced(by: timeout)
            var output = Data(), errors = Data()
            var failure: Failure?
            var open = [outPipe[0], errPipe[0]]
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while !open.isEmpty {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { failure = .timedOut; break }
                var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                let milliseconds = Int32(min(1_000, max(1, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)))
                let ready = poll(&fds, nfds_t(fds.count), milliseconds)
                if ready < 0 && errno != EINTR { break }
                lock.lock()
                let stop = cancelled
                lock.unlock()
                if stop { failure = .cancelled; break }
                for entry in fds where entry.revents != 0 {
                    let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                    if count <= 0 {
                        if count < 0 && errno == EINTR { continue }
                        close(entry.fd)
                        open.removeAll { $0 == entry.fd }
                    } else if entry.fd == outPipe[0] {
                        output.append(contentsOf: chunk[..<count])
                        if output.count > outputLimit { failure = .tooMuchOutput }
                    } else if errors.count < 65_536 {
                        errors.append(contentsOf: chunk[..<min(count, 65_536 - errors.count)])
                    }
                }
                if failure != nil { break }
            }
            for fd in open { close(fd) }
            if failure != nil { kill(-child, SIGKILL) }
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) < 0 && errno == EINTR {}
            // Anything the child left in its group (a shell's own children) goes with it.
            kill(-child, SIGKILL)
            lock.lock()
            pid = 0
            lock.unlock()
            if let failure { return .failure(failure) }
            let status: Int32 = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            return .success(Result(status: status, output: output, errorText: String(decoding: errors, as: UTF8.self)))
        }
    }
}
