import CastTestSupport
import Foundation
import Testing

@testable import CastDownload

/// CastDownloader against real HTTP servers on loopback: Python's `http.server` (a server we did
/// not write) and ``HostileHTTPServer``, which misbehaves on purpose: bodies that never end (a
/// 2 GB body without a length is one), a gzip bomb, a length far beyond the cap, a drip, headers
/// that never finish, silence, redirects to `file:`. Deadlines and the minimum rate run on a
/// manual clock.
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

    @Test("Python's http.server: a file under the cap arrives whole, one over it is refused by its Content-Length")
    func pythonHTTPServer() async throws {
        let python = try #require(OpenSSLPeer.python, "needs python3")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castor-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = Data((0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31) })  // 1.5 MiB
        try small.write(to: folder.appendingPathComponent("feed.xml"))
        try Data(count: 2 << 20).write(to: folder.appendingPathComponent("big.xml"))  // 2 MiB, over the 1 MiB cap
        let server = try ChildProcess(python, ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", folder.path, "0"])
        defer { kill(server.pid, SIGKILL) }
        let line = try #require(await server.waitForLine { $0.contains("port") }, "http.server did not start: \(server.errorOutput)")
        let port = try #require(line.split(separator: " ").firstIndex(of: "port").flatMap { index in
            Int(line.split(separator: " ")[index + 1])
        })
        let downloader = CastDownloader(limits: CastDownloadLimits(maximumBytes: (2 << 20) - 1, deadline: .seconds(60)))
        #expect(try await downloader.data(from: URL(string: "http://127.0.0.1:\(port)/feed.xml")!) == small)
        let error = await #expect(throws: CastDownloadError.self) {
            try await downloader.data(from: URL(string: "http://127.0.0.1:\(port)/big.xml")!)
        }
        #expect(error?.code == .tooLarge)
        let missing = await #expect(throws: CastDownloadError.self) {
            try await downloader.data(from: URL(string: "http://127.0.0.1:\(port)/missing.xml")!)
        }
        #expect(missing?.status == 404)
    }

    @Test("a 2 GB body announced by its Content-Length is refused before the body is read")
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

    @Test("headers that never finish (a byte a second) fail the minimum rate: no body arrived in the window")
    func slowHeaders() async throws {
        let server = try HostileHTTPServer { _ in .slowHeaders }
        defer { server.stop() }
        let clock = ManualClock()
        let download = Task { try await CastDownloader(limits: Self.limits, clock: clock).data(from: server.url("/feed.xml")) }
        await server.waitForRequests(1)
        await clock.waitForSleeper(until: ManualClock.Instant(offset: .seconds(10)))
        await clock.advance(by: .seconds(10))
        let error = await #expect(throws: CastDownloadError.self) { try await download.value }
        #expect(error?.code == .tooSlow)
        #expect(error?.message.contains("0 bytes of body in 10 s") == true)
    }

    @Test("many downloads at once share one thread; cancelling their tasks ends each at once")
    func concurrentAndCancelled() async throws {
        let server = try HostileHTTPServer { _ in .silent }
        defer { server.stop() }
        let count = 40
        let downloads = (0..<count).map { index in
            Task { try await CastDownloader(limits: Self.limits).data(from: server.url("/feed\(index).xml")) }
        }
        await server.waitForRequests(count)  // every transfer is in flight
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.hasPrefix("castor-download") == true
        }
        #expect(threads.count == 1, "one driver thread for \(count) transfers")
        for download in downloads { download.cancel() }
        for download in downloads {
            let error = await #expect(throws: CastDownloadError.self) { try await download.value }
            #expect(error?.code == .cancelled)
        }
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
