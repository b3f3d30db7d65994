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

/// A hostile feed (issue 45): one `<item>` with 350 000 attributes in 4 MB, served over HTTP. Before,
/// parsing it ran past 120 s (libxml2 is quadratic in attributes per element) and the parse was
/// outside the download's deadline; now it is refused while it is read, with the limit it passed.
@Suite("Hostile feeds", .timeLimit(.minutes(1)))
struct HostileFeedTests {
    @Test("a feed with an element of 350 000 attributes is refused as invalid, naming the limit")
    func tooManyAttributes() async throws {
        let attributes = (0..<350_000).map { #"a\#($0)="x""# }.joined(separator: " ")
        let feed = Array(#"<rss version="2.0"><channel><title>T</title><item \#(attributes)><title>E</title><enclosure url="http://127.0.0.1:1/e.mp3" type="audio/mpeg"/></item></channel></rss>"#.utf8)
        let server = try HostileHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "application/rss+xml")], body: feed) }
        defer { server.stop() }
        let error = await #expect(throws: AudioCastError.self) { try await FeedReader.feed(from: server.url("/feed.xml").absoluteString) }
        #expect(error?.code == .invalidFeed)
        #expect(error?.message.contains("tooManyAttributes") == true, "\(String(describing: error))")
    }
}
