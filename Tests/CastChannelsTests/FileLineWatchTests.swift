import CastTestSupport
import Foundation
import Testing

/// `FileLineWatch` wakes on the file's inotify events: a line already there, a line appended
/// later by a writer the wait does not know of, a file created after the wait began.
struct FileLineWatchTests {
    static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("file-line-watch-\(UUID().uuidString)")
    }

    @Test func findsALineAlreadyWritten() async throws {
        let file = Self.scratch()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("one\ntwo\n".utf8).write(to: file)
        let line = await FileLineWatch.firstLine(in: file.path, until: .now + .seconds(30)) { $0.hasPrefix("tw") }
        #expect(line == "two")
    }

    @Test func wakesWhenAnotherWriterCreatesAndAppendsToTheFile() async throws {
        let file = Self.scratch()
        defer { try? FileManager.default.removeItem(at: file) }
        // The file does not exist yet: the line can only be seen through the watch's events.
        let waiter = Task { await FileLineWatch.firstLine(in: file.path, until: .now + .seconds(30)) { $0 == "ready" } }
        #expect(await ChangeSignal.shared.wait(for: { FileLineWatch.isWaiting(on: file.path) }, until: .now + .seconds(30)))
        try Data("starting\n".utf8).write(to: file)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("ready\n".utf8))
        #expect(await waiter.value == "ready")
        #expect(!FileLineWatch.isWaiting(on: file.path))
    }

    @Test func givesUpAtItsDeadline() async {
        let file = Self.scratch()
        let line = await FileLineWatch.firstLine(in: file.path, until: .now) { _ in true }
        #expect(line == nil)
    }
}
