import CastTestSupport
import Foundation
import Synchronization
import Testing
@testable import CastMediaServer

/// The generated-resource extension point: a provider answers every name under its token.
@Suite("Providers: resources made on request")
struct ProviderTests {
    /// Bytes for `hello.txt`, a file for `clip.bin`, nothing for other names, 503 for `broken`, 404 for `gone`,
    /// and for `slow` a wait that only ends when the request is cancelled.
    final class Provider: MediaResourceProvider {
        let file: String
        let cancelled = Mutex(0)

        init(file: String) { self.file = file }

        func resource(named name: String) async throws(MediaServerError) -> ProvidedResource? {
            switch name {
            case "hello.txt": return .bytes(Array("hello, provider\n".utf8), contentType: "text/plain")
            case "clip.bin": return .file(atPath: file, contentType: "video/mp2t")
            case "broken": throw MediaServerError(code: .resourceUnavailable, message: "conversion failed")
            case "gone": throw MediaServerError(code: .fileNotFound, message: "no such segment")
            case "slow":
                do {
                    try await Task.sleep(for: .seconds(600))
                } catch {
                    cancelled.withLock { $0 += 1 }
                    ChangeSignal.shared.bump()
                }
                return nil
            default: return nil
            }
        }
    }

    @Test("Names under the token: bytes with ranges and validators, a file, 404 for unknown names, 503 for an unavailable one")
    func answers() async throws {
        let directory = try TemporaryDirectory()
        let content = (0..<5000).map { UInt8($0 % 251) }
        let file = try directory.write("clip.bin", content)
        try await withServer { server in
            let provider = Provider(file: file)
            let registration = try server.register(provider: provider, name: "hello.txt", contentType: "text/plain")
            #expect(registration.url.hasSuffix("/hello.txt"))
            let hello = try await Curl.run([registration.url])
            #expect(hello.status == 200 && hello.body == Array("hello, provider\n".utf8))
            #expect(hello.header("ETag")?.hasPrefix("\"p-") == true)
            #expect(hello.header("Access-Control-Allow-Origin") == "*")
            let range = try await Curl.run(["-H", "Range: bytes=7-14", registration.url])
            #expect(range.status == 206 && range.body == Array("provider".utf8))
            let clip = try await Curl.run(["-H", "Range: bytes=100-", registration.url(ofResourceNamed: "clip.bin")])
            #expect(clip.status == 206 && clip.body == Array(content[100...]) && clip.header("Content-Type") == "video/mp2t")
            #expect(try await Curl.run([registration.url(ofResourceNamed: "other.ts")]).status == 404)
            #expect(try await Curl.run([registration.url(ofResourceNamed: "gone")]).status == 404)
            let broken = try await Curl.run([registration.url(ofResourceNamed: "broken")])
            #expect(broken.status == 503 && broken.header("Retry-After") == "1")
            // Another token, or a traversal, never reaches the provider.
            let other = registration.url.replacingOccurrences(of: registration.token, with: String(repeating: "0", count: 32))
            #expect(try await Curl.run([other]).status == 404)
            #expect(server.unregister(registration))
            #expect(try await Curl.run([registration.url]).status == 404)
        }
    }

    @Test("A client that disconnects while the provider waits cancels the wait")
    func disconnectCancels() async throws {
        try await withServer { server in
            let provider = Provider(file: "/nonexistent")
            let registration = try server.register(provider: provider, name: "slow", contentType: "video/mp2t")
            let path = "/\(registration.token)/slow"
            try await onBlockingThread {
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            }  // closed here
            let cancelled = await ChangeSignal.shared.wait(
                for: { provider.cancelled.withLock { $0 } == 1 }, until: .now + .seconds(60))
            #expect(cancelled)
        }
    }
}
