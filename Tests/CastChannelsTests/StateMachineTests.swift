import Testing

@testable import CastChannels

@Suite("Heartbeat and request tracking state machines")
struct StateMachineTests {
    @Test func heartbeatPingsThenDeclaresDeath() {
        var machine = HeartbeatStateMachine(interval: .seconds(5), liveness: .seconds(10), now: .zero)
        #expect(machine.delayUntilNextTick(at: .zero) == .seconds(5))
        #expect(machine.tick(at: .seconds(5)) == .sendPing)
        #expect(machine.delayUntilNextTick(at: .seconds(5)) == .seconds(5))
        #expect(machine.tick(at: .seconds(10)) == .declareDead(silence: .seconds(10)))
        machine.received(at: .seconds(7))
        #expect(machine.tick(at: .seconds(10)) == .sendPing)
        #expect(machine.delayUntilNextTick(at: .seconds(15)) == .seconds(2))
        #expect(machine.tick(at: .seconds(17)) == .declareDead(silence: .seconds(10)))
    }

    @Test func requestIdsArePositiveUniqueAndWrap() {
        var tracker = RequestTracker<Int>(firstId: Int(Int32.max) - 1)
        let accept: @Sendable (CastChannelMessage) -> Bool = { _ in true }
        let first = tracker.allocate()
        tracker.register(first, entry: .init(namespace: "n", destinationId: "d", accept: accept, waiter: 1))
        let second = tracker.allocate()
        tracker.register(second, entry: .init(namespace: "n", destinationId: "d", accept: accept, waiter: 2))
        let third = tracker.allocate()
        #expect(first == Int(Int32.max) - 1 && second == Int(Int32.max) && third == 1)
        // An id still in flight is never handed out again.
        var small = RequestTracker<Int>(firstId: 1)
        small.register(2, entry: .init(namespace: "n", destinationId: "d", accept: accept, waiter: 0))
        #expect(small.allocate() == 1)
        #expect(small.allocate() == 3)
    }

    @Test func matchingNeedsNamespaceIdAndAcceptance() throws {
        var tracker = RequestTracker<String>(firstId: 5)
        let id = tracker.allocate()
        tracker.register(id, entry: .init(namespace: "urn:x-cast:a", destinationId: "t", accept: { $0.type != "INTERIM" }, waiter: "w"))
        func message(_ namespace: String, _ json: String) -> CastChannelMessage {
            CastChannelMessage(.init(sourceId: "t", destinationId: "*", namespace: namespace, payload: .string(json)))
        }
        #expect(tracker.match(message("urn:x-cast:b", #"{"type":"X","requestId":5}"#)) == nil)
        #expect(tracker.match(message("urn:x-cast:a", #"{"type":"X","requestId":0}"#)) == nil)
        #expect(tracker.match(message("urn:x-cast:a", #"{"type":"INTERIM","requestId":5}"#)) == nil)
        #expect(tracker.match(message("urn:x-cast:a", #"{"type":"X","requestId":5}"#))?.entry.waiter == "w")
        #expect(tracker.count == 0)
    }
}
