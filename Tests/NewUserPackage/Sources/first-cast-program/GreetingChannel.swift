import CastChannels

/// The sender's side of `urn:x-cast:com.example.greeting`: one type conforming to one small protocol.
final class GreetingChannel: CastChannelPlugin {
    let namespace = try! CastNamespace("urn:x-cast:com.example.greeting")
    private let link = CastChannelLink(notConnectedMessage: "No greeting app is running")
    private let greetings = CastBroadcaster<String>()

    /// Every greeting the app sends, from now on.
    var allGreetings: AsyncStream<String> { greetings.subscribe() }

    func channelDidConnect(_ context: CastChannelContext) async {
        link.connect(context)
    }

    func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        link.disconnect(reason: reason)
    }

    func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        // Every message of the app arrives here, replies included.
        if message.type == "GREETING", let greeting = message.json?["greeting"]?.stringValue { greetings.yield(greeting) }
    }

    /// Asks the receiver app to greet `name`, and waits for its answer.
    func greet(_ name: String) async throws -> String {
        let reply = try await link.request(["type": "GREET", "name": .string(name)])
        return reply.json?["greeting"]?.stringValue ?? "(no greeting)"
    }
}
