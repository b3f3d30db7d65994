import CastChannels
import CastDiscoveryCore
import CastMedia
import CastEmulator
import CastTestSupport
import Foundation
import Testing
@testable import Castor

@Suite struct SessionTests {
    @Test func startAndEndWithDelegateAndCastable() async throws {
        let tv = TestDevice.make("Living Room")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector)
        cast.setDevices([tv.device])
        let router = Router()
        let local = LocalPlayer(state: CastResumeState(
            assets: [Assets.movie(1), Assets.movie(2)], options: CastLoadOptions(index: 1, time: .seconds(20))))
        cast.delegate = router
        cast.castable = local
        var routed = router.events.makeAsyncIterator()

        #expect(cast.player == nil)
        try await cast.startSession(with: tv.device)
        #expect(await routed.next() == .started)
        #expect(cast.connectionState == .connected)
        #expect(cast.isCasting(on: tv.device))
        #expect(cast.currentDevice?.id == tv.device.id)
        let player = try #require(cast.player)
        // The local state was handed to the receiver: two items, the second one current, 20 s in.
        try await waitUntil("the queue arrives") { player.items.count == 2 }
        #expect(player.currentItem == player.items[1])
        #expect(local.startCount.withLock { $0 } == 1)
        let time = try #require(player.time())
        #expect(time >= .seconds(20))
        #expect(await tv.receiver.mediaStatus != nil)

