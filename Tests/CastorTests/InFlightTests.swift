import CastDiscoveryCore
import CastJSON
import CastTestSupport
import CastCore
import Foundation
import Synchronization
import Testing
@testable import Castor

/// A scripted device that runs the Default Media Receiver already and never answers PAUSE.
struct ScriptedDevice: CastDeviceConnector {
    let peer: ScriptedCastPeer
    let senderEnd: InMemoryCastTransport
    let device = CastDevice(id: CastDeviceID(UUID()), friendlyName: "Scripted")

    /// - Parameter appId: the app the device runs already (`nil`: none until LAUNCH, which starts the requested app).
    init(appId: String? = "CC1AD845") {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        self.senderEnd = senderEnd
        peer = ScriptedCastPeer(transport: receiverEnd)
        let running = Mutex(appId)
        @Sendable func status(_ requestId: JSONValue) -> JSONValue {
            let apps: JSONValue = running.withLock { $0 }.map { app in
                [["appId": .string(app), "displayName": "App", "sessionId": "s-1",
                  "transportId": "web-1", "namespaces": [["name": "urn:x-cast:com.google.cast.media"]],
                  "statusText": "Ready", "isIdleScreen": false]]
            } ?? []
            return ["type": "RECEIVER_STATUS", "requestId": requestId, "status": [
                "applications": apps,
                "volume": ["level": 0.5, "muted": false, "controlType": "attenuation", "stepInterval": 0.05]]]
        }
        peer.on(namespace: "urn:x-cast:com.google.cast.receiver", type: "GET_STATUS") { message, json in
            [message.reply(json: status(json["requestId"] ?? 0))]
        }
        peer.on(namespace: "urn:x-cast:com.google.cast.receiver", type: "LAUNCH") { message, json in
            running.withLock { $0 = json["appId"]?.stringValue }
            return [message.reply(json: status(json["requestId"] ?? 0))]
        }
        peer.on(namespace: "urn:x-cast:com.google.cast.media", type: "GET_STATUS") { message, json in
            [message.reply(json: ["type": "MEDIA_STATUS", "requestId": json["requestId"] ?? 0, "status": [[
                "mediaSessionId": 1, "playerState": "PLAYING", "currentTime": 5, "playbackRate": 1,
                "supportedMediaCommands": 12303, "currentItemId": 1,
                "media": ["contentId": "https://example.com/a.mp4", "contentType": "video/mp4", "streamType": "BUFFERED", "duration": 60]]]])]
        }
        peer.on(namespace: "urn:x-cast:com.google.cast.media", type: "QUEUE_GET_ITEM_IDS") { message, json in
            [message.reply(json: ["type": "QUEUE_ITEM_IDS", "requestId": json["requestId"] ?? 0, "itemIds": [1]])]
        }
        peer.start()
    }

    func connect(to device: CastDevice) async throws -> any CastTransport { senderEnd }
}

@Suite struct InFlightTests {
    @Test func androidTVCompatibleLaunchOfACustomApp() async throws {
        let scripted = ScriptedDevice(appId: nil)
        let cast = Cast(configuration: CastConfiguration(receiverAppID: "ABCD1234", isAndroidReceiverCompatible: true),
                        connector: scripted, clock: ManualClock())
        try await cast.startSession(with: scripted.device)
        let launch = try #require(scripted.peer.received(namespace: "urn:x-cast:com.google.cast.receiver", type: "LAUNCH").first?.json)
        #expect(launch["appId"] == "ABCD1234")
        #expect(launch["supportedAppTypes"] == ["WEB", "ANDROID_TV"])
        #expect(cast.sessionInfo?.appId == "ABCD1234")
        #expect(cast.player != nil)
    }

    @Test func aPlainLaunchSendsNoAppTypes() async throws {
        let scripted = ScriptedDevice(appId: nil)
        let cast = Cast(connector: scripted, clock: ManualClock())
        try await cast.startSession(with: scripted.device)
        let launch = try #require(scripted.peer.received(namespace: "urn:x-cast:com.google.cast.receiver", type: "LAUNCH").first?.json)
        #expect(launch["appId"] == "CC1AD845")
        #expect(launch["supportedAppTypes"] == nil)
    }

    @Test func aCommandInFlightFailsWhenTheConnectionDrops() async throws {
        let scripted = ScriptedDevice()
        let cast = Cast(configuration: CastConfiguration(reconnectPolicy: .never), connector: scripted, clock: ManualClock())
        try await cast.startSession(with: scripted.device)
        let player = try #require(cast.player)
        #expect(player.shouldPlay)
        let pause = Task { () -> CastError.Code? in
            do { try await player.pause(); return nil } catch let error as CastError { return error.code } catch { return nil }
        }
        _ = await scripted.peer.waitFor(namespace: "urn:x-cast:com.google.cast.media", type: "PAUSE")
        #expect(!player.shouldPlay)   // optimistic
        await scripted.peer.transport.close()
        #expect(await pause.value == CastError.Code.connectionLost)
        try await waitUntil("the session ended") { cast.player == nil }
    }

    @Test func aSilentDeviceIsDeclaredLostOnTheInjectedClock() async throws {
        let scripted = ScriptedDevice()
        let clock = ManualClock()
        let router = Router()
        let cast = Cast(configuration: CastConfiguration(requestTimeout: .seconds(120), reconnectPolicy: .never),
                        connector: scripted, clock: clock)
        cast.delegate = router
        var routed = router.events.makeAsyncIterator()
        try await cast.startSession(with: scripted.device)
        #expect(await routed.next() == .started)
        let player = try #require(cast.player)
        let finished = Mutex(false)
        let pause = Task { () -> CastError.Code? in
            defer {
                finished.withLock { $0 = true }
                ChangeSignal.shared.bump()
            }
            do { try await player.pause(); return nil } catch let error as CastError { return error.code } catch { return nil }
        }
        _ = await scripted.peer.waitFor(namespace: "urn:x-cast:com.google.cast.media", type: "PAUSE")
        scripted.peer.answersPings = false
        // Liveness is 10 s: well before the 120 s request deadline the command fails as lost. Move the
        // clock from one armed timer to the next (the heartbeat's, never past 100 s, short of the request
        // deadline) until the command ends: each step waits for a timer to be armed, not for time to pass.
        let start = clock.now
        let bound = start.advanced(by: .seconds(100))
        func nextTimer() -> ManualClock.Instant? { clock.sleeperDeadlines.filter { $0 <= bound }.min() }
        while !finished.withLock({ $0 }) {
            try await waitUntil("a heartbeat timer is armed or the command ended") {
                finished.withLock { $0 } || nextTimer() != nil
            }
            if let next = nextTimer(), !finished.withLock({ $0 }) { await clock.advance(to: next) }
        }
        let code = await pause.value
        #expect(code == .connectionLost, "the command ended after \(start.duration(to: clock.now)) on the manual clock")
        guard case .ended(let state)? = await routed.next() else { Issue.record("no end"); return }
        #expect(state?.assets.count == 1)
        #expect(cast.connectionState == .disconnected)
    }
}
