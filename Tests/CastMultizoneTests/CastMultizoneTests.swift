import CastChannels
import CastJSON
import CastMultizone
import CastEmulator
import CastTestSupport
import CastCore
import Foundation
import Testing

@Suite struct CastMultizoneStateTests {
    @Test func statusAddUpdateRemove() throws {
        var state = CastMultizoneState()
        let status: JSONValue = ["type": "MULTIZONE_STATUS", "status": [
            "devices": [["deviceId": "a", "name": "A", "capabilities": 4, "volume": ["level": 0.5, "muted": false]]],
            "isMultichannel": false]]
        #expect(try state.apply(status) == [.status([CastMultizoneMember(id: "a", name: "A", capabilities: 4, volumeLevel: 0.5, isMuted: false)])])
        #expect(try state.apply(status).isEmpty)   // the same status twice changes nothing
        let added: JSONValue = ["type": "DEVICE_ADDED", "device": ["deviceId": "b", "name": "B", "volume": ["level": 2]]]
        #expect(try state.apply(added) == [.added(CastMultizoneMember(id: "b", name: "B", volumeLevel: 1))])
        let updated: JSONValue = ["type": "DEVICE_UPDATED", "device": ["deviceId": "a", "name": "A", "volume": ["level": 0.1, "muted": true]]]
        #expect(try state.apply(updated) == [.updated(CastMultizoneMember(id: "a", name: "A", volumeLevel: 0.1, isMuted: true))])
        #expect(try state.apply(["type": "DEVICE_REMOVED", "deviceId": "b"]) == [.removed(id: "b")])
        #expect(try state.apply(["type": "DEVICE_REMOVED", "deviceId": "zz"]).isEmpty)
        #expect(state.members.map(\.id) == ["a"])
        #expect(try state.apply(["type": "SOMETHING_ELSE"]).isEmpty)
    }

    /// A MULTIZONE_STATUS a real speaker group sent (captured by chromecast-java-api-v2; origin and
    /// licence in `Tests/PeerData/chromecast-java-api-v2/ORIGIN.md`): its volume level is a float32
    /// widened to a double, as devices write it.
    @Test func aRealGroupStatus() throws {
        let status = try JSONValue(parsing: PeerData.ChromecastJavaAPI.text("multizoneStatus.json"))
        var state = CastMultizoneState()
        #expect(try state.apply(status) == [.status([CastMultizoneMember(
            id: "123456-11c9-8822-cbde-114234fabd", name: "Living Room speaker", capabilities: 196_612,
            volumeLevel: 0.30000001192092896, isMuted: false)])])
    }

    @Test func malformedMessagesAreTypedErrorsAndChangeNothing() throws {
        var state = CastMultizoneState()
        _ = try state.apply(["type": "DEVICE_ADDED", "device": ["deviceId": "a", "name": "A"]])
        for bad: JSONValue in [
            ["type": "MULTIZONE_STATUS"],
            ["type": "MULTIZONE_STATUS", "status": ["devices": [["name": "no id"]]]],
            ["type": "DEVICE_UPDATED"],
            ["type": "DEVICE_ADDED", "device": ["deviceId": 5]],
            ["type": "DEVICE_REMOVED"],
        ] {
            do {
                _ = try state.apply(bad)
                Issue.record("accepted \(bad.serialized())")
            } catch {
                #expect(error.code == .malformedMessage)
            }
        }
        #expect(state.members.map(\.id) == ["a"])
    }
}

@Suite struct CastMultizoneChannelTests {
    @Test func againstAnEmulatedGroup() async throws {
        let kitchen = EmulatedReceiverGroupMember(name: "Kitchen", volumeLevel: 0.3)
        let hall = EmulatedReceiverGroupMember(name: "Hall", volumeLevel: 0.6, isMuted: true)
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: "Downstairs", kind: .group(members: [kitchen, hall]), replyLatency: .zero))
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        await receiver.accept(receiverEnd)
        let connection = CastConnection(transport: senderEnd)
        let multizone = CastMultizoneChannel()
        var events = multizone.events.makeAsyncIterator()
        try await connection.start()
        try await connection.add(multizone)
        // Connecting asks for the status.
        guard case .status(let members)? = await events.next() else { Issue.record("no status"); return }
        #expect(members.map(\.name) == ["Kitchen", "Hall"])
        #expect(members[1].isMuted == true)
        #expect(try await multizone.refresh().map(\.volumeLevel) == [0.3, 0.6])

        await receiver.setMemberVolume(id: kitchen.id, level: 0.9, muted: true)
        let id = kitchen.id.uuidString.lowercased()
        #expect(await events.next() == .updated(CastMultizoneMember(id: id, name: "Kitchen", capabilities: 4, volumeLevel: 0.9, isMuted: true)))
        #expect(multizone.members.first?.volumeLevel == 0.9)

        do {
            try await multizone.setVolume(0.2, ofMember: id)
            Issue.record("SET_DEVICE_VOLUME succeeded")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.reason == "INVALID_COMMAND")
        }
        do {
            try await multizone.setMuted(false, ofMember: "nobody")
            Issue.record("an unknown member was accepted")
        } catch {
            #expect(error.code == .unknownMember)
        }
        await connection.close()
        #expect(await events.next() == .status([]))
        do {
            try await multizone.refresh()
            Issue.record("refresh without a connection succeeded")
        } catch {
            #expect(error.code == .notConnected)
        }
        // The only requests the receiver refused are the SET_DEVICE_VOLUME calls this test makes on purpose.
        let refused = await receiver.violations
        #expect(refused.allSatisfy { $0.kind == .refusedRequest && $0.request?.contains("SET_DEVICE_VOLUME") == true }, "\(refused)")
    }
}
