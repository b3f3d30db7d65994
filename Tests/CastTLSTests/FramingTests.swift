import CastJSON
import Foundation
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import CastTLS

@Suite("Framing")
struct FramingTests {
    static let messages: [CastMessage] = [
        CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.google.cast.tp.heartbeat", json: ["type": "PING"]),
        CastMessage(sourceId: "receiver-0", destinationId: "*", namespace: "urn:x-cast:com.google.cast.receiver",
                    json: ["type": "RECEIVER_STATUS", "requestId": 3, "status": ["volume": ["level": 0.5, "muted": false]]]),
        CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.google.cast.tp.deviceauth",
                    payload: .binary(Data([0x0a, 0x04, 0x12, 0x02, 0xde, 0xad]))),
        CastMessage(sourceId: "a", destinationId: "b", namespace: "urn:x-cast:com.example.ünïcødé", payload: .string("héllo ✓")),
    ]

    static func frames(_ messages: [CastMessage]) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        for message in messages { try CastFrameEncoder().encodeFrame(message, into: &buffer) }
        return buffer
    }

    static func decodeAll(_ chunks: [ByteBuffer]) throws -> [CastMessage] {
        var decoder = CastFrameDecoder()
        var accumulated = ByteBuffer()
        var out: [CastMessage] = []
        for var chunk in chunks {
            accumulated.writeBuffer(&chunk)
            while let message = try decoder.decodeFrame(from: &accumulated) { out.append(message) }
        }
        return out
    }

    @Test func roundTripsEveryMessage() throws {
        for message in Self.messages {
            #expect(try Self.decodeAll([Self.frames([message])]) == [message])
        }
    }

    @Test func severalFramesInOneRead() throws {
        #expect(try Self.decodeAll([Self.frames(Self.messages)]) == Self.messages)
    }

    @Test func framesSplitAtEveryByteBoundary() throws {
        let all = try Self.frames(Self.messages)
        for cut in 0...all.readableBytes {
            let first = all.getSlice(at: 0, length: cut)!
            let second = all.getSlice(at: cut, length: all.readableBytes - cut)!
            #expect(try Self.decodeAll([first, second]) == Self.messages, "cut at \(cut)")
        }
    }

    @Test func byteByByteDelivery() throws {
        let all = try Self.frames(Self.messages)
        let chunks = (0..<all.readableBytes).map { all.getSlice(at: $0, length: 1)! }
        #expect(try Self.decodeAll(chunks) == Self.messages)
    }

    @Test func oversizeLengthIsRejectedBeforeTheBodyArrives() {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(CastFrame.maxBodySize + 1))
        var decoder = CastFrameDecoder()
        #expect { try decoder.decodeFrame(from: &buffer) } throws: { ($0 as? CastTransportError)?.code == .frameTooLarge }
        // The error is final: more bytes do not revive the decoder.
        buffer.writeBytes([UInt8](repeating: 0, count: 16))
        #expect { try decoder.decodeFrame(from: &buffer) } throws: { ($0 as? CastTransportError)?.code == .frameTooLarge }
    }

    @Test func maximumLengthIsAccepted() throws {
        let overhead = CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:n", payload: .string("")).encodedSize
        // An empty payload costs a tag and a 1-byte length; n ≥ 16384 bytes need a 3-byte length.
        let text = String(repeating: "x", count: CastFrame.maxBodySize - overhead - 2)
        let message = CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:n", payload: .string(text))
        #expect(message.encodedSize == CastFrame.maxBodySize)
        #expect(try Self.decodeAll([Self.frames([message])]) == [message])
        let tooBig = CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:n", payload: .string(text + "x"))
        var out = ByteBuffer()
        #expect { try CastFrameEncoder().encodeFrame(tooBig, into: &out) } throws: { ($0 as? CastTransportError)?.code == .messageTooLarge }
        #expect(out.readableBytes == 0)
    }

    @Test func zeroLengthIsRejected() {
        var buffer = ByteBuffer(bytes: [0, 0, 0, 0])
        var decoder = CastFrameDecoder()
        #expect { try decoder.decodeFrame(from: &buffer) } throws: { ($0 as? CastTransportError)?.code == .emptyFrame }
    }

    @Test(arguments: [
        [UInt8](repeating: 0xff, count: 10),
        Array("GET / HTTP/1.1\r\n".utf8),
        [0x08, 0x00],  // protocol version only: required fields missing
    ])
    func garbageBodiesAreMalformed(body: [UInt8]) {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(body.count))
        buffer.writeBytes(body)
        var decoder = CastFrameDecoder()
        #expect { try decoder.decodeFrame(from: &buffer) } throws: { ($0 as? CastTransportError)?.code == .malformedMessage }
    }

    @Test func emptyEnvelopeFieldsAreMalformed() throws {
        let message = CastMessage(sourceId: "", destinationId: "receiver-0", namespace: "urn:x-cast:x", payload: .string("{}"))
        var decoder = CastFrameDecoder()
        var buffer = try Self.frames([message])
        #expect { try decoder.decodeFrame(from: &buffer) } throws: { ($0 as? CastTransportError)?.code == .malformedMessage }
    }

    @Test func payloadTypeMustMatchPayloadField() throws {
        var proto = CastMessage(sourceId: "a", destinationId: "b", namespace: "urn:x-cast:x", payload: .string("{}")).protobuf
        proto.payloadType = .binary  // says binary but carries utf8
        let body: [UInt8] = try proto.serializedBytes()
        #expect { try CastMessage(body: body) } throws: { ($0 as? CastTransportError)?.code == .malformedMessage }
    }

    @Test func decoderInAChannelPipelineFiresMessages() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        try channel.writeInbound(Self.frames(Self.messages))
        var received: [CastMessage] = []
        while let message = try channel.readInbound(as: CastMessage.self) { received.append(message) }
        #expect(received == Self.messages)
        _ = try channel.finish()
    }

    @Test func jsonAccessorParsesTextPayloads() {
        #expect(Self.messages[1].json?["requestId"]?.intValue == 3)
        #expect(Self.messages[2].json == nil)
        #expect(Self.messages[0].reply(.string("{}")).destinationId == "sender-0")
    }
}

