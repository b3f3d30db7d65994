import CastDiscoveryCore
import CastTestSupport
import Foundation
import Synchronization
import Testing
@testable import Castor

/// A network monitor the test drives: it reports what the test tells it to, to every stream open.
final class ScriptedNetworkMonitor: CastNetworkMonitor {
    private let continuations = Mutex<[Int: AsyncStream<CastNetworkChange>.Continuation]>([:])
    private let next = Mutex(0)

    func changes() -> AsyncStream<CastNetworkChange> {
        let (stream, continuation) = AsyncStream<CastNetworkChange>.makeStream()
        let key = next.withLock { next in
            defer { next += 1 }
            return next
        }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { _ = $0.removeValue(forKey: key) }
            ChangeSignal.shared.bump()
        }
        continuations.withLock { $0[key] = continuation }
        ChangeSignal.shared.bump()
        return stream
    }

    /// How many streams are open (a session watches only while it reconnects).
    var watchers: Int { continuations.withLock { $0.count } }

    func report(_ change: CastNetworkChange) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(change) }
    }
}

/// Rejoining when the network comes back (issue 45): the fault lab's link down/up case rejoined about
/// 7 s after the link returned, the rest of the back-off wait, which nothing cut short. The network
/// coming back now ends the wait. The manual clock never moves here: without the cut the session would
/// stay in its 60 s wait and the test would fail.
@Suite struct NetworkReturnTests {
    @Test func theNetworkComingBackEndsTheBackOffAndTheSessionIsRejoined() async throws {
        let rig = try ReachableDevice()
        let (clock, device, endpoint, receiver, connector) = (rig.clock, rig.device, rig.endpoint, rig.receiver, rig.connector)
        let monitor = ScriptedNetworkMonitor()
        let policy = CastReconnectPolicy(maxAttempts: 5, initialDelay: .seconds(60), maxDelay: .seconds(60), jitter: 0)
        let cast = rig.cast(policy, networkMonitor: monitor)
        let log = EventLog(cast)
        try await cast.startSession(with: device)
        let player = try #require(cast.player)
        try await player.loadItems(from: [Assets.movie(1)], with: CastLoadOptions(time: .seconds(30)))
        #expect(monitor.watchers == 0, "nothing is watched while the session is connected")

        // The link goes down: the connection drops, the device (and its app) stays up but unreachable.
        connector.register(nil, at: endpoint)
        await connector.dropConnections()
        try await waitUntil("the session waits 60 s before its first attempt") { log.reconnectDelays == [.seconds(60)] }
        try await waitUntil("the session watches the network") { monitor.watchers == 1 }

        // The link comes back.
        connector.register(receiver, at: endpoint)
        monitor.report(.linkUp(interface: "veth0"))
        try await waitUntil("the session rejoined without the clock moving") { log.rejoinCount == 1 || log.endReason != nil }
        #expect(log.endReason == nil)
        #expect(log.reconnectDelays == [.seconds(60)], "one wait, cut short")
        #expect(connector.attempts.count == 2, "\(connector.attempts)")
        #expect(clock.now == ManualClock.Instant(offset: .zero))
        try await waitUntil("the watch ends with the reconnect") { monitor.watchers == 0 }
        #expect(player.mediaStatus?.media?.metadata?.title == "Movie 1")
        await cast.endSession()
        await receiver.stop()
    }

    /// A network comes up in stages (a carrier, then an address, a route, the device's address resolved):
    /// the attempt the network's return starts may still fail. The next few follow within a second
    /// instead of after the policy's back-off (60 s here).
    @Test func anAttemptThatFailsJustAfterTheNetworkCameBackIsRetriedWithinASecond() async throws {
        let rig = try ReachableDevice()
        let (clock, device, endpoint, receiver, connector) = (rig.clock, rig.device, rig.endpoint, rig.receiver, rig.connector)
        let monitor = ScriptedNetworkMonitor()
        let policy = CastReconnectPolicy(maxAttempts: 10, initialDelay: .seconds(60), maxDelay: .seconds(60), jitter: 0)
        let cast = rig.cast(policy, networkMonitor: monitor)
        let log = EventLog(cast)
        try await cast.startSession(with: device)
        connector.register(nil, at: endpoint)
        await connector.dropConnections()
        try await waitUntil("the session waits 60 s") { log.reconnectDelays == [.seconds(60)] && monitor.watchers == 1 }
        monitor.report(.linkUp(interface: "wlan0"))  // the link is up, the device not reachable yet
        try await waitUntil("the next wait is a second") { log.reconnectDelays.count == 2 }
        #expect(log.reconnectDelays == [.seconds(60), .seconds(1)])
        connector.register(receiver, at: endpoint)
        await clock.advance(by: .seconds(1))
        try await waitUntil("rejoined") { log.rejoinCount == 1 || log.endReason != nil }
        #expect(log.rejoinCount == 1)
        #expect(connector.attempts.count == 3, "\(connector.attempts)")
        await cast.endSession()
        await receiver.stop()
    }

