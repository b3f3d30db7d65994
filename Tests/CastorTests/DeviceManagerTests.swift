import CastEmulator
import CastTestSupport
import Foundation
import Testing
@testable import Castor

@Suite struct DeviceManagerTests {
    @Test func deviceVolumeAndMute() async throws {
        let tv = TestDevice.make("TV")
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector)
        #expect(cast.deviceManager() == nil)
        try await cast.startSession(with: tv.device)
        let manager = try #require(cast.deviceManager())
        #expect(cast.deviceManager() === manager)
        try await waitUntil("the volume is known") { manager.volume == 0.5 }
        #expect(manager.canAdjustVolume)
        manager.volume = 0.25            // optimistic
        #expect(manager.volume == 0.25)
        // The receiver applies SET_VOLUME before it answers; the connection records the answer, and the
        // write it ends notifies observers of `volume` (read here so that the wait observes it).
        let connection = try #require(cast.state.withLock { $0.link }?.connection)
        try await waitUntil("the receiver answered the write") {
            manager.volume == 0.25 && connection.receiverStatus?.volume.level == 0.25
        }
        #expect(await tv.receiver.receiverStatus["volume"]?["level"]?.doubleValue == 0.25)
        manager.volume = 3               // out of range: ignored
        #expect(manager.volume == 0.25)
        try await manager.setMuted(true)
        #expect(manager.isMuted)
        #expect(await tv.receiver.receiverStatus["volume"]?["muted"]?.boolValue == true)
        try await manager.setVolume(0)
        try await manager.setMuted(false)  // unmuting at 0 raises the volume to 0.1
        #expect(!manager.isMuted)
        #expect(abs(manager.volume - 0.1) < 0.0001)
        await cast.endSession()
    }

    @Test func fixedVolumeCannotBeChanged() async throws {
        let tv = TestDevice.make("Soundbar", volumeControl: .fixed)
        let connector = ReceiverConnector()
        connector.register(tv.receiver, for: tv.device)
        let cast = makeCast(connector)
        try await cast.startSession(with: tv.device)
        let manager = try #require(cast.deviceManager())
        #expect(!manager.canAdjustVolume)
        manager.volume = 0.9
        #expect(manager.volume == 0.5)
        do {
            try await manager.setVolume(0.9)
            Issue.record("changed a fixed volume")
        } catch {
            #expect(error.code == .unsupported)
        }
        #expect(manager.canMute)
        await cast.endSession()
    }

    @Test func groupMembers() async throws {
        let kitchen = EmulatedReceiverGroupMember(name: "Kitchen", volumeLevel: 0.3)
        let hall = EmulatedReceiverGroupMember(name: "Hall", volumeLevel: 0.6, isMuted: true)
        let group = TestDevice.make("Downstairs", kind: .group(members: [kitchen, hall]))
        let connector = ReceiverConnector()
        connector.register(group.receiver, for: group.device)
        let cast = makeCast(connector)
        try await cast.startSession(with: group.device)
        try await waitUntil("members are known") { cast.multizoneDevices.count == 2 }
        let member = try #require(cast.multizoneDevices.first { $0.name == "Kitchen" })
        let manager = try #require(cast.deviceManager(forMultizoneDevice: member))
        try await waitUntil("member volume") { abs(manager.volume - 0.3) < 0.0001 }
        #expect(!manager.isMuted)
        // The speaker's own volume changes: the manager follows DEVICE_UPDATED.
        await group.receiver.setMemberVolume(id: kitchen.id, level: 0.8)
        try await waitUntil("member volume updated") { abs(manager.volume - 0.8) < 0.0001 }
        // The emulated receiver does not implement SET_DEVICE_VOLUME: a typed error, and the value rolls back.
        do {
            try await manager.setVolume(0.1)
            Issue.record("SET_DEVICE_VOLUME succeeded on a receiver without it")
        } catch {
            #expect(error.code == .unsupported)
        }
        #expect(abs(manager.volume - 0.8) < 0.0001)
        await cast.endSession()
        #expect(cast.multizoneDevices.isEmpty)
    }
}
