import CastChannels
import CastEmulator
import CastTLS
import ChatChannel
import Testing

/// The chat example plugin (built on the public plugin kit: ``CastChannelLink`` and ``CastBroadcaster``)
/// against the emulated receiver over real TLS on loopback.
@Suite struct ChatChannelTests {
    @Test("say() before the app runs is notConnected; after, lines arrive and a reader that stopped is removed")
    func sayAndLines() async throws {
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: "Chat TV", host: "127.0.0.1", port: 0, apps: [ChatReceiverHandler.app()]))
        try await receiver.start()
        let port = try #require(await receiver.port)
        let connection = CastConnection(transport: try await TLSCastTransport.connect(host: "127.0.0.1", port: port))
        let chat = ChatChannel()
        try await connection.add(chat)
        _ = try await connection.start()
        await #expect(throws: CastChannelError.self) { _ = try await chat.say("too early") }
        _ = try await connection.receiver.launch(appId: ChatChannel.appId)
        _ = try await connection.waitUntilConnected(chat)

        // Both streams are subscribed before the line is said.
        let readerLines = chat.lines
        let abandonedLines = chat.lines
        #expect(chat.lineReaderCount == 2)
        let reader = Task { () -> String? in
            for await line in readerLines { return line }
            return nil
        }
        let abandoned = Task { for await _ in abandonedLines {} }
        let reply = try await chat.say("hello")
        #expect(reply.text == "HELLO" && reply.count == 1)
        #expect(await reader.value == "hello")
        abandoned.cancel()
        await abandoned.value
        // The cancelled reader's stream is forgotten at once; the other stream still exists (this test holds it).
        #expect(chat.lineReaderCount == 1)
        await connection.close()
        await receiver.stop()
    }
}