    /// The kernel's messages, as the routing socket delivers them: the links a dump lists are the
    /// starting state; a link that goes from not running to running, and an added address, are changes;
    /// loopback and cut-short messages are ignored.
    @Test func netlinkMessagesAreReadIntoChanges() {
        func message(type: UInt16, _ body: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = []
            func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value) { bytes += $0 } }
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            append(UInt32(16 + padded.count))
            append(type)
            append(UInt16(0))
            append(UInt32(1))
            append(UInt32(0))
            return bytes + padded
        }
        func attribute(type: UInt16, _ value: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = []
            withUnsafeBytes(of: UInt16(4 + value.count)) { bytes += $0 }
            withUnsafeBytes(of: type) { bytes += $0 }
            return bytes + value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        func link(index: Int32, flags: UInt32, name: String) -> [UInt8] {
            var body: [UInt8] = [0, 0, 1, 0]
            withUnsafeBytes(of: index) { body += $0 }
            withUnsafeBytes(of: flags) { body += $0 }
            body += [0, 0, 0, 0]
            return message(type: 16, body + attribute(type: 3, Array(name.utf8) + [0]))
        }
        func address(index: Int32, _ octets: [UInt8]) -> [UInt8] {
            var body: [UInt8] = [UInt8(AF_INET), 24, 0, 0]
            withUnsafeBytes(of: UInt32(bitPattern: index)) { body += $0 }
            return message(type: 20, body + attribute(type: 2, octets))
        }
        func changes(_ bytes: [UInt8], _ states: inout NetlinkRoute.LinkStates) -> [CastNetworkChange] {
            bytes.withUnsafeBytes { NetlinkRoute.changes(in: $0, states: &states) }
        }
        let up: UInt32 = 0x1, running: UInt32 = 0x40, loopback: UInt32 = 0x8
        var states = NetlinkRoute.LinkStates()
        let dump = link(index: 1, flags: up | running | loopback, name: "lo") + link(index: 2, flags: up | running, name: "eth0")
            + link(index: 3, flags: up, name: "veth0") + message(type: 3, [0, 0, 0, 0])
        #expect(changes(dump, &states).isEmpty, "the dump is the starting state")
        #expect(changes(link(index: 3, flags: up, name: "veth0"), &states).isEmpty, "still no carrier")
        #expect(changes(link(index: 3, flags: up | running, name: "veth0"), &states) == [.linkUp(interface: "veth0")])
        #expect(changes(link(index: 3, flags: up | running, name: "veth0"), &states).isEmpty, "already running")
        #expect(changes(link(index: 2, flags: up, name: "eth0") + link(index: 2, flags: up | running, name: "eth0"), &states)
            == [.linkUp(interface: "eth0")])
        #expect(changes(address(index: 2, [192, 168, 1, 20]), &states) == [.addressAdded(interface: "eth0", address: "192.168.1.20")])
        #expect(changes(address(index: 1, [127, 0, 0, 1]), &states).isEmpty, "loopback")
        #expect(changes(link(index: 1, flags: up | running | loopback, name: "lo"), &states).isEmpty)
        let whole = link(index: 4, flags: up | running, name: "wlan0")
        for cut in [3, 15, 17, whole.count - 1] {
            var copy = states
            #expect(changes(Array(whole.prefix(cut)), &copy).isEmpty, "cut at \(cut)")
        }
        #expect(changes(whole, &states) == [.linkUp(interface: "wlan0")], "a new link, running")
    }
}
