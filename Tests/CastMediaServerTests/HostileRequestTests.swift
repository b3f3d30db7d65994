import CastTestSupport
import Foundation
import Synchronization
import Testing
@testable import CastMediaServer

/// Requests written byte by byte on raw sockets: nothing outside the registered files is ever served.
@Suite("Hostile requests")
struct HostileRequestTests {
    static let secret = Array("TOP SECRET: never serve me".utf8)

    struct Setup {
        let directory: TemporaryDirectory
        let moviePath: String
        let secretPath: String
        let movie: [UInt8]
    }

    func makeFiles() throws -> Setup {
        let directory = try TemporaryDirectory()
        let movie = patternBytes(count: 2048)
        let moviePath = try directory.write("movie.mp4", movie)
        let secretPath = try directory.write("secret.txt", Self.secret)
        return Setup(directory: directory, moviePath: moviePath, secretPath: secretPath, movie: movie)
    }

    @Test func traversalAndForeignTargetsGet404() async throws {
        let setup = try makeFiles()
        try await withServer { server in
            let registration = try server.register(file: setup.moviePath)
            let token = registration.token
            let otherToken = RegistrationToken.make()
            let targets = [
                "/", "/secret.txt", "/\(token)", "/\(token)/", "/\(token)/secret.txt", "/\(token)/../secret.txt",
                "/\(token)/..%2fsecret.txt", "/\(token)/%2e%2e%2fsecret.txt", "/\(token)/%2e%2e/secret.txt",
                "/\(token)/%2E%2E%2Fsecret.txt", "/\(token)/..%5csecret.txt", "/\(token)/movie.mp4/../secret.txt",
                "/\(token)/movie.mp4%2f..%2fsecret.txt", "/\(token)/movie.mp4%00", "/\(otherToken)/movie.mp4",
                "/\(token.uppercased())/movie.mp4", "/\(token.dropLast())/movie.mp4", "/\(token)0/movie.mp4",
                setup.secretPath, "/" + setup.secretPath, setup.directory.path + "/", "/../../../../etc/passwd",
                "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/\(token)/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "file:///etc/passwd",
                "http://127.0.0.1/\(token)/secret.txt",
            ]
            for target in targets {
                for method in ["GET", "HEAD"] {
                    let response = try await rawRequest(port: server.port, "\(method) \(target) HTTP/1.1\r\nHost: x\r\n\r\n",
                                                        bodyless: method == "HEAD")
                    let status = try #require(response?.status, "no response to \(method) \(target)")
                    #expect(status == 404 || status == 400, "\(method) \(target) got \(status)")
                    let body = response?.body ?? []
                    #expect(!body.containsSubsequence(Self.secret))
                }
            }
            // The registered file is still served, in origin-form, with a query, and in absolute-form.
            for target in ["/\(token)/movie.mp4", "/\(token)/movie.mp4?t=1", "http://127.0.0.1/\(token)/movie.mp4"] {
                let response = try await rawRequest(port: server.port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(response?.status == 200)
                #expect(response?.body == setup.movie)
            }
        }
    }

    @Test func otherMethodsAndUnregistering() async throws {
        let setup = try makeFiles()
        try await withServer { server in
            let registration = try server.register(file: setup.moviePath)
            let post = try await rawRequest(
                port: server.port, "POST \(registration.path) HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            #expect(post?.status == 405)
            #expect(post?.header("Allow") == "GET, HEAD, OPTIONS")
            let asterisk = try await rawRequest(port: server.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(asterisk?.status == 204)
            // HEAD sends no body: a GET right after it on the same connection parses cleanly.
            let (head, get) = try await onBlockingThread { () -> (RawResponse?, RawResponse?) in
                let connection = try RawConnection(port: server.port)
                try connection.send("HEAD \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\nGET \(registration.path) HTTP/1.1\r\nHost: x\r\nRange: bytes=0-3\r\n\r\n")
                return (try connection.readResponse(bodyless: true), try connection.readResponse())
            }
            #expect(head?.status == 200)
            #expect(head?.header("Content-Length") == "2048")
            #expect(get?.status == 206)
            #expect(get?.body == Array(setup.movie.prefix(4)))
            #expect(server.unregister(registration))
            #expect(!server.unregister(registration))
            let gone = try await rawRequest(port: server.port, "GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(gone?.status == 404)
            #expect(server.registrations.isEmpty)
        }
    }

    @Test func registrationErrors() async throws {
        let setup = try makeFiles()
        try await withServer { server in
            #expect { try server.register(file: setup.directory.path + "/missing.mp4") } throws: {
                ($0 as? MediaServerError)?.code == .fileNotFound
            }
            #expect { try server.register(file: setup.directory.path) } throws: {
                ($0 as? MediaServerError)?.code == .notARegularFile
            }
            #expect { try server.register(subtitles: setup.secretPath) } throws: {
                ($0 as? MediaServerError)?.code == .invalidSubtitles
            }
            // A symbolic link is resolved at registration: the URL names the link, the target's bytes are served.
            let link = setup.directory.path + "/link.mp4"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: setup.moviePath)
            let linked = try server.register(file: link)
            #expect(linked.name == "movie.mp4")
            let a = try server.register(file: setup.moviePath)
            #expect(a.token != linked.token)
            #expect(a.url == "http://127.0.0.1:\(server.port)/\(a.token)/movie.mp4")
            // A registered file replaced by a symbolic link to another file is not served through the link.
            let swapped = try server.register(file: try setup.directory.write("swapped.mp4", [1, 2, 3]))
            try FileManager.default.removeItem(atPath: setup.directory.path + "/swapped.mp4")
            try FileManager.default.createSymbolicLink(atPath: setup.directory.path + "/swapped.mp4", withDestinationPath: setup.secretPath)
            let viaLink = try await rawRequest(port: server.port, "GET \(swapped.path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(viaLink?.status == 404)
            let linkBody = viaLink?.body ?? []
            #expect(!linkBody.containsSubsequence(Self.secret))
            // A registered file that disappears is no longer served (and nothing else is).
            try FileManager.default.removeItem(atPath: setup.moviePath)
            let vanished = try await rawRequest(port: server.port, "GET \(a.path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(vanished?.status == 404)
        }
        let closed = try await MediaServer.start(.init(host: "127.0.0.1"))
        await closed.shutdown()
        #expect { try closed.register(data: [1], name: "x") } throws: { ($0 as? MediaServerError)?.code == .serverClosed }
    }

    @Test func configurationErrors() async throws {
        await #expect { try await MediaServer.start(.init(host: "0.0.0.0")) } throws: {
            ($0 as? MediaServerError)?.code == .invalidConfiguration
        }
        await #expect { try await MediaServer.start(.init(host: "127.0.0.1", port: 70000)) } throws: {
            ($0 as? MediaServerError)?.code == .invalidConfiguration
        }
        let first = try await MediaServer.start(.init(host: "127.0.0.1"))
        await #expect { try await MediaServer.start(.init(host: "127.0.0.1", port: first.port)) } throws: {
            ($0 as? MediaServerError)?.code == .bindFailed
        }
        await first.shutdown()
        let wildcard = try await MediaServer.start(.init(host: "0.0.0.0", advertisedHost: "127.0.0.1"))
        #expect(try wildcard.register(data: [1], name: "a b").url == "http://127.0.0.1:\(wildcard.port)/\(wildcard.registrations[0].token)/a%20b")
        await wildcard.shutdown()
    }

    @Test func overlongHeadersAreRefusedAndTheServerGoesOn() async throws {
        let setup = try makeFiles()
        try await withServer(maximumHeaderBytes: 8192) { server in
            let registration = try server.register(file: setup.moviePath)
            let huge = String(repeating: "a", count: 20_000)
            let outcome = try await onBlockingThread { () -> Int? in
                let connection = try RawConnection(port: server.port)
                // The server may close before reading everything; a failed send is an acceptable refusal.
                do {
                    try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\nX-Big: \(huge)\r\n\r\n")
                } catch {
                    return nil
                }
                return try? connection.readResponse()?.status
            }
            #expect(outcome == nil || outcome == 431, "got \(String(describing: outcome))")
            let many = (0..<300).map { "X-H\($0): v\r\n" }.joined()
            let manyOutcome = try await onBlockingThread { () -> Int? in
                let connection = try RawConnection(port: server.port)
                do { try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\(many)\r\n") } catch { return nil }
                return try? connection.readResponse()?.status
            }
            #expect(manyOutcome == nil || manyOutcome == 431)
            let longTarget = "/" + String(repeating: "x", count: 20_000)
            let longOutcome = try await onBlockingThread { () -> Int? in
                let connection = try RawConnection(port: server.port)
                do { try connection.send("GET \(longTarget) HTTP/1.1\r\nHost: x\r\n\r\n") } catch { return nil }
                return try? connection.readResponse()?.status
            }
            #expect(longOutcome == nil || longOutcome == 431)
            let garbage = try await rawRequest(port: server.port, "HELLO THERE\r\n\r\n")
            #expect(garbage?.status == 400)
            let fine = try await rawRequest(port: server.port, "GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(fine?.status == 200)
            #expect(fine?.body == setup.movie)
        }
    }

    @Test func connectionsBeyondTheLimitAreRefused() async throws {
        let setup = try makeFiles()
        let server = try await MediaServer.start(.init(host: "127.0.0.1", maximumConnections: 2))
        let registration = try server.register(file: setup.moviePath)
        let request = "GET \(registration.path) HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0\r\n\r\n"
        let outcome = try await onBlockingThread { () -> [Int?] in
            let first = try RawConnection(port: server.port)
            let second = try RawConnection(port: server.port)
            try first.send(request)
            try second.send(request)
            let a = try first.readResponse()?.status
            let b = try second.readResponse()?.status
            let third = try RawConnection(port: server.port)
            try? third.send(request)
            let c = try? third.readResponse()?.status
            // The two accepted connections keep working.
            try first.send(request)
            let d = try first.readResponse()?.status
            return [a, b, c ?? nil, d]
        }
        #expect(outcome == [206, 206, nil, 206])
        await server.shutdown()
        await #expect { try await MediaServer.start(.init(host: "127.0.0.1", maximumConnections: 0)) } throws: {
            ($0 as? MediaServerError)?.code == .invalidConfiguration
        }
    }

    @Test func slowClientIsCutOffAndOthersAreServed() async throws {
        let setup = try makeFiles()
        let clock = ManualClock()
        try await withServer(idleTimeout: .seconds(30), clock: clock) { server in
            let registration = try server.register(file: setup.moviePath)
            // A client that sends half a request head and then nothing.
            let slow = try await onBlockingThread { () -> RawConnection in
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                return connection
            }
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: .seconds(29))
            // Still open: a well-behaved request on another connection works meanwhile.
            let other = try await rawRequest(port: server.port, "GET \(registration.path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(other?.status == 200)
            #expect(other?.body == setup.movie)
            await clock.advance(by: .seconds(2))
            let leftovers = try await onBlockingThread { try slow.readUntilClosed() }
            #expect(leftovers.isEmpty)
            let after = try await rawRequest(port: server.port, "GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(after?.status == 200)
        }
    }

    @Test func steadyReaderOfALargeFileIsNotCutOff() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.sparse("big.mp4", size: 1 << 30, patches: [])
        let clock = ManualClock()
        try await withServer(idleTimeout: .seconds(30), clock: clock) { server in
            let registration = try server.register(file: path)
            let connection = try await onBlockingThread { () -> RawConnection in
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection
            }
            // Ten rounds of reading 32 MiB (more than any socket buffers hold, so the server completes writes in
            // every round), each followed by 20 s of clock time: 200 s in all, far beyond the 30 s timeout.
            var received = 0
            for _ in 0..<10 {
                received += try await onBlockingThread { try connection.readBytes(32 << 20) }
                await clock.advance(by: .seconds(20))
            }
            #expect(received == 10 * (32 << 20))
            #expect(server.openConnectionCount == 1)
        }
    }

    @Test func clientsHangingUpMidTransferDoNotDisturbOthers() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.sparse("big.mp4", size: 1 << 30, patches: [(0, [7, 7, 7])])
        try await withServer { server in
            let registration = try server.register(file: path)
            for index in 0..<10 {
                // Full file, a single range, and a multipart response, each abandoned after the first bytes.
                let range = ["", "Range: bytes=100-\(1 << 29)\r\n", "Range: bytes=0-9,1000-\(1 << 29)\r\n"][index % 3]
                let got = try await onBlockingThread { () -> Int in
                    let connection = try RawConnection(port: server.port)
                    try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\(range)\r\n")
                    return try connection.readBytes(100_000)
                }
                #expect(got == 100_000)
            }
            let check = try await rawRequest(port: server.port, "GET \(registration.path) HTTP/1.1\r\nHost: x\r\nRange: bytes=0-2\r\n\r\n")
            #expect(check?.body == [7, 7, 7])
        }
    }

    @Test func stalledReaderIsCutOff() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.sparse("big.mp4", size: 1 << 30, patches: [])
        let clock = ManualClock()
        try await withServer(idleTimeout: .seconds(30), clock: clock) { server in
            let registration = try server.register(file: path)
            // Asks for 1 GiB and never reads: the server fills the socket buffers, then cannot progress.
            let connection = try await onBlockingThread { () -> RawConnection in
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection
            }
            await clock.waitForSleepers(count: 1)
            let serverSide = try #require(server.connections.open.first)
            let closed = Mutex(false)
            serverSide.closeFuture.whenComplete { _ in
                closed.withLock { $0 = true }
                ChangeSignal.shared.bump()
            }
            // While the kernel still accepts bytes, each advance is answered by progress and the watchdog
            // sleeps again; once the buffers are full nothing moves and the next advance expires the
            // connection. After each advance, await one or the other (the clock announces a sleeper).
            var advances = 0
            while !closed.withLock({ $0 }) && advances < 100_000 {
                await clock.advance(by: .seconds(31))
                advances += 1
                let settled = await ChangeSignal.shared.wait(
                    for: { closed.withLock { $0 } || clock.sleeperCount > 0 }, until: .now + .seconds(30))
                try #require(settled, "after advance \(advances) the watchdog neither slept again nor closed the connection")
            }
            #expect(advances > 0)
            #expect(server.openConnectionCount == 0)
            let received = try await onBlockingThread { try connection.readUntilClosed().count }
            #expect(received < 1 << 30)
            let fresh = try await rawRequest(port: server.port, "HEAD \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n", bodyless: true)
            #expect(fresh?.status == 200)
        }
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTimeout() async throws {
        let setup = try makeFiles()
        let clock = ManualClock()
        try await withServer(idleTimeout: .seconds(30), clock: clock) { server in
            let registration = try server.register(file: setup.moviePath)
            let connection = try await onBlockingThread { () -> RawConnection in
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try connection.readResponse()
                return connection
            }
            await clock.waitForSleepers(count: 1)
            await clock.advance(by: .seconds(31))
            let closed = try await onBlockingThread { try connection.readUntilClosed() }
            #expect(closed.isEmpty)
        }
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
