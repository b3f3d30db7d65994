import Foundation
import Testing
@testable import CastMediaServer

@Suite("Concurrent clients")
struct ConcurrencyTests {
    @Test func fiftyParallelClientsWithKeepAlive() async throws {
        let directory = try TemporaryDirectory()
        let content = patternBytes(count: 1 << 20)
        let path = try directory.write("movie.mp4", content)
        try await withServer { server in
            let registration = try server.register(file: path)
            let port = server.port
            let results = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<50 {
                    group.addTask {
                        try await onBlockingThread {
                            let connection = try RawConnection(port: port)
                            var checked = 0
                            // Three requests on one connection: a range, a suffix range, and a two-range multipart.
                            let start = client * 20_000
                            let end = start + 4095 + client * 100
                            try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\nRange: bytes=\(start)-\(end)\r\n\r\n")
                            let first = try connection.readResponse()
                            if first?.status == 206, first?.body == Array(content[start...end]) { checked += 1 }
                            try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\nRange: bytes=-\(client + 1)\r\n\r\n")
                            let second = try connection.readResponse()
                            if second?.status == 206, second?.body == Array(content.suffix(client + 1)) { checked += 1 }
                            try connection.send("HEAD \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
                            let third = try connection.readResponse(bodyless: true)
                            if third?.status == 200, third?.header("Content-Length") == String(content.count) { checked += 1 }
                            return checked
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(results.count == 50)
            #expect(results.allSatisfy { $0 == 3 })
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let content = patternBytes(count: 10_000)
        try await withServer { server in
            let registration = try server.register(data: content, name: "blob.mp4")
            let responses = try await onBlockingThread { () -> [RawResponse?] in
                let connection = try RawConnection(port: server.port)
                let requests = (0..<5).map { "GET \(registration.path) HTTP/1.1\r\nHost: x\r\nRange: bytes=\($0 * 1000)-\($0 * 1000 + 9)\r\n\r\n" }
                try connection.send(requests.joined())
                return try (0..<5).map { _ in try connection.readResponse() }
            }
            for (index, response) in responses.enumerated() {
                #expect(response?.status == 206)
                #expect(response?.body == Array(content[(index * 1000)..<(index * 1000 + 10)]))
            }
        }
    }

    @Test func http10ClientsGetOneResponsePerConnection() async throws {
        try await withServer { server in
            let registration = try server.register(data: Array("hello".utf8), name: "a.txt")
            let (response, rest) = try await onBlockingThread { () -> (RawResponse?, [UInt8]) in
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(registration.path) HTTP/1.0\r\n\r\n")
                return (try connection.readResponse(), try connection.readUntilClosed())
            }
            #expect(response?.status == 200)
            #expect(response?.header("Connection") == "close")
            #expect(response?.body == Array("hello".utf8))
            #expect(rest.isEmpty)
        }
    }

    @Test func shutdownClosesOpenConnections() async throws {
        let server = try await MediaServer.start(.init(host: "127.0.0.1"))
        let registration = try server.register(data: [1, 2, 3], name: "x.bin")
        let connection = try await onBlockingThread { () -> RawConnection in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try connection.readResponse()
            return connection
        }
        await server.shutdown()
        let rest = try await onBlockingThread { try connection.readUntilClosed() }
        #expect(rest.isEmpty)
        await server.shutdown()  // idempotent
    }
}

@Suite("Local address")
struct LocalAddressTests {
    @Test func loopbackReachesItself() throws {
        #expect(try MediaServer.localAddress(reaching: "127.0.0.1", port: 8009) == "127.0.0.1")
        #expect(try MediaServer.localAddress(reaching: "127.0.0.5", port: 8009).hasPrefix("127."))
    }

    @Test(.enabled(if: hasIPv6Loopback, "no IPv6 loopback on this machine"))
    func ipv6Loopback() throws {
        #expect(try MediaServer.localAddress(reaching: "::1", port: 8009) == "::1")
    }

    @Test func serverStartsOnTheRoutedAddress() async throws {
        let server = try await MediaServer.start(reaching: "127.0.0.1", receiverPort: 8009)
        #expect(server.host == "127.0.0.1")
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        let registration = try server.register(data: Array("WEBVTT\n".utf8), name: "s.vtt")
        let response = try await rawRequest(port: server.port, "GET \(registration.path) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response?.body == Array("WEBVTT\n".utf8))
        await server.shutdown()
    }
}

let hasIPv6Loopback: Bool = {
    let descriptor = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
    } == 0
}()