        var ended = local.ended.makeAsyncIterator()
        await cast.endSession()
        guard case .ended(let state)? = await routed.next() else { Issue.record("no end"); return }
        let resume = try #require(state)
        #expect(resume.assets == [Assets.movie(1), Assets.movie(2)])
        #expect(resume.options.index == 1)
        #expect(try #require(await ended.next()) == resume)
        #expect(cast.player == nil)
        #expect(cast.currentDevice == nil)
        #expect(cast.connectionState == .disconnected)
        // Ending stopped the receiver app (the default).
        #expect(await tv.receiver.mediaStatus == nil)
        #expect(await tv.receiver.violations.isEmpty)
    }

    @Test func endingWithoutStoppingLeavesTheAppRunning() async throws {
        let tv = TestDevice.make("Kitchen")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector, configuration: CastConfiguration(stopsReceiverAppOnEnd: false))
        try await cast.startSession(with: tv.device)
        try await cast.player?.loadItem(from: Assets.movie(1))
        await cast.endSession()
        #expect(await tv.receiver.mediaStatus != nil)
    }

    @Test func androidTVCompatibilityAndCustomAppId() async throws {
        let configuration = CastConfiguration(receiverAppID: "ABCD1234", isAndroidReceiverCompatible: true)
        #expect(configuration.supportedAppTypes == ["WEB", "ANDROID_TV"])
        #expect(CastConfiguration().supportedAppTypes == nil)
        #expect(CastConfiguration().receiverAppID == "CC1AD845")
        // The emulated receiver does not know the app: the start fails with a typed error and no device.
        let tv = TestDevice.make("Den")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector, configuration: configuration)
        do {
            try await cast.startSession(with: tv.device)
            Issue.record("launching an unknown app succeeded")
        } catch {
            #expect(error.code == .launchFailed)
        }
        #expect(cast.currentDevice == nil)
        #expect(cast.player == nil)
        #expect(cast.connectionState == .disconnected)
    }

    @Test func unreachableDeviceFailsWithATypedError() async throws {
        let tv = TestDevice.make("Attic")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        connector.setReachable(false)
        let cast = makeCast(connector)
        await #expect(throws: CastError.self) { try await cast.startSession(with: tv.device) }
        do { try await cast.startSession(with: tv.device) } catch { #expect(error.code == .deviceUnreachable) }
    }

    @Test func switchingDevicesCarriesTheQueue() async throws {
        let a = TestDevice.make("A"), b = TestDevice.make("B")
        let connector = ReceiverConnector()
        connector.register(a.receiver, for: a.device)
        connector.register(b.receiver, for: b.device)
        let cast = makeCast(connector)
        cast.setDevices([a.device, b.device])
        let router = Router()
        cast.delegate = router
        var routed = router.events.makeAsyncIterator()
        try await cast.startSession(with: a.device)
        #expect(await routed.next() == .started)
        let first = try #require(cast.player)
        try await first.loadItems(from: [Assets.movie(1), Assets.movie(2), Assets.movie(3)],
                                  with: CastLoadOptions(index: 2, repeatMode: .all))
        try await waitUntil("three items") { first.items.count == 3 }

        try await cast.startSession(with: b.device)
        #expect(cast.currentDevice?.id == b.device.id)
        #expect(cast.isCasting(on: b.device))
        #expect(!cast.isCasting(on: a.device))
        let second = try #require(cast.player)
        #expect(second !== first)
        try await waitUntil("the queue moved") { second.items.count == 3 }
        let current = try #require(second.currentItem)
        #expect(second.items.firstIndex(of: current) == 2)
        #expect(second.repeatMode == .all)
        #expect(await second.resumeState()?.assets == [Assets.movie(1), Assets.movie(2), Assets.movie(3)])
        // A switch is not an end: the old receiver's app is stopped, the delegate hears nothing yet.
        #expect(await a.receiver.mediaStatus == nil)
        await cast.endSession()
        guard case .ended(let state)? = await routed.next() else { Issue.record("no end"); return }
        // Failed once under a loaded full run (1 of 3 assets, not reproduced since): say what ended.
        #expect(state?.assets.count == 3, "ended with \(String(describing: state))")
    }

    @Test func twoSendersSeeEachOthersChanges() async throws {
        let tv = TestDevice.make("Shared")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let alice = makeCast(connector), bob = makeCast(connector)
        try await alice.startSession(with: tv.device)
        try await alice.player?.loadItems(from: [Assets.movie(1), Assets.movie(2)])
        // Bob joins the running app instead of relaunching it.
        try await bob.startSession(with: tv.device)
        #expect(bob.sessionInfo?.sessionId == alice.sessionInfo?.sessionId)
        let a = try #require(alice.player), b = try #require(bob.player)
        try await waitUntil("bob sees the queue") { b.items.count == 2 }

        try await a.setRepeatMode(.one)
        try await waitUntil("bob sees the repeat mode") { b.repeatMode == .one }
        try await b.appendItem(from: Assets.movie(3))
        try await waitUntil("alice sees the new item") { a.items.count == 3 }
        try await b.pause()
        try await waitUntil("alice sees the pause") { !a.shouldPlay }
        #expect(await tv.receiver.violations.isEmpty)
    }

    @Test func resumingARememberedSessionAtStartUp() async throws {
        let tv = TestDevice.make("Bedroom")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let first = makeCast(connector, configuration: CastConfiguration(stopsReceiverAppOnEnd: false))
        try await first.startSession(with: tv.device)
        try await first.player?.loadItems(from: [Assets.movie(1), Assets.movie(2)])
        let info = try #require(first.sessionInfo)
        await first.endSession()
        // Saved and restored, as a program would across a restart.
        let saved = try JSONEncoder().encode(info)
        let restored = try JSONDecoder().decode(CastSessionInfo.self, from: saved)

        let second = makeCast(connector)
        let local = LocalPlayer(state: CastResumeState(assets: [Assets.movie(9)], options: CastLoadOptions()))
        second.castable = local
        try await second.resumeSession(restored, on: tv.device)
        #expect(second.sessionInfo?.sessionId == info.sessionId)
        let player = try #require(second.player)
        try await waitUntil("the queue is there") { player.items.count == 2 }
        // Joining keeps the receiver's queue: the local state is not pushed over it.
        #expect(local.startCount.withLock { $0 } == 0)

        // Once the app is gone, the remembered session cannot be resumed.
        await second.endSession()
        let third = makeCast(connector)
        do {
            try await third.resumeSession(restored, on: tv.device)
            Issue.record("resumed a stopped session")
        } catch {
            #expect(error.code == .sessionEnded)
        }
        #expect(third.player == nil)
    }

    @Test func theReceiverStoppingTheAppEndsTheSession() async throws {
        let tv = TestDevice.make("Office")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector), other = makeCast(connector)
        let router = Router()
        cast.delegate = router
        var routed = router.events.makeAsyncIterator()
        try await cast.startSession(with: tv.device)
        #expect(await routed.next() == .started)
        try await cast.player?.loadItems(from: [Assets.movie(1), Assets.movie(2)], with: CastLoadOptions(index: 1))
        try await other.startSession(with: tv.device)
        await other.endSession()   // stops the app for everyone
        guard case .ended(let state)? = await routed.next() else { Issue.record("no end"); return }
        #expect(state?.assets.count == 2)
        #expect(state?.options.index == 1)
        #expect(cast.player == nil)
        #expect(cast.connectionState == .disconnected)
    }
}
