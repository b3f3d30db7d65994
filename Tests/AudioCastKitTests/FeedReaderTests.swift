import CastTestSupport
import Foundation
import Testing

@testable import AudioCastKit

/// Subscribing reads feeds with every cost bounded: a feed that never ends or a path that never
/// ends stops at 16 MiB, a redirect to `file:` is refused.
@Suite("Feed reading limits", .timeLimit(.minutes(1)))
struct FeedReaderTests {
    @Test("an endless HTTP feed stops at 16 MiB; a redirect to file: is refused")
    func hostileServers() async throws {
        let server = try HostileHTTPServer { path in
            path == "/redirect" ? .respond(status: 302, headers: [("Location", "file:///etc/passwd")], body: []) : .endless
        }
        defer { server.stop() }
        let endless = await #expect(throws: AudioCastError.self) {
            try await FeedReader.data(from: server.url("/feed.xml").absoluteString)
        }
        #expect(endless?.code == .feedUnreadable)
        #expect(endless?.message.contains("larger than 16777216 bytes") == true)
        let redirect = await #expect(throws: AudioCastError.self) {
            try await FeedReader.data(from: server.url("/redirect").absoluteString)
        }
        #expect(redirect?.message.contains("only http and https are followed") == true)
    }

    @Test("a path that never ends (a FIFO fed forever) stops at 16 MiB")
    func endlessPath() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audiocast-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("feed.xml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = try ChildProcess("/bin/sh", ["-c", "yes '<rss>' > '\(fifo)'"])
        defer { kill(writer.pid, SIGKILL) }
        let error = await #expect(throws: AudioCastError.self) { try await FeedReader.data(from: fifo) }
        #expect(error?.message.contains("larger than 16777216 bytes") == true)
    }
}
