import CastDiscoveryCore
import CastEmulator
import CastTestSupport
import CastTLS
import Foundation
import Testing
@testable import Castor

/// Over real TLS on loopback, against the emulated receiver's listener.
@Suite struct TLSTests {
    static func device(_ name: String, id: UUID, port: Int) -> CastDevice {
        CastDevice(id: CastDeviceID(id), friendlyName: name, endpoints: [KnownHost(host: "127.0.0.1", port: port).endpoint])
    }

    @Test func sessionOverTLS() async throws {
        let id = UUID()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "TLS TV", id: id))
        try await receiver.start()
        let port = try #require(await receiver.port)
        let device = Self.device("TLS TV", id: id, port: port)
        // A handshake bound no loaded machine runs out of (the default connector allows 5 s).
        let cast = Cast(configuration: CastConfiguration(), connector: TLSDeviceConnector(connectTimeout: .seconds(60)))
        let router = Router()
        cast.delegate = router
        var routed = router.events.makeAsyncIterator()
        try await cast.startSession(with: device)
        #expect(await routed.next() == .started)
        let player = try #require(cast.player)
        try await player.loadItems(from: [Assets.movie(1), Assets.movie(2)])
        try await waitUntil("two items") { player.items.count == 2 }
        await cast.endSession()
        guard case .ended(let state)? = await routed.next() else { Issue.record("no end"); return }
        #expect(state?.assets.count == 2)
        #expect(await receiver.violations.isEmpty)
        await receiver.stop()
    }

    /// The kernel's TCP sockets whose local port is `port` (from `/proc/net/tcp` and `tcp6`), as
    /// "state local remote uid inode" lines: what held the port when a bind failed (this test's bind
    /// has failed in the full suite, under load, with the holder unexplained).
    static func socketsOnPort(_ port: Int) -> [String] {
        let states = ["01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
                      "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"]
        let hexPort = String(format: ":%04X", port)
        var found: [String] = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: `String(contentsOfFile:)` stops after the first page of a /proc file
            // (27 of 408 lines with 400 sockets open), which missed the listener in a busy full run.
            guard let handle = FileHandle(forReadingAtPath: file), let data = try? handle.readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[1].hasSuffix(hexPort) else { continue }
                found.append("\(states[String(fields[3])] ?? String(fields[3])) \(fields[1]) \(fields[2]) uid \(fields[7]) inode \(fields[9])")
            }
        }
        return found
    }

    @Test func socketsOnPortFindsAListener() async throws {
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "Probe", id: UUID()))
        try await receiver.start()
        let port = try #require(await receiver.port)
        #expect(Self.socketsOnPort(port).contains { $0.hasPrefix("LISTEN ") })
        await receiver.stop()
    }

    @Test func receiverKilledAndRestartedOnTheSamePort() async throws {
        let id = UUID()
        // A port below Linux's ephemeral range (32768-60999): once the first receiver releases it, no
        // outgoing connection of a test running in parallel can be handed it, so it can be bound again.
        // And below the interop tests' restartable devices (`RestartablePort`: the 12 000 ports under the
        // ephemeral range, 20768-32767 by default), which run in this process at the same time: one of
        // them could otherwise start on this port while the device is down.
        // One certificate for both lives of the device (a real one keeps its certificate across a
        // restart), made once: each bind attempt below is then a bind, not a 2048-bit key generation
        // (which took ~330 ms per attempt under load, so 100 attempts lasted 33 s).
        let credentials = try TLSCredentials.selfSigned(commonName: "Phoenix")
        var started: (EmulatedReceiver, Int)?
        for _ in 0..<50 where started == nil {
            let candidate = Int.random(in: 10_000..<20_000)
            let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
                name: "Phoenix", id: id, port: candidate, tlsCredentials: credentials))
            if (try? await receiver.start()) != nil { started = (receiver, candidate) }
        }
        let (first, port) = try #require(started)
        // The first life's listener, as the kernel lists it: a failure to listen again below tells whether
        // the socket still on the port is that one (not closed by `stop()`) or another.
        let firstSockets = Self.socketsOnPort(port)
        let device = Self.device("Phoenix", id: id, port: port)
        // Reconnecting is bounded by time, not by attempts: 40 attempts at most 100 ms apart gave up ~3 s
        // after the loss, however long the restart below took on a loaded machine.
        let cast = Cast(
            configuration: CastConfiguration(reconnectPolicy: CastReconnectPolicy(
                maxAttempts: Int(Int32.max), initialDelay: .milliseconds(20), maxDelay: .milliseconds(100),
                timeout: .seconds(60))),
            connector: TLSDeviceConnector(connectTimeout: .seconds(60)))
        let router = Router()
        cast.delegate = router
        var routed = router.events.makeAsyncIterator()
        try await cast.startSession(with: device)
        #expect(await routed.next() == .started)
        let player = try #require(cast.player)
        try await player.loadItems(from: [Assets.movie(1), Assets.movie(2), Assets.movie(3)], with: CastLoadOptions(index: 1))
        let sessionId = try #require(cast.sessionInfo?.sessionId)

        // Kill the device and bring a fresh one up on the same port.
        await first.stop()
        try await waitUntil("reconnecting") { if case .reconnecting = cast.connectionState { true } else { false } }
        // The port is free again once the old listener has closed (the listener sets SO_REUSEADDR, so the
        // old connection's TIME_WAIT does not hold it). The bind has still failed under load, for a reason
        // not yet seen: it is retried a bounded number of times, and a failure names the last error and
        // the kernel's sockets on the port.
        var restarted: EmulatedReceiver?
        var lastError: (any Error)?
        for _ in 0..<500 where restarted == nil {
            let candidate = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
                name: "Phoenix", id: id, port: port, tlsCredentials: credentials))
            do {
                try await candidate.start()
                restarted = candidate
            } catch {
                lastError = error
                // Not a wait for an event: stop() has closed the old listener and its connections, so
                // the port is free; this spaces the attempts of a bind that has failed under load for a
                // cause not yet found (no event says when a retry would succeed).
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let cause = String(describing: (lastError as? EmulatedReceiverError)?.cause)
        let second = try #require(
            restarted,
            "could not listen on \(port) again: \(String(describing: lastError)) (cause: \(cause)); sockets on it: \(Self.socketsOnPort(port)); while the first receiver listened: \(firstSockets)")
        // The sender reconnects, finds the session gone (a restarted device runs no app), launches
        // the app again and reloads what it knew at the moment of loss: the queue and the position.
        try await waitUntil("resumed on the restarted device") {
            // Item ids come first, the items themselves with the next fetch: wait for the current one's.
            cast.connectionState == .connected && cast.sessionInfo?.sessionId != sessionId && player.items.count == 3
                && player.currentAsset != nil
        }
        #expect(cast.player === player)
        #expect(player.currentItem == player.items[1])
        #expect(player.currentAsset?.metadata?.title == "Movie 2")
        await cast.endSession()
        #expect(await second.violations.isEmpty)
        await second.stop()
    }
}
