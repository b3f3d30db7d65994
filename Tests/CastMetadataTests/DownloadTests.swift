import CastTestSupport
import Foundation
import Testing

@testable import CastMetadata

/// CastDownloader against real HTTP servers on loopback that misbehave: bodies that never end, a
/// gzip bomb, a length far beyond the cap, a drip, silence, redirects to `file:`. Deadlines and the
/// minimum rate run on a manual clock.
@Suite("Bounded downloads", .timeLimit(.minutes(1)))
struct DownloadTests {
    static let feed = Array(#"<?xml version="1.0"?><rss version="2.0"><channel><title>Show</title></channel></rss>"#.utf8)
    static let limits = CastDownloadLimits(maximumBytes: 1 << 20, deadline: .seconds(60))

    /// `bytes` of zeros, gzip-compressed by the system's gzip (1 MiB of zeros compresses to about 1 kB).
    static func gzippedZeros(_ bytes: Int) async throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("castor-bomb-\(UUID().uuidString).gz")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess("/bin/sh", ["-c", "head -c \(bytes) /dev/zero | gzip -9 > '\(file.path)'"])
        #expect(await child.waitForExit() == 0)
        return Array(try Data(contentsOf: file))
    }

    static func gzipped(_ text: [UInt8]) async throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("castor-gz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("feed.xml")
        try Data(text).write(to: plain)
        let child = try ChildProcess("/bin/sh", ["-c", "gzip -9 '\(plain.path)'"])
        #expect(await child.waitForExit() == 0)
        return Array(try Data(contentsOf: directory.appendingPathComponent("feed.xml.gz")))
    }

    @Test("a normal body, and a gzip-encoded one decoded")
    func normalAndGzip() async throws {
        let compressed = try await Self.gzipped(Self.feed)
        let server = try HostileHTTPServer { path in
            path == "/gz"
                ? .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: compressed)
                : .respond(status: 200, headers: [("Content-Type", "application/rss+xml")], body: Self.feed)
        }
        defer { server.stop() }
        let downloader = CastDownloader(limits: Self.limits)
        #expect(Array(try await downloader.data(from: server.url("/feed.xml"))) == Self.feed)
        #expect(Array(try await downloader.data(from: server.url("/gz"))) == Self.feed)
    }

    @Test("a body that never ends stops at the cap")
    func endlessBody() async throws {
        let server = try HostileHTTPServer { _ in .endless }
        defer { server.stop() }
        let error = await #expect(throws: CastDownloadError.self) {
            try await CastDownloader(limits: Self.limits).data(from: server.url("/feed.xml"))
        }
        #expect(error?.code == .tooLarge)
    }

    @Test("a gzip bomb stops at the cap counted after decoding")
    func gzipBomb() async throws {
        let bomb = try await Self.gzippedZeros(8 << 20)  // eight times the cap
        #expect(bomb.count < 1 << 20, "the compressed body is under the cap: only decoding shows it is too large")
        let server = try HostileHTTPServer { _ in .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: bomb) }
        defer { server.stop() }
        let error = await #expect(throws: CastDownloadError.self) {
            try await CastDownloader(limits: Self.limits).data(from: server.url("/feed.xml"))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("after decoding") == true)
    }

    @Test("a Content-Length beyond the cap is refused before the body is read")
    func announcedTooLarge() async throws {
        let server = try HostileHTTPServer { _ in
            .respond(status: 200, headers: [("Content-Length", "2000000000")], body: Array(repeating: 65, count: 1000))
        }
        defer { server.stop() }
        let error = await #expect(throws: CastDownloadError.self) {
            try await CastDownloader(limits: Self.limits).data(from: server.url("/feed.xml"))
        }
        #expect(error?.code == .tooLarge)
    }

    @Test("a server dripping a byte a second fails the minimum rate at the end of the first window")
    func drip() async throws {
        let server = try HostileHTTPServer { _ in .drip(body: Self.feed) }
        defer { server.stop() }
        let clock = ManualClock()
        let download = Task { try await CastDownloader(limits: Self.limits, clock: clock).data(from: server.url("/feed.xml")) }
        await clock.waitForSleeper(until: ManualClock.Instant(offset: .seconds(10)))
        await clock.advance(by: .seconds(10))
        let error = await #expect(throws: CastDownloadError.self) { try await download.value }
        #expect(error?.code == .tooSlow)
    }

    @Test("a silent server fails the overall deadline (rate check off)")
    func deadline() async throws {
        let server = try HostileHTTPServer { _ in .silent }
        defer { server.stop() }
        let clock = ManualClock()
        let limits = CastDownloadLimits(maximumBytes: 1 << 20, deadline: .seconds(30), minimumBytesPerWindow: 0)
        let download = Task { try await CastDownloader(limits: limits, clock: clock).data(from: server.url("/feed.xml")) }
        await clock.waitForSleeper(until: ManualClock.Instant(offset: .seconds(30)))
        await clock.advance(by: .seconds(30))
        let error = await #expect(throws: CastDownloadError.self) { try await download.value }
        #expect(error?.code == .deadlineExceeded)
        #expect(error?.message.contains("30 s") == true)
    }

    @Test("redirects: followed to http, refused to file:, too many refused")
    func redirects() async throws {
        let server = try HostileHTTPServer { path in
            switch path {
            case "/moved": .respond(status: 301, headers: [("Location", "/feed.xml")], body: [])
            case "/file": .respond(status: 302, headers: [("Location", "file:///etc/passwd")], body: [])
            case "/loop": .respond(status: 302, headers: [("Location", "/loop")], body: [])
            default: .respond(status: 200, headers: [], body: Self.feed)
            }
        }
        defer { server.stop() }
        let downloader = CastDownloader(limits: Self.limits)
        #expect(Array(try await downloader.data(from: server.url("/moved"))) == Self.feed)
        for path in ["/file", "/loop"] {
            let error = await #expect(throws: CastDownloadError.self) { try await downloader.data(from: server.url(path)) }
            #expect(error?.code == .redirectRefused)
        }
    }

    @Test("an HTTP error status and a non-HTTP URL are typed errors")
    func statusAndScheme() async throws {
        let server = try HostileHTTPServer { _ in .respond(status: 404, headers: [], body: Array("nope".utf8)) }
        defer { server.stop() }
        let downloader = CastDownloader(limits: Self.limits)
        let status = await #expect(throws: CastDownloadError.self) { try await downloader.data(from: server.url("/missing")) }
        #expect(status?.code == .httpStatus)
        #expect(status?.status == 404)
        let scheme = await #expect(throws: CastDownloadError.self) {
            try await downloader.data(from: URL(fileURLWithPath: "/etc/passwd"))
        }
        #expect(scheme?.code == .unsupportedScheme)
    }
}
