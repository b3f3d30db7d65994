#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CCastSpawn
import Foundation
import Synchronization

/// How a child process ended.
package enum ChildExit: Sendable, Hashable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it.
    case signalled(Int32)

    package var succeeded: Bool { self == .exited(0) }

    package var description: String {
        switch self {
        case .exited(let code): "exit status \(code)"
        case .signalled(let signal): "signal \(signal)"
        }
    }
}

/// One run of a program (ffmpeg, ffprobe, espeak-ng, yt-dlp) that cannot outlive this process.
///
/// Started by ``ProcessSpawner`` (fork on a thread that lives as long as the process, then in the child a
/// process group of its own and `PR_SET_PDEATHSIG` SIGKILL): a crash or `kill -9` of the parent kills it, a
/// terminal's Ctrl-C reaches only the parent, and ``kill(_:)`` signals the whole group. Every live run is also
/// killed when the process exits normally (an `atexit` hook). Its standard output and descriptor 3 are read
/// line by line (or, for standard output, as bytes up to a cap) on threads of their own; of standard error the
/// last ``errorTailLimit`` bytes are kept for error messages.
package final class ChildRun: Sendable {
    /// What happens to the child's standard output.
    package enum OutputHandling: Sendable {
        /// Discarded (/dev/null).
        case discard
        /// Collected up to a cap; more than the cap kills the child.
        case collect(limit: Int)
        /// Handed over line by line.
        case lines(@Sendable (String) -> Void)
        /// Handed over in records of exactly `size` bytes (raw pictures or sound from ffmpeg), on a thread of
        /// its own that reads only as fast as the handler returns; a partial record at the end is dropped.
        case records(size: Int, @Sendable ([UInt8]) -> Void)
    }

    /// How much of standard error is kept.
    package static let errorTailLimit = 4096
    /// The longest line handed over; longer lines are cut.
    package static let maximumLineLength = 16 * 1024

    /// The child's process id, also its process group id.
    package let pid: Int32
    package let executableName: String

    private struct State {
        var exit: ChildExit?
        var waiters: [CheckedContinuation<ChildExit, Never>] = []
        var collected: [UInt8] = []
        var overflowed = false
        var errorTail: [UInt8] = []
        var readersOpen = 0
        var readersDone: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    private init(pid: pid_t, executableName: String) {
        self.pid = pid
        self.executableName = executableName
    }

    /// Starts `executable` (an absolute path) with `arguments`.
    /// - Parameters:
    ///   - output: what happens to standard output.
    ///   - progress: called with each line the child writes to descriptor 3 (ffmpeg's `-progress pipe:3`);
    ///     `nil` leaves descriptor 3 closed.
    ///   - environment: the child's environment; `nil` passes this process's on.
    package static func start(
        _ executable: String, _ arguments: [String], output: OutputHandling = .discard,
        progress: (@Sendable (String) -> Void)? = nil, environment: [String: String]? = nil
    ) throws(ProcessError) -> ChildRun {
        var pipes: [(read: Int32, write: Int32)] = []
        func makePipe() throws(ProcessError) -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            let status = fds.withUnsafeMutableBufferPointer { castor_pipe($0.baseAddress) }
            guard status == 0 else {
                throw ProcessError(code: .spawnFailed, message: "pipe2 failed: \(String(cString: strerror(-status)))")
            }
            pipes.append((fds[0], fds[1]))
            return (fds[0], fds[1])
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw ProcessError(code: .spawnFailed, message: "cannot open /dev/null") }
        defer { close(null) }
        do throws(ProcessError) {
            var outputPipe: (read: Int32, write: Int32)?
            if case .discard = output {} else { outputPipe = try makePipe() }
            let errorPipe = try makePipe()
            let progressPipe = progress == nil ? nil : try makePipe()
            var sources: [Int32] = [null, outputPipe?.write ?? null, errorPipe.write]
            var targets: [Int32] = [0, 1, 2]
            if let progressPipe {
                sources.append(progressPipe.write)
                targets.append(3)
            }
            let pid = ProcessSpawner.shared.spawn(
                path: executable, arguments: arguments, environment: environment.map { $0.map { "\($0.key)=\($0.value)" } },
                sources: sources, targets: targets)
            for pipe in pipes { close(pipe.write) }
            guard pid > 0 else {
                for pipe in pipes { close(pipe.read) }
                let error = -pid
                let name = (executable as NSString).lastPathComponent
                if error == ENOENT {
                    throw ProcessError(code: .toolMissing, message: "\(name) is not installed (\(executable) not found)")
                }
                throw ProcessError(code: .spawnFailed, message: "cannot start \(name): \(String(cString: strerror(error)))")
            }
            let run = ChildRun(pid: pid, executableName: (executable as NSString).lastPathComponent)
            LiveChildren.shared.insert(pid)
            if let outputPipe {
                switch output {
                case .discard: break
                case .collect(let limit): run.readBytes(outputPipe.read, limit: limit)
                case .lines(let handler): run.readLines(outputPipe.read, handler)
                case .records(let size, let handler): run.readRecords(outputPipe.read, size: size, handler)
                }
            }
            run.readErrorTail(errorPipe.read)
            if let progressPipe, let progress { run.readLines(progressPipe.read, progress) }
            run.reap()
            return run
        } catch {
            for pipe in pipes {
                close(pipe.read)
                close(pipe.write)
            }
            throw error
        }
    }

    /// Waits for the child to end and for its output to be read to the end.
    package func exit() async -> ChildExit {
        let exit = await withCheckedContinuation { continuation in
            let done: ChildExit? = state.withLock { state in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.readersOpen == 0 { return true }
                state.readersDone.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        return exit
    }

    /// Waits for the child to end within `timeout` (or until the calling task is cancelled); past it,
    /// stops the child (its whole group) and returns `nil`.
    package func exit(within timeout: Duration) async -> ChildExit? {
        await withTaskGroup(of: ChildExit?.self) { group in
            group.addTask { await self.exit() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            // A group waits for all its children, and exit() ignores cancellation: past the deadline the child is
            // stopped here, inside the group, which ends the waiting child too.
            if first == nil { _ = await stop() }
            group.cancelAll()
            return first
        }
    }

    /// The absolute path of `name` on `PATH` (or `name` itself when it holds a slash and is executable).
    package static func executable(named name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// How it ended, if it has.
    package var exitStatus: ChildExit? { state.withLock { $0.exit } }

    /// Standard output, when collected.
    package var collectedOutput: [UInt8] { state.withLock { $0.collected } }

    /// Whether collected output went beyond its cap (the child was then killed).
    package var outputOverflowed: Bool { state.withLock { $0.overflowed } }

    /// The last bytes of standard error, as text, trimmed.
    package var errorTail: String {
        String(decoding: state.withLock { $0.errorTail }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The last line of standard error (ffmpeg's reason for failing), or an empty string.
    package var lastErrorLine: String {
        errorTail.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// Sends `signal` to the child's process group (nothing once it has been reaped: the group id may be reused).
    package func kill(_ signal: Int32) {
        state.withLock { state in
            guard state.exit == nil else { return }
            _ = Glibc.kill(-pid, signal)
        }
    }

    /// Kills the group (SIGKILL, which also ends a stopped child) and waits for the child.
    @discardableResult
    package func stop() async -> ChildExit {
        kill(SIGKILL)
        return await exit()
    }

    // MARK: Threads

    private func readerStarted() { state.withLock { $0.readersOpen += 1 } }

    private func readerFinished() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.readersOpen -= 1
            guard state.readersOpen == 0 else { return [] }
            defer { state.readersDone.removeAll() }
            return state.readersDone
        }
        for waiter in waiters { waiter.resume() }
    }

    private func readLines(_ fd: Int32, _ handler: @escaping @Sendable (String) -> Void) {
        readerStarted()
        Thread.detachNewThread { [self] in
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            var skipping = false
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                for byte in chunk[..<count] {
                    if byte == 0x0A {
                        if !skipping { handler(String(decoding: buffer, as: UTF8.self)) }
                        buffer.removeAll(keepingCapacity: true)
                        skipping = false
                    } else if buffer.count < Self.maximumLineLength {
                        buffer.append(byte)
                    } else if !skipping {
                        handler(String(decoding: buffer, as: UTF8.self))
                        buffer.removeAll(keepingCapacity: true)
                        skipping = true
                    }
                }
            }
            if !buffer.isEmpty, !skipping { handler(String(decoding: buffer, as: UTF8.self)) }
            close(fd)
            readerFinished()
        }
    }

    private func readRecords(_ fd: Int32, size: Int, _ handler: @escaping @Sendable ([UInt8]) -> Void) {
        readerStarted()
        Thread.detachNewThread { [self] in
            var record = [UInt8](repeating: 0, count: max(1, size))
            var filled = 0
            while true {
                let count = record.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                filled += count
                if filled == record.count {
                    handler(record)
                    filled = 0
                }
            }
            close(fd)
            readerFinished()
        }
    }

    private func readBytes(_ fd: Int32, limit: Int) {
        readerStarted()
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                let overflow = state.withLock { state -> Bool in
                    guard !state.overflowed else { return false }
                    if state.collected.count + count > limit {
                        state.overflowed = true
                        return true
                    }
                    state.collected += chunk[..<count]
                    return false
                }
                if overflow { kill(SIGKILL) }
            }
            close(fd)
            readerFinished()
        }
    }

    private func readErrorTail(_ fd: Int32) {
        readerStarted()
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 8 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                state.withLock { state in
                    state.errorTail += chunk[..<count]
                    if state.errorTail.count > Self.errorTailLimit {
                        state.errorTail.removeFirst(state.errorTail.count - Self.errorTailLimit)
                    }
                }
            }
            close(fd)
            readerFinished()
        }
    }

    private func reap() {
        let pid = self.pid
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let exit: ChildExit = (raw & 0x7F) == 0 ? .exited((raw >> 8) & 0xFF) : .signalled(raw & 0x7F)
            LiveChildren.shared.remove(pid)
            let waiters = state.withLock { state -> [CheckedContinuation<ChildExit, Never>] in
                state.exit = exit
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: exit) }
        }
    }
}

