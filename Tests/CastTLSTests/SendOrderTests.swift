import CastJSON
import CastTestSupport
import Dispatch
import Synchronization
import Testing

@testable import CastTLS

/// Messages reach the device in the order `send` was called, whichever threads call it; the
/// device here is OpenSSL (`Tests/Peers/openssl_peer.py`), which reads the frames off the wire.
@Suite("Send order over TLS", .enabled(if: OpenSSLPeer.isAvailable, OpenSSLPeer.skipReason))
struct SendOrderTests {
    static let namespace = "urn:x-cast:com.example.order"

    static func message(_ type: String) -> CastMessage {
        CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: namespace, json: ["type": .string(type)])
    }

    /// Our TLS transport connected to an OpenSSL server, handshake done, no session tickets.
    static func connected() async throws -> (OpenSSLPeer, TLSCastTransport) {
        let peer = try await OpenSSLPeer.withTestCertificate(.server, version: "1.3", tickets: 0)
        async let connecting = TLSCastTransport.connect(host: "127.0.0.1", port: peer.port)
        try await peer.run("accept")
        _ = try await peer.run("handshake")
        return (peer, try await connecting)
    }

    @Test("a message sent on the event loop does not overtake one another thread sent before it")
    func aLoopSendQueuesBehindAnEarlierSend() async throws {
        let (peer, transport) = try await Self.connected()
        let (turns, turn) = AsyncStream<Void>.makeStream()
        let firstSent = DispatchSemaphore(value: 0)
        let waited = Mutex<DispatchTimeoutResult?>(nil)
        transport.deliverInbound { event in
            guard case .message = event else { return }
            // On the event loop: another thread sends, and has returned from send, before this
            // handler (still running on the loop) sends its own message.
            turn.yield()
            let result = firstSent.wait(timeout: .now() + 30)
            waited.withLock { $0 = result }
            try? transport.send(Self.message("SECOND"))
        }
        let other = Task.detached {
            for await _ in turns {
                try transport.send(Self.message("FIRST"))
                firstSent.signal()
                return
            }
        }
        try await peer.run(#"writecast receiver-0 sender-0 \#(Self.namespace) {"type":"GO"}"#)
        _ = try await peer.flush()
        #expect(try await peer.run("readcast") == ["CAST", Self.namespace, #"{"type":"FIRST"}"#])
        #expect(try await peer.run("readcast") == ["CAST", Self.namespace, #"{"type":"SECOND"}"#])
        try await other.value
        #expect(waited.withLock { $0 } == .success)
        await transport.close()
    }

    @Test("messages from several threads at once arrive whole and each thread's in its order")
    func concurrentSendersKeepTheirOrder() async throws {
        let (peer, transport) = try await Self.connected()
        // Replies to the device's PINGs come from the event loop meanwhile.
        transport.deliverInbound { event in
            guard case .message = event else { return }
            try? transport.send(Self.message("PONG"))
        }
        let threads = 4, each = 50
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask { for n in 0..<each { try transport.send(Self.message("T\(thread)-\(n)")) } }
            }
            group.addTask {
                for _ in 0..<20 { try await peer.run(#"writecast receiver-0 sender-0 \#(Self.namespace) {"type":"PING"}"#) }
                _ = try await peer.flush()
            }
            try await group.waitForAll()
        }
        var next = Array(repeating: 0, count: threads)
        var pongs = 0
        for _ in 0..<(threads * each + 20) {
            let answer = try await peer.run("readcast")
            try #require(answer.count == 3 && answer[0] == "CAST", "a whole frame: \(answer)")
            let type = answer[2].dropFirst(9).dropLast(2)  // {"type":"…"}
            if type == "PONG" { pongs += 1; continue }
            let parts = type.dropFirst().split(separator: "-").compactMap { Int($0) }
            try #require(parts.count == 2)
            #expect(parts[1] == next[parts[0]], "thread \(parts[0])'s messages in order")
            next[parts[0]] = parts[1] + 1
        }
        #expect(next == Array(repeating: each, count: threads) && pongs == 20)
        await transport.close()
    }
}
