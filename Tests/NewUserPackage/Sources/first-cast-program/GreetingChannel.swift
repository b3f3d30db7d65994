import CastChannels
import Synchronization

/// The sender's side of `urn:x-cast:com.example.greeting`: one type conforming to one small protocol.
final class GreetingChannel: CastChannelPlugin {
    let namespace = try! CastNamespace("urn:x-cast:com.example.greeting")
    private let context = Mutex<CastChannelContext?>(nil)

    func channelDidConnect(_ context: CastChannelContext) async {
        self.context.withLock { $0 = context }
    }

    func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        self.context.withLock { $0 = nil }
    }

    func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        // Every message of the app arrives here, replies included; GREETING needs nothing more.
    }

    /// Asks the receiver app to greet `name`, and waits for its answer.
    func greet(_ name: String) async throws -> String {
        guard let context = context.withLock({ $0 }) else {
            throw CastChannelError(code: .notConnected, message: "No greeting app is running")
        }
        let reply = try await context.request(["type": "GREET", "name": .string(name)])
        return reply.json?["greeting"]?.stringValue ?? "(no greeting)"
    }
}
