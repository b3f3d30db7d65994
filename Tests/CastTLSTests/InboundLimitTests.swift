import CastJSON
import NIOEmbedded
import Synchronization
import Testing

@testable import CastTLS

/// The bounded inbound queue of socket transports: reading stops while decoded messages wait for
/// the consumer beyond the limit, and the consumer's pulls reopen it.
@Suite("Inbound queue limit")
struct InboundLimitTests {
    static func message(_ index: Int, size: Int = 1000) -> CastMessage {
        CastMessage(sourceId: "a", destinationId: "b", namespace: "urn:x-cast:com.example.test",
                    payload: .string(String(repeating: "x", count: size) + "#\(index)"))
    }

    /// A server whose inbound queue holds 16 KiB, a client connected to it, the accepted end, and
    /// `count` messages of about 1 KB sent by the client before anyone reads them.
    static func burstOverTLS(count: Int) async throws -> (CastTransportServer, TLSCastTransport, any CastTransport) {
        let server = try await CastTransportServer.start(
            credentials: try TLSTestFixtures.credentials.get(), limits: .init(maximumQueuedInboundBytes: 16 << 10))
        let client = try await TLSCastTransport.connect(host: "127.0.0.1", port: server.port)
        var connections = server.connections.makeAsyncIterator()
        let accepted = try #require(await connections.next())
        for index in 0..<count { try client.send(Self.message(index)) }
        return (server, client, accepted)
    }

    /// Pushes messages into `core` until it is full; returns how many.
    static func fill(_ core: ChannelTransportCore) -> Int {
        var pushed = 0
        while !core.isInboundFull {
            core.yield(Self.message(pushed))
            pushed += 1
        }
        return pushed
    }

    @Test("full at the limit, reopened (once) at half of it, order kept, queued messages delivered before the end")
    func fullAndDrained() async throws {
        let core = ChannelTransportCore(inboundLimit: 10_000)
        let drained = Mutex(0)
        core.onInboundDrained { drained.withLock { $0 += 1 } }
        let pushed = Self.fill(core)
        let size = Self.message(0).encodedSize
        #expect(pushed == (10_000 + size - 1) / size, "full at the first message that reaches the limit")
        var iterator = core.inbound.makeAsyncIterator()
        var received: [CastMessage] = []
        while core.isInboundFull, let next = try await iterator.next() { received.append(next) }
        #expect((pushed - received.count) * size <= 5_000, "reopened at half the limit…")
        #expect((pushed - received.count + 1) * size > 5_000, "…and not before")
        #expect(drained.withLock { $0 } == 1)
        core.markClosedLocally()
        core.finish()
        while let next = try await iterator.next() { received.append(next) }
        #expect(received == (0..<pushed).map { Self.message($0) })
        #expect(drained.withLock { $0 } == 1)
    }

    /// The gate registers a drained handler on the core that holds the gate, and the gate holds the
    /// core: unless the handler goes with the pipeline, every connection's gate, core and inbound
    /// queue stay allocated for good (the fault lab's 100 kill/restart cycles under one sender grew
    /// by about 8 KiB a connection; heaptrack showed one gate, core and queue left per connect).
    @Test("a pipeline torn down releases its read gate and the core")
    func teardownReleasesTheGateAndTheCore() throws {
        weak var weakCore: ChannelTransportCore?
        weak var weakGate: ReadGateHandler?
        do {
            let core = ChannelTransportCore(inboundLimit: 10_000)
            let gate = ReadGateHandler(core: core, unsentLimit: nil)
            weakCore = core
            weakGate = gate
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(gate)
            _ = try channel.finish(acceptAlreadyClosed: true)
        }
        #expect(weakGate == nil, "the read gate outlived its pipeline")
        #expect(weakCore == nil, "the core outlived its pipeline")
    }

    @Test("messages reach a consumer already waiting or not; an error end is thrown after the last one")
    func waitingConsumerAndErrorEnd() async throws {
        let core = ChannelTransportCore(inboundLimit: 10_000)
        let consumer = Task {
            var received: [CastMessage] = []
            do {
                for try await message in core.inbound { received.append(message) }
                return (received, nil as CastTransportError?)
            } catch {
                return (received, error as? CastTransportError)
            }
        }
        core.yield(Self.message(1))
        core.yield(Self.message(2))
        core.record(CastTransportError(code: .io, message: "reset"))
        core.finish()
        let (received, error) = await consumer.value
        #expect(received == [Self.message(1), Self.message(2)])
        #expect(error?.code == .io)
    }

    @Test("over TLS: a consumer that starts late still receives everything, in order (reading paused and resumed)")
    func lateConsumerOverTLS() async throws {
        let count = 3000
        let (server, client, accepted) = try await Self.burstOverTLS(count: count)
        var received = 0
        for try await message in accepted.inbound {
            #expect(message == Self.message(received))
            received += 1
            if received == count { break }
        }
        #expect(received == count)
        await client.close()
        await accepted.close()
        await server.close()
    }

    @Test("a handler installed on a full queue takes what it holds, in order; the read gate reopens (once); the end follows")
    func handlerTakesAFullQueue() async throws {
        let core = ChannelTransportCore(inboundLimit: 10_000)
        let drained = Mutex(0)
        core.onInboundDrained { drained.withLock { $0 += 1 } }
        let pushed = Self.fill(core)
        let seen = Mutex<[CastInboundEvent]>([])
        core.deliver { event in seen.withLock { $0.append(event) } }
        #expect(!core.isInboundFull)
        #expect(drained.withLock { $0 } == 1)
        core.yield(Self.message(pushed))
        core.record(CastTransportError(code: .io, message: "reset"))
        core.finish()
        let events = seen.withLock { $0 }
        #expect(events.count == pushed + 2)
        for (index, event) in events.dropLast().enumerated() {
            guard case .message(let message) = event else { Issue.record("event \(index): \(event)"); continue }
            #expect(message == Self.message(index))
        }
        guard case .ended(let error)? = events.last else { Issue.record("no end"); return }
        #expect(error?.code == .io)
    }

    @Test("over TLS: a handler installed after the sender's burst gets every message, in order, then the clean end")
    func handlerOverTLS() async throws {
        let count = 3000
        let (server, client, accepted) = try await Self.burstOverTLS(count: count)
        let (events, continuation) = AsyncStream.makeStream(of: CastInboundEvent.self)
        accepted.deliverInbound { event in continuation.yield(event) }
        var received = 0
        for await event in events {
            guard case .message(let message) = event else { Issue.record("early end: \(event)"); break }
            #expect(message == Self.message(received))
            received += 1
            if received == count { break }
        }
        #expect(received == count)
        await client.close()
        for await event in events {
            guard case .ended(let error) = event else { Issue.record("after the last message: \(event)"); continue }
            #expect(error == nil, "close_notify from the client is a clean end")
            break
        }
        await accepted.close()
        await server.close()
    }
}
