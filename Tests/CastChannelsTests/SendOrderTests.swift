import CastJSON
import CastTestSupport
import CastCore
import Dispatch
import Synchronization
import Testing

@testable import CastChannels

/// A test transport wrapping one end of an in-memory pair: everything but `send` goes to it.
protocol ForwardingTransport: CastTransport {
    var inner: InMemoryCastTransport { get }
}

extension ForwardingTransport {
    var inbound: AsyncThrowingStream<CastMessage, any Error> { inner.inbound }
    func deliverInbound(to handler: @escaping @Sendable (CastInboundEvent) -> Void) { inner.deliverInbound(to: handler) }
    var closeReason: CastTransportError? { inner.closeReason }
    var peerDescription: String { inner.peerDescription }
    func close() async { await inner.close() }
}

/// A transport whose `send` of one chosen message does not return until the test releases it,
/// and which records each message when its `send` returns, that is, when the transport has taken it.
final class GatedTransport: ForwardingTransport {
    let inner: InMemoryCastTransport
    let taken = Mutex<[String]>([])
    private let hold: @Sendable (CastMessage) -> Bool
    private let held = Mutex(false)
    private let entered = AsyncStream<Void>.makeStream()
    private let release = DispatchSemaphore(value: 0)

    init(_ inner: InMemoryCastTransport, holding hold: @escaping @Sendable (CastMessage) -> Bool) {
        self.inner = inner
        self.hold = hold
    }

    /// Returns once a send of the held message has started.
    func waitUntilHolding() async {
        for await _ in entered.stream { return }
    }

    /// Lets the held send go on.
    func letGo() { release.signal() }


    func send(_ message: CastMessage) throws(CastTransportError) {
        if hold(message), held.withLock({ held in
            defer { held = true }
            return !held
        }) {
            entered.continuation.yield()
            _ = release.wait(timeout: .now() + 30)
        }
        try inner.send(message)
        taken.withLock { $0.append("\(message.json?["type"]?.stringValue ?? "?") \(message.destinationId)") }
    }
}

/// The connection hands messages to its transport in the order it decided them, whichever
/// threads decided them.
@Suite("CastConnection send order")
struct ConnectionSendOrderTests {
    @Test("a message decided while another thread hands over an earlier one waits behind it")
    func aLaterMessageWaitsBehindAnEarlierOne() async throws {
        let device = FakeDevice()
        let transport = GatedTransport(device.senderEnd) { $0.destinationId == "app-x" && $0.json?["type"]?.stringValue == "CONNECT" }
        let connection = CastConnection(transport: transport, configuration: CastConnectionConfiguration(deviceAuthPolicy: .off))
        try await connection.start()
        // One task opens the virtual connection to app-x: its CONNECT is held inside the transport.
        let opening = Task.detached { try connection.ensureVirtualConnection(to: "app-x") }
        await transport.waitUntilHolding()
        // Another finds the virtual connection open and sends on it at once: it must not overtake the CONNECT.
        try connection.ensureVirtualConnection(to: "app-x")
        try connection.send(CastMessage(sourceId: "sender-0", destinationId: "app-x", namespace: FakeDevice.chatNamespace,
                                        json: ["type": "HELLO"]))
        transport.letGo()
        try await opening.value
        await connection.outboxSent()
        let toApp = transport.taken.withLock { $0 }.filter { $0.hasSuffix(" app-x") }
        #expect(toApp == ["CONNECT app-x", "HELLO app-x"])
        await connection.close()
        #expect(transport.taken.withLock { $0 }.suffix(2) == ["CLOSE app-x", "CLOSE receiver-0"], "close sends CLOSE before the transport closes")
    }
}

/// A transport that refuses one kind of message (as a transport with a smaller frame limit would) and
/// passes everything else on.
final class RefusingTransport: ForwardingTransport {
    let inner: InMemoryCastTransport
    let refused: String

    init(_ inner: InMemoryCastTransport, refusing type: String) {
        self.inner = inner
        refused = type
    }


    func send(_ message: CastMessage) throws(CastTransportError) {
        if message.json?["type"]?.stringValue == refused { throw CastTransportError(code: .io, message: "refused \(refused)") }
        try inner.send(message)
    }
}

@Suite("CastConnection send failures")
struct ConnectionSendFailureTests {
    @Test("a transport's one-off refusal fails that message only; the connection goes on")
    func aRefusalFailsOnlyItsMessage() async throws {
        let device = FakeDevice()
        let connection = CastConnection(
            transport: RefusingTransport(device.senderEnd, refusing: "BIG"), configuration: CastConnectionConfiguration(deviceAuthPolicy: .off))
        try await connection.start()
        let big = CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: FakeDevice.chatNamespace, json: ["type": "BIG"])
        let error = #expect(throws: CastChannelError.self) { try connection.send(big) }
        #expect(error?.code == .connectionLost)
        let small = CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: FakeDevice.chatNamespace, json: ["type": "SMALL"])
        #expect(throws: Never.self) { try connection.send(small) }
        #expect(try await connection.receiver.getStatus().applications.isEmpty, "requests still work")
        await connection.close()
    }
}