/// Forks every child on one thread that lives as long as the process, so that `PR_SET_PDEATHSIG` (which
/// fires when the *thread* that forked ends) fires only when the process ends. Threads of Swift's
/// concurrency pool and Dispatch come and go; this one never returns. `package` so that the test
/// harness's programs (CastTestSupport's `ChildProcess`) die with the test process too.
package final class ProcessSpawner: @unchecked Sendable {
    /// The one spawner of this process.
    package static let shared = ProcessSpawner()

    private struct Request {
        var path: String
        var arguments: [String]
        var environment: [String]?
        var sources: [Int32]
        var targets: [Int32]
        var done: @Sendable (pid_t) -> Void
    }

    // `@unchecked Sendable`: `queue` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var queue: [Request] = []

    private init() {
        let thread = Thread { [unowned self] in self.serve() }
        thread.name = "castor.spawner"
        thread.start()
    }

    /// Forks and execs `path` with `arguments` (without the program itself) and `environment`
    /// (`KEY=value` strings; `nil` inherits this process's); `sources[i]` becomes descriptor
    /// `targets[i]` in the child. Returns the pid, or `-errno` (`-ENOENT` for a missing program).
    package func spawn(path: String, arguments: [String], environment: [String]?, sources: [Int32], targets: [Int32]) -> Int32 {
        let result = Mutex<pid_t?>(nil)
        let finished = NSCondition()
        condition.lock()
        queue.append(Request(path: path, arguments: arguments, environment: environment, sources: sources, targets: targets) { pid in
            finished.lock()
            result.withLock { $0 = pid }
            finished.signal()
            finished.unlock()
        })
        condition.signal()
        condition.unlock()
        finished.lock()
        while result.withLock({ $0 }) == nil { finished.wait() }
        finished.unlock()
        return result.withLock { $0 } ?? -EINVAL
    }

    private func serve() -> Never {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let request = queue.removeFirst()
            condition.unlock()
            request.done(Self.fork(request))
        }
    }

    private static func fork(_ request: Request) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([request.path] + request.arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = request.environment.map { $0.map { strdup($0) } + [nil] }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp ?? [] { free(pointer) }
        }
        return argv.withUnsafeBufferPointer { argvBuffer in
            request.sources.withUnsafeBufferPointer { sources in
                request.targets.withUnsafeBufferPointer { targets in
                    if let envp {
                        return envp.withUnsafeBufferPointer { envpBuffer in
                            castor_spawn(
                                request.path, argvBuffer.baseAddress, envpBuffer.baseAddress, sources.baseAddress, targets.baseAddress,
                                Int32(request.sources.count))
                        }
                    }
                    return castor_spawn(
                        request.path, argvBuffer.baseAddress, environ, sources.baseAddress, targets.baseAddress,
                        Int32(request.sources.count))
                }
            }
        }
    }
}

/// The process groups of the children still running, killed by an `atexit` hook when this process exits
/// without having stopped them (castctl's `exit` after an error, say).
package final class LiveChildren: Sendable {
    package static let shared = LiveChildren()
    private let groups = Mutex<Set<pid_t>>([])

    private init() {
        atexit {
            for group in LiveChildren.shared.groups.withLock({ $0 }) { _ = Glibc.kill(-group, SIGKILL) }
        }
    }

    func insert(_ group: pid_t) { _ = groups.withLock { $0.insert(group) } }
    func remove(_ group: pid_t) { _ = groups.withLock { $0.remove(group) } }
    /// The groups alive now (tests check that none is left).
    package var all: Set<Int32> { groups.withLock { $0 } }
}
