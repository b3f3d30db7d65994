import CastDiscoveryCore
import CastTestSupport
import Foundation
import Observation
import Synchronization
import Testing
@testable import Castor

/// A browser double: devices set by the test, events on demand.
final class FakeBrowser: DeviceBrowser {
    private let state = Mutex<(devices: [CastDevice], continuations: [AsyncStream<DeviceBrowserEvent>.Continuation], started: Bool)>(([], [], false))
    func start() async {
        state.withLock { $0.started = true }
        ChangeSignal.shared.bump()
    }
    func stop() async { for continuation in state.withLock({ $0.continuations }) { continuation.finish() } }
    func events() -> AsyncStream<DeviceBrowserEvent> {
        let (stream, continuation) = AsyncStream<DeviceBrowserEvent>.makeStream()
        state.withLock { $0.continuations.append(continuation) }
        return stream
    }
    var devices: [CastDevice] {
        defer { ChangeSignal.shared.bump() }
        return reads.withLock { reads in
            reads += 1
            return state.withLock { $0.devices }
        }
    }
    /// How many times ``devices`` was read (the façade reads it for each event).
    var devicesReads: Int { reads.withLock { $0 } }
    private let reads = Mutex(0)
    var diagnostics: [DiscoveryDiagnostic] { [] }
    var started: Bool { state.withLock { $0.started } }
    func add(_ device: CastDevice) {
        let continuations = state.withLock { state in
            state.devices.append(device)
            return state.continuations
        }
        for continuation in continuations { continuation.yield(.added(device)) }
    }
    func remove(_ device: CastDevice) {
        let continuations = state.withLock { state in
            state.devices.removeAll { $0.id == device.id }
            return state.continuations
        }
        for continuation in continuations { continuation.yield(.removed(device)) }
    }
}

@Suite struct ObservationTests {
    @Test func devicesFollowTheBrowser() async throws {
        let browser = FakeBrowser()
        let cast = Cast(browser: browser)
        try await waitUntil("the browser started") { browser.started }
        let tv = TestDevice.make("Zed").device, radio = TestDevice.make("Alpha").device
        browser.add(tv)
        browser.add(radio)
        try await waitUntil("two devices") { cast.devices.count == 2 }
        #expect(cast.devices.map(\.friendlyName) == ["Alpha", "Zed"])
        browser.remove(tv)
        try await waitUntil("one device") { cast.devices.count == 1 }
        // An explicit list wins over the browser from then on. The façade reads the browser's list for
        // each event in turn: once it read it for a second event, it has handled the first.
        cast.setDevices([tv])
        let reads = browser.devicesReads
        browser.add(TestDevice.make("Other").device)
        browser.add(TestDevice.make("Another").device)
        try await waitUntil("the façade handled the first event") { browser.devicesReads >= reads + 2 }
        #expect(cast.devices.map(\.friendlyName) == ["Zed"])
    }

    @Test func observersAreToldAboutSessionChanges() async throws {
        let tv = TestDevice.make("Observed")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector)
        let fired = Mutex(0)
        withObservationTracking {
            _ = cast.player
            _ = cast.connectionState
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        try await cast.startSession(with: tv.device)
        #expect(fired.withLock { $0 } == 1)   // onChange fires once per tracking
        let player = try #require(cast.player)
        try await player.loadItems(from: [Assets.movie(1)])
        let repeatChanged = Mutex(false)
        withObservationTracking {
            _ = player.repeatMode
        } onChange: {
            repeatChanged.withLock { $0 = true }
        }
        try await player.setRepeatMode(.one)
        #expect(repeatChanged.withLock { $0 })
        await cast.endSession()
    }
}
