import CastJSON
import CastTestSupport
import CastCore
import Synchronization
import Testing

@testable import CastEmulator

/// A sender that answers the receiver from inside its own message handler, on the receiver's thread (an
/// in-memory transport hands a message over on the sending thread): the answer must wait until the
/// receiver has carried out the actions it was in the middle of.
@Suite("EmulatedReceiver re-entrancy")
struct ReceiverReentrancyTests {
    static func message(_ json: JSONValue, from sender: String, namespace: String) -> CastMessage {
        CastMessage(sourceId: sender, destinationId: "receiver-0", namespace: namespace, json: json)
    }

    @Test func anAnswerSentFromInsideABroadcastIsServedAfterTheBroadcastReachedEveryone() async throws {
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: "Test TV", clock: ManualClock(), replyLatency: .zero))
        let (a, aReceiverEnd) = InMemoryCastTransport.pair()
        let (b, bReceiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(aReceiverEnd)
        await receiver.accept(bReceiverEnd)
        // Each sender logs the RECEIVER_STATUS messages it gets, by requestId. A answers the volume
        // broadcast (requestId 7) at once, from inside its handler: a GET_STATUS with requestId 8.
        let log = Mutex<[String]>([])
        let answered = Atomic(false)
        for (name, end) in [("A", a), ("B", b)] {
            end.deliverInbound { event in
                guard case .message(let message) = event, message.json?["type"] == "RECEIVER_STATUS",
                    let requestId = message.json?["requestId"]?.intValue
                else { return }
                log.withLock { $0.append("\(name) \(requestId)") }
                ChangeSignal.shared.bump()
                if name == "A", requestId == 7, !answered.exchange(true, ordering: .relaxed) {
                    try? a.send(Self.message(["type": "GET_STATUS", "requestId": 8], from: "sender-a", namespace: "urn:x-cast:com.google.cast.receiver"))
                }
            }
        }
        for (name, end) in [("a", a), ("b", b)] {
            try end.send(Self.message(["type": "CONNECT"], from: "sender-\(name)", namespace: "urn:x-cast:com.google.cast.tp.connection"))
            try end.send(Self.message(["type": "GET_STATUS", "requestId": 1], from: "sender-\(name)", namespace: "urn:x-cast:com.google.cast.receiver"))
        }
        let deadline = ContinuousClock.now + .seconds(30)
        #expect(await ChangeSignal.shared.wait(for: { log.withLock { $0.contains("A 1") && $0.contains("B 1") } }, until: deadline))

        try a.send(Self.message(["type": "SET_VOLUME", "volume": ["level": 0.4], "requestId": 7], from: "sender-a", namespace: "urn:x-cast:com.google.cast.receiver"))
        #expect(await ChangeSignal.shared.wait(for: { log.withLock { $0.contains("A 8") } }, until: deadline))
        // The broadcast goes to A, then B, in one go; A's answer is served after it, not between.
        let order = log.withLock { $0 }.filter { $0 != "A 1" && $0 != "B 1" }
        #expect(order == ["A 7", "B 7", "A 8"])
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }
}
