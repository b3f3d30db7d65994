import CastChannels
import CastEmulator
import CastTestSupport
import Synchronization
import Testing
@testable import Castor

/// A third party's plugin on the façade's session: `Cast.add(_:)`.
@Suite struct CustomPluginTests {
    /// A platform-channel plugin (it talks to `receiver-0`, so it connects as soon as a connection is up),
    /// built on the public plugin kit.
    final class PlatformProbe: CastChannelPlugin {
        let namespace: CastNamespace
        init(_ name: String = "probe") { namespace = try! CastNamespace("urn:x-cast:com.example.\(name)") }
        var endpoint: CastChannelEndpoint { .platform }
        let link = CastChannelLink(notConnectedMessage: "no connection")
        let connects = Mutex(0)

        func channelDidConnect(_ context: CastChannelContext) async {
            connects.withLock { $0 += 1 }
            link.connect(context)
            ChangeSignal.shared.bump()
        }
        func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
            link.disconnect(reason: reason)
            ChangeSignal.shared.bump()
        }
        func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {}
    }

    @Test("a plugin added before the session connects with it, follows a reconnect, and is removed on request")
    func pluginFollowsTheSession() async throws {
        let tv = TestDevice.make("TV")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector)
        let probe = PlatformProbe()
        try await cast.add(probe)
        try await cast.add(probe)  // twice: still one
        #expect(cast.plugins.count == 1)
        try await cast.startSession(with: tv.device)
        try await waitUntil("the plugin is connected") { probe.link.isConnected }
        #expect(probe.link.context?.transportId == "receiver-0")

        // A dropped connection: the session reconnects and the plugin is connected on the new connection.
        await connector.dropConnections()
        try await waitUntil("the plugin is connected again") { probe.connects.withLock { $0 } == 2 && probe.link.isConnected }

        // A plugin added while the session runs connects at once; removing it disconnects it.
        // Another plugin on a namespace already spoken is refused with a typed error, and nothing changes.
        let error = await #expect(throws: CastError.self) { try await cast.add(PlatformProbe()) }
        #expect(error?.code == .invalidArgument)
        let late = PlatformProbe("late")
        try await cast.add(late)
        try await waitUntil("the late plugin is connected") { late.link.isConnected }
        cast.remove(late)
        try await waitUntil("the late plugin is removed") { late.link.lastDisconnectReason == .removed }
        #expect(cast.plugins.count == 1)

        await cast.endSession()
        try await waitUntil("the plugin is disconnected") { !probe.link.isConnected }
    }
}
