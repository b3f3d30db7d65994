import CastProcess
import Foundation
import Synchronization

/// A program run by a test, whose output lines can be awaited.
///
/// Spawned through CastProcess (see ``spawn(_:stdin:stdout:stderr:environment:)``: it dies with the
/// test process) and reaped with `waitpid` on its own PID: Foundation's `Process` monitor on Linux can
/// block in `waitpid` on one running child and then reap no other.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The lines of one output stream, and the tasks waiting for a line.
    private struct LineLog {
        typealias Waiter = (predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)
        var lines: [String] = []
        var closed = false
        var waiters: [Waiter] = []

        /// Records `line`; the waiters it satisfies, to resume with it outside the lock.
        mutating func append(_ line: String) -> [CheckedContinuation<String?, Never>] {
            lines.append(line)
            var ready: [CheckedContinuation<String?, Never>] = []
            waiters.removeAll { waiter in
                guard waiter.predicate(line) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }

        /// The stream ended; every waiter, to resume with `nil`.
        mutating func close() -> [CheckedContinuation<String?, Never>] {
            closed = true
            defer { waiters.removeAll() }
            return waiters.map(\.continuation)
        }

        /// The answer now (a matching line, or `nil` once closed), or `nil` after queueing the waiter.
        mutating func wait(_ waiter: Waiter) -> String?? {
            if let line = lines.first(where: waiter.predicate) { return .some(line) }
            if closed { return .some(nil) }
            waiters.append(waiter)
            return nil
        }
    }

    private struct State {
        var output = LineLog()
        var errors = LineLog()
        var errorText = ""
        var exitStatus: Int32?
        var exitWaiters: [CheckedContinuation<Int32, Never>] = []
    }
    private let state = Mutex(State())
    /// The write end of the child's standard input, when it has one (-1 once closed).
    private let input: Mutex<Int32>

    /// Starts `executable` with `arguments`; standard input is /dev/null, or a channel written with
    /// ``writeLine(_:)`` when `standardInput` is `true`.
    ///
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments (without the program itself).
    ///   - environment: its environment; `nil` inherits this process's.
    ///   - standardInput: whether the child reads a channel written with ``writeLine(_:)`` instead of /dev/null.
    ///   - lifetime: the child is killed (SIGKILL) if it still runs after this long, so a test
    ///     waiting for a line or an exit that never comes fails (the wait returns `nil` or the kill's
    ///     status, and ``errorOutput`` says so) instead of hanging the whole run. A safety net, far above
    ///     what any healthy run takes; not a timing assertion.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, standardInput: Bool = false,
        lifetime: Duration = .seconds(480)
    ) throws {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        var inPipe: [Int32] = [-1, -1]
        // Close-on-exec from creation (atomic), so a program spawned at the same moment by another
        // test cannot inherit our ends (which would keep our output open after our child exits).
        guard Self.makeChannel(&outPipe), Self.makeChannel(&errPipe), !standardInput || Self.makeChannel(&inPipe) else {
            throw ChildProcessError(message: "socketpair() failed: \(errno)")
        }
        let child: pid_t
        do {
            child = try Self.spawn([executable] + arguments, stdin: inPipe[0], stdout: outPipe[1], stderr: errPipe[1],
                                   environment: environment)
        } catch {
            for fd in outPipe + errPipe + inPipe where fd >= 0 { close(fd) }
            throw error
        }
        close(outPipe[1])
        close(errPipe[1])
        if inPipe[0] >= 0 { close(inPipe[0]) }
        input = Mutex(inPipe[1])
        pid = child
        let spawned = child
        let outFD = outPipe[0]
        let errFD = errPipe[0]
        Thread.detachNewThread { [self] in
            Self.readLines(outFD) { line in resume(state.withLock { $0.output.append(line) }, with: line) }
            resume(state.withLock { $0.output.close() }, with: nil)
            ChangeSignal.shared.bump()
        }
        Thread.detachNewThread { [self] in
            Self.readLines(errFD) { line in
                resume(state.withLock { state in
                    state.errorText += line + "\n"
                    return state.errors.append(line)
                }, with: line)
            }
            resume(state.withLock { $0.errors.close() }, with: nil)
            ChangeSignal.shared.bump()
        }
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            guard let self, self.state.withLock({ $0.exitStatus == nil }) else { return }
            self.state.withLock { $0.errorText += "[ChildProcess] killed: still running after \(lifetime)\n" }
            kill(spawned, SIGKILL)
        }
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(spawned, &raw, 0) < 0 && errno == EINTR {}
            let code: Int32 = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            let waiters = state.withLock { state in
                state.exitStatus = code
                defer { state.exitWaiters.removeAll() }
                return state.exitWaiters
            }
            for waiter in waiters { waiter.resume(returning: code) }
        }
    }

    /// Starts `arguments` (the program first) with the given descriptors as its standard input,
    /// output and error (`-1`: /dev/null for input, inherit for output and error), and returns its pid
    /// (reap it with `waitpid`).
    ///
    /// Forked by CastProcess's spawner, as every program Castor runs: the child leads a process group
    /// of its own, its signal mask and dispositions are reset (so it honours SIGTERM although spawned
    /// from a Swift concurrency thread), and `PR_SET_PDEATHSIG` kills it when the test process ends,
    /// so a crashed or killed test run leaves no receiver, peer or daemon behind.
    public static func spawn(
        _ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32 = -1, environment: [String: String]? = nil
    ) throws -> pid_t {
        var input = stdin
        if input < 0 {
            input = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw ChildProcessError(message: "cannot open /dev/null: \(errno)") }
        }
        defer { if stdin < 0 { close(input) } }
        let sources = [input, stdout >= 0 ? stdout : 1, stderr >= 0 ? stderr : 2]
        let child = ProcessSpawner.shared.spawn(
            path: arguments[0], arguments: Array(arguments.dropFirst()),
            environment: environment.map { $0.map { "\($0.key)=\($0.value)" } }, sources: sources, targets: [0, 1, 2])
        guard child > 0 else {
            throw ChildProcessError(message: "cannot start \(arguments[0]): \(String(cString: strerror(-child)))")
        }
        return child
    }

    /// A one-way byte channel with both ends close-on-exec: [read end, write end].
    public static func makeChannel(_ fds: inout [Int32]) -> Bool {
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0
    }

    private static func readLines(_ fd: Int32, _ body: (String) -> Void) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            buffer += chunk[..<count]
            while let newline = buffer.firstIndex(of: 10) {
                body(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        if !buffer.isEmpty { body(String(decoding: buffer, as: UTF8.self)) }
        close(fd)
    }

    private func resume(_ waiters: [CheckedContinuation<String?, Never>], with line: String?) {
        for continuation in waiters { continuation.resume(returning: line) }
    }

    /// Waits for the first line on standard error satisfying `predicate` (status lines of programs
    /// whose standard output is their result); `nil` when standard error closes first.
    public func waitForErrorLine(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let found = state.withLock { $0.errors.wait((predicate, continuation)) }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Waits for the first output line satisfying `predicate`; `nil` when the output ends first.
    public func waitForLine(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let found = state.withLock { $0.output.wait((predicate, continuation)) }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Writes `line` and a newline to the child's standard input (started with `standardInput: true`).
    /// - Returns: `false` when the child has no standard input channel or it is closed.
    @discardableResult
    public func writeLine(_ line: String) -> Bool {
        input.withLock { fd in
            guard fd >= 0 else { return false }
            var bytes = Array((line + "\n").utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }  // no SIGPIPE
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                bytes = bytes.dropFirst(written)
            }
            return true
        }
    }

    deinit { closeInput() }

    /// Closes the child's standard input (it reads end of file).
    public func closeInput() {
        input.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Every output line so far.
    public var output: [String] { state.withLock { $0.output.lines } }
    /// Everything written to standard error so far.
    public var errorOutput: String { state.withLock { $0.errorText } }

    /// Sends `signal` (SIGTERM by default) and waits for the exit status.
    public func terminate(signal: Int32 = SIGTERM) async -> Int32 {
        if state.withLock({ $0.exitStatus == nil }) { kill(pid, signal) }
        return await waitForExit()
    }

    /// Waits for the process to exit and its output to be read; returns the exit status (128 + signal when killed).
    public func waitForExit() async -> Int32 {
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let done: Int32? = state.withLock { state in
                if let status = state.exitStatus { return status }
                state.exitWaiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
        // Wait for both outputs to be read to their ends (each reader bumps ChangeSignal when it closes):
        // callers read the program's last lines of either right after this returns. A grandchild that
        // kept a pipe open would delay that forever, so the wait has a deadline (a safety net, not a
        // timing assertion).
        _ = await ChangeSignal.shared.wait(
            for: { state.withLock { $0.output.closed && $0.errors.closed } }, until: .now + .seconds(5))
        return status
    }
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The message.
    public var description: String { message }
}
