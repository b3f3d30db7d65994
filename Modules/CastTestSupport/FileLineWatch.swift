import Foundation
import Synchronization

/// Waits for a line in a file another program writes (a log given with `--log`), woken by the
/// kernel's inotify events for the file's directory instead of reading the file again on a timer.
///
/// The file is read once when the watch is in place (so a line written before is found), then
/// again after each batch of events for its name (created, written, closed, moved in), until a
/// line satisfies the predicate or the deadline passes. The wait blocks in `poll(2)` on a thread
/// of its own, never on the cooperative pool.
///
/// ```swift
/// let line = await FileLineWatch.firstLine(in: logPath, until: .now + .seconds(30)) {
///     $0.contains("pausing accept")
/// }
/// ```
public enum FileLineWatch {
    /// The first line of the file at `path` satisfying `predicate`, once one is there; `nil` when
    /// none is by `deadline` (a guard against a hang, not a measure of speed) or the directory
    /// cannot be watched.
    ///
    /// - Parameters:
    ///   - path: the file; it need not exist yet, but its directory must.
    ///   - deadline: when to give up.
    ///   - predicate: the line wanted (without its newline).
    public static func firstLine(
        in path: String, until deadline: ContinuousClock.Instant, where predicate: @escaping @Sendable (Substring) -> Bool
    ) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: watch(path, until: deadline, predicate))
            }
        }
    }

    /// How many waits on each path are in place and have read the file once without finding their line.
    private static let waiting = Mutex<[String: Int]>([:])

    /// Whether a wait on `path` is in place and has read the file once without finding its line, so
    /// that a line written from now on is seen through an event (a test of the watch awaits this
    /// with ``ChangeSignal``, which is bumped when it becomes true).
    public static func isWaiting(on path: String) -> Bool {
        waiting.withLock { $0[path, default: 0] > 0 }
    }

    /// Blocks until a line of `path` satisfies `predicate` or `deadline` passes.
    private static func watch(_ path: String, until deadline: ContinuousClock.Instant, _ predicate: (Substring) -> Bool) -> String? {
        func found() -> String? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first(where: predicate).map(String.init)
        }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return found() }
        defer { close(fd) }
        let mask = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO)
        guard inotify_add_watch(fd, url.deletingLastPathComponent().path, mask) >= 0 else { return found() }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        if let line = found() { return line }  // read once now that the watch is in place
        waiting.withLock { $0[path, default: 0] += 1 }
        ChangeSignal.shared.bump()
        defer {
            waiting.withLock { waiting in
                waiting[path, default: 1] -= 1
                if waiting[path] == 0 { waiting[path] = nil }
            }
        }
        var relevant = false
        while true {
            if relevant, let line = found() { return line }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
            if ready < 0 && errno != EINTR { return found() }
            relevant = false
            guard ready > 0 else { continue }
            // Drain the queued events; re-read the file only when one names it.
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let (length, matches) = buffer.withUnsafeBytes { bytes -> (Int, Bool) in
                        let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let start = offset + MemoryLayout<inotify_event>.size
                        let end = min(start + Int(event.len), count)
                        let eventName = String(decoding: bytes[start..<end].prefix { $0 != 0 }, as: UTF8.self)
                        return (Int(event.len), eventName == name || event.mask & UInt32(IN_Q_OVERFLOW) != 0)
                    }
                    if matches { relevant = true }
                    offset += MemoryLayout<inotify_event>.size + length
                }
            }
        }
    }
}
