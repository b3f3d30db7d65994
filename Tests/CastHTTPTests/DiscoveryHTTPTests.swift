import CastDiscoveryTestSupport
import CastTestSupport
import Foundation
import Testing

@testable import CastDIAL
import CastDiscoveryCore
import CastHTTP

/// The GET discovery uses for DIAL descriptions and `eureka_info` (one bounded GET on SwiftNIO, shared
/// with the emulated receiver's fetcher), against real servers on loopback: Python's `http.server`
/// (a server we did not write) and deliberately broken ones.
@Suite("Discovery's HTTP GET") struct DiscoveryHTTPTests {
    static func fetcher(_ clock: any Clock<Duration> = ContinuousClock()) -> BoundedHTTPFetcher {
        BoundedHTTPFetcher(timeout: .seconds(60), clock: clock)
    }

    static func expectHTTPError(_ url: URL, limit: Int = 1024, fetcher: BoundedHTTPFetcher = fetcher(),
                                sourceLocation: SourceLocation = #_sourceLocation) async -> CastDiscoveryError? {
        do {
            _ = try await fetcher.get(url, limit: limit)
            Issue.record("GET \(url) succeeded", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.code == .http, sourceLocation: sourceLocation)
            return error
        }
    }

    @Test("Python's http.server: a description arrives whole with its headers; one over the limit and a 404 are told apart")
    func pythonHTTPServer() async throws {
        let python = try #require(OpenSSLPeer.python, "needs python3")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castor-dial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let description = Array("<root><device><UDN>uuid:3e1cc7c8-f4c9-4d64-9ab1-a3e2c1ff0a11</UDN></device></root>".utf8)
        try Data(description).write(to: folder.appendingPathComponent("dd.xml"))
        try Data(count: DIALDeviceDescription.maxSize + 1).write(to: folder.appendingPathComponent("big.xml"))
        let server = try ChildProcess(python, ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", folder.path, "0"])
        defer { kill(server.pid, SIGKILL) }
        let line = try #require(await server.waitForLine { $0.contains("port") }, "http.server did not start: \(server.errorOutput)")
        let port = try #require(line.split(separator: " ").firstIndex(of: "port").flatMap { index in
            Int(line.split(separator: " ")[index + 1])
        })
        let reply = try await Self.fetcher().get(URL(string: "http://127.0.0.1:\(port)/dd.xml")!, limit: DIALDeviceDescription.maxSize)
        #expect(reply.status == 200)
        #expect(reply.body == description)
        #expect(reply.headers["content-length"] == String(description.count))
        let big = await Self.expectHTTPError(URL(string: "http://127.0.0.1:\(port)/big.xml")!, limit: DIALDeviceDescription.maxSize)
        #expect(big?.message.contains("exceeds") == true)
        let missing = try await Self.fetcher().get(URL(string: "http://127.0.0.1:\(port)/missing.xml")!, limit: 1024)
        #expect(missing.status == 404)
    }

    @Test("a response framed both by Content-Length and chunked is refused (request-smuggling ambiguity); an endless one stops at the limit")
    func ambiguousAndEndless() async throws {
        let server = try HostileHTTPServer { path in
            path == "/chunked"
                ? .respond(status: 200, headers: [("Transfer-Encoding", "chunked")],
                           body: Array("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8))
                : .endless
        }
        defer { server.stop() }
        // The test server adds Content-Length to any canned response, so this one carries both framings.
        _ = await Self.expectHTTPError(server.url("/chunked"), limit: 100)
        _ = await Self.expectHTTPError(server.url("/endless"), limit: 64 * 1024)
    }

    @Test("a body shorter than its Content-Length, garbage and a refused port are errors")
    func brokenAnswers() async throws {
        let server = try HostileHTTPServer { path in
            path == "/short"
                ? .respond(status: 200, headers: [("Content-Length", "50")], body: Array("short".utf8))
                : .respond(status: 200, headers: [], body: [])
        }
        defer { server.stop() }
        _ = await Self.expectHTTPError(server.url("/short"))
        _ = await Self.expectHTTPError(URL(string: "ftp://127.0.0.1/x")!)
        // Nothing listens on the server's port once it stopped.
        let closed = server.url("/")
        server.stop()
        _ = await Self.expectHTTPError(closed)
    }

    @Test("a server that never answers is dropped when the deadline passes on the injected clock")
    func silentServer() async throws {
        let server = try HostileHTTPServer { _ in .silent }
        defer { server.stop() }
        let clock = ManualClock()
        let fetch = Task { await Self.expectHTTPError(server.url("/dd.xml"), fetcher: Self.fetcher(clock)) }
        await server.waitForRequests(1)
        await clock.waitForSleeper(until: ManualClock.Instant(offset: .seconds(60)))
        await clock.advance(by: .seconds(60))
        let error = await fetch.value
        #expect(error?.message.contains("within") == true)
    }
}