@Suite("InMemoryCastTransport")
struct InMemoryTransportTests {
    @Test func deliversBothWaysAndClosesBothEnds() async throws {
        let (a, b) = InMemoryCastTransport.pair()
        let message = FramingTests.messages[0]
        try a.send(message)
        try b.send(message.reply(.string("{\"type\":\"PONG\"}")))
        var bIterator = b.inbound.makeAsyncIterator()
        #expect(try await bIterator.next() == message)
        var aIterator = a.inbound.makeAsyncIterator()
        #expect(try await aIterator.next()?.json?["type"] == "PONG")
        await a.close()
        #expect(try await aIterator.next() == nil)
        await #expect(throws: CastTransportError.self) { try await bIterator.next() }
        #expect(throws: CastTransportError.self) { try b.send(message) }
    }

    /// What one end sent before the other installed its handler comes first, in order, then what
    /// is sent later, then the end; the stream yields nothing of it.
    @Test func aHandlerTakesWhatWasQueuedThenWhatFollowsThenTheEnd() async throws {
        let (a, b) = InMemoryCastTransport.pair()
        try a.send(FramingTests.messages[0])
        try a.send(FramingTests.messages[1])
        let seen = Mutex<[CastInboundEvent]>([])
        let (ended, endedContinuation) = AsyncStream.makeStream(of: Void.self)
        b.deliverInbound { event in
            seen.withLock { $0.append(event) }
            if case .ended = event { endedContinuation.finish() }
        }
        try a.send(FramingTests.messages[2])
        await a.close()
        for await _ in ended {}
        let events = seen.withLock { $0 }
        #expect(events.count == 4)
        for (index, event) in events.prefix(3).enumerated() {
            guard case .message(let message) = event else { Issue.record("event \(index) is \(event)"); continue }
            #expect(message == FramingTests.messages[index])
        }
        guard case .ended(let error)? = events.last else { Issue.record("no end"); return }
        #expect(error?.code == .peerClosed)
    }

    /// A handler that answers from inside itself (a PONG to a PING, through the other end's handler
    /// and back) is not run inside itself: the answer's answer waits until it returns, so each end
    /// sees its messages one at a time and in order, as on a socket.
    @Test func aHandlerThatSendsIsNotReentered() async throws {
        let (a, b) = InMemoryCastTransport.pair()
        // Per end: how many of its handler's calls are running now, the most ever, and the order seen.
        let depth = Mutex((now: ["a": 0, "b": 0], deepest: 0, seen: [String]()))
        let (done, doneContinuation) = AsyncStream.makeStream(of: Void.self)
        @Sendable func handler(_ me: InMemoryCastTransport, _ name: String) -> @Sendable (CastInboundEvent) -> Void {
            { event in
                guard case .message(let message) = event, case .string(let text) = message.payload else { return }
                depth.withLock {
                    $0.now[name, default: 0] += 1
                    $0.deepest = max($0.deepest, $0.now[name, default: 0])
                    $0.seen.append("\(name) \(text)")
                }
                let count = Int(text) ?? 0
                if count < 6 { try? me.send(message.reply(.string("\(count + 1)"))) } else { doneContinuation.finish() }
                depth.withLock { $0.now[name, default: 0] -= 1 }
            }
        }
        a.deliverInbound(to: handler(a, "a"))
        b.deliverInbound(to: handler(b, "b"))
        try a.send(FramingTests.messages[0].reply(.string("1")))
        for await _ in done {}
        let result = depth.withLock { $0 }
        #expect(result.deepest == 1)
        #expect(result.seen == ["b 1", "a 2", "b 3", "a 4", "b 5", "a 6"])
    }

    @Test func oversizeSendFailsWithoutDelivering() async throws {
        let (a, _) = InMemoryCastTransport.pair()
        let big = CastMessage(sourceId: "s", destinationId: "d", namespace: "urn:x-cast:n",
                              payload: .string(String(repeating: "x", count: CastFrame.maxBodySize)))
        #expect { try a.send(big) } throws: { ($0 as? CastTransportError)?.code == .messageTooLarge }
    }
}
