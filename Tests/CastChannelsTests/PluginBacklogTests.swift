import CastJSON
import CastTestSupport
import CastCore
import Synchronization
import Testing

@testable import CastChannels

/// A plugin whose message callback does not return until the test opens its gate: a plugin that
/// has stopped taking its messages.
final class StalledPlugin: CastChannelPlugin {
    let namespace: CastNamespace
    let calls = Mutex<[RecordingPlugin.Call]>([])
    private let recorder = CastBroadcaster<RecordingPlugin.Call>()
    private let gate = AsyncStream<Void>.makeStream()

    init() throws { namespace = try CastNamespace(FakeDevice.chatNamespace) }

    var stream: AsyncStream<RecordingPlugin.Call> { recorder.subscribe() }

    /// Lets every waiting and later callback return.
    func open() { gate.continuation.finish() }

    private func record(_ call: RecordingPlugin.Call) {
        calls.withLock { $0.append(call) }
        recorder.yield(call)
    }

    func channelDidConnect(_ context: CastChannelContext) async { record(.connect(context.transportId)) }
    func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        record(.disconnect(reason))
    }
    func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        record(.message("\(message.type ?? "?") \(message.json?["n"]?.doubleValue.map { Int($0) } ?? -1)"))
        for await _ in gate.stream {}
    }
}

/// A plugin's mailbox is bounded: one that stops taking its messages is dropped, as a peer that
/// stops reading is, and the connection and its other users go on.
@Suite("Plugin backlog")
struct PluginBacklogTests {
    static func news(_ n: Int) -> CastMessage {
        CastMessage(sourceId: FakeDevice.appTransport, destinationId: "sender-0", namespace: FakeDevice.chatNamespace,
                    json: ["type": "NEWS", "n": .number(Double(n))])
    }

    @Test("a plugin that stops taking messages is dropped at the limit; what it was handed still reaches it")
    func aStalledPluginIsDroppedAtTheLimit() async throws {
        let device = FakeDevice()
        device.running.withLock { $0 = true }
        let connection = CastConnection(transport: device.senderEnd, configuration: CastConnectionConfiguration(pluginBacklogLimit: 3))
        let plugin = try StalledPlugin()
        let calls = plugin.stream
        try await connection.add(plugin)
        try await connection.start()
        _ = try await connection.waitUntilConnected(plugin)
        let messages = connection.messages
        for n in 1...5 { try await device.peer.send(Self.news(n)) }
        // The device answers GET_STATUS after the five: once the reply is in, all five were handled.
        _ = try await connection.receiver.getStatus()
        var seen = 0
        for await message in messages where message.type == "NEWS" {
            seen += 1
            if seen == 5 { break }
        }
        #expect(seen == 5, "every message still reaches the connection's listeners")
        try #require(connection.context(for: plugin) == nil, "the plugin is no longer on the connection")
        #expect(connection.isRunning)

        plugin.open()
        var received: [RecordingPlugin.Call] = []
        for await call in calls {
            received.append(call)
            if case .disconnect = call { break }
        }
        // The first message is in the callback, two wait behind it; the fourth found the mailbox full.
        #expect(received == [.connect(FakeDevice.appTransport), .message("NEWS 1"), .message("NEWS 2"), .message("NEWS 3"),
                             .disconnect(.overloaded)])
        await #expect(throws: CastChannelError.self, "waiting for a dropped plugin fails at once") {
            _ = try await connection.waitUntilConnected(plugin)
        }

        // Added again, it connects again and takes what comes.
        let again = plugin.stream
        try await connection.add(plugin)
        var iterator = again.makeAsyncIterator()
        #expect(await iterator.next() == .connect(FakeDevice.appTransport))
        try await device.peer.send(Self.news(6))
        #expect(await iterator.next() == .message("NEWS 6"))
        await connection.close()
    }

    @Test("a plugin that takes its messages is never dropped, however many arrive")
    func aPluginThatKeepsUpStays() async throws {
        let device = FakeDevice()
        device.running.withLock { $0 = true }
        let connection = CastConnection(transport: device.senderEnd, configuration: CastConnectionConfiguration(pluginBacklogLimit: 2))
        let plugin = try RecordingPlugin()
        let calls = plugin.stream
        try await connection.add(plugin)
        try await connection.start()
        var iterator = calls.makeAsyncIterator()
        #expect(await iterator.next() == .connect(FakeDevice.appTransport))
        for _ in 1...50 {
            try await device.peer.send(Self.news(0))
            #expect(await iterator.next() == .message("NEWS"))
        }
        #expect(connection.context(for: plugin) != nil)
        await connection.close()
    }
}
