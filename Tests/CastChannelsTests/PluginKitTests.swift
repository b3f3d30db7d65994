import CastChannels
import Testing

/// The public plugin kit: ``CastBroadcaster`` (bounded fan-out) and ``CastChannelLink`` (context and state).
@Suite struct PluginKitTests {
    @Test("a subscriber that does not read keeps only the newest values up to the limit")
    func broadcasterDropsTheOldest() async {
        let broadcaster = CastBroadcaster<Int>(bufferLimit: 3)
        let stream = broadcaster.subscribe()
        for value in 1...10 { broadcaster.yield(value) }
        broadcaster.finish()
        var received: [Int] = []
        for await value in stream { received.append(value) }
        #expect(received == [8, 9, 10])
    }

    @Test("subscribe(startingWith:) gives the current value first; a finished broadcaster gives finished streams")
    func broadcasterStartsWithTheCurrentValue() async {
        let broadcaster = CastBroadcaster<String>()
        #expect(broadcaster.bufferLimit == CastBroadcaster<String>.defaultBufferLimit)
        let stream = broadcaster.subscribe(startingWith: "now")
        broadcaster.yield("next")
        broadcaster.finish()
        var received: [String] = []
        for await value in stream { received.append(value) }
        #expect(received == ["now", "next"])
        var late: [String] = []
        for await value in broadcaster.subscribe(startingWith: "ignored") { late.append(value) }
        #expect(late.isEmpty)
    }

    @Test("a stream whose reader was cancelled is removed at once")
    func broadcasterForgetsCancelledReaders() async {
        let broadcaster = CastBroadcaster<Int>()
        let stream = broadcaster.subscribe()
        #expect(broadcaster.subscriberCount == 1)
        let reader = Task { for await _ in stream {} }
        reader.cancel()
        await reader.value
        #expect(broadcaster.subscriberCount == 0)
    }

    @Test("a link without a context throws notConnected with the plugin's message and reports its state")
    func linkWhileDisconnected() async throws {
        let link = CastChannelLink(notConnectedMessage: "The score app is not running")
        #expect(!link.isConnected)
        #expect(link.lastDisconnectReason == nil)
        let error = await #expect(throws: CastChannelError.self) { _ = try await link.request(["type": "RESET"]) }
        #expect(error?.code == .notConnected)
        #expect(error?.message == "The score app is not running")
        await #expect(throws: CastChannelError.self) { try await link.send(["type": "PING"]) }
        link.disconnect(reason: .appStopped)
        #expect(link.lastDisconnectReason == .appStopped)
        var changes = link.connectionChanges.makeAsyncIterator()
        #expect(await changes.next() == false)
    }
}
