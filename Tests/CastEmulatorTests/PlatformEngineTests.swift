import CastJSON
import Foundation
import Testing
@testable import CastEmulator

@Suite("Platform state machine: connections, heartbeat, receiver namespace")
struct PlatformEngineTests {
    @Test func pingGetsPongWithSwappedIdsEvenBeforeConnect() {
        var h = EngineHarness()
        h.open(1)
        let out = h.send(1, ["type": "PING"], namespace: Wire.heartbeat)
        #expect(out.sent.count == 1)
        let pong = out.sent[0].envelope
        #expect(pong.sourceId == "receiver-0" && pong.destinationId == "sender-0")
        #expect(pong.json == ["type": "PONG"])
        #expect(h.engine.violations.isEmpty)
    }

    @Test func connectWithoutVersionIsSilentAndWithVersionGetsConnected() {
        var h = EngineHarness()
        h.open(1)
        #expect(h.connect(1).isEmpty)
        let out = h.send(1, ["type": "CONNECT", "protocolVersionList": [0, 1, 2, 3, 7]], namespace: Wire.connection,
                         from: "sender-9")
        #expect(out.json(to: 1) == [["type": "CONNECTED", "protocolVersion": 3]])
        #expect(out.sent[0].envelope.sourceId == "receiver-0" && out.sent[0].envelope.destinationId == "sender-9")
        #expect(h.engine.violations.isEmpty)
    }

    @Test func connectToUnknownEndpointGetsClose() {
        var h = EngineHarness()
        h.open(1)
        let out = h.connect(1, to: "web-42")
        #expect(out.json(to: 1) == [["type": "CLOSE"]])
        #expect(out.sent[0].envelope.sourceId == "web-42")
        #expect(h.engine.violations.map(\.kind) == [.invalidConnect])
        // The endpoint was not connected: a message to it is dropped.
        h.send(1, ["type": "GET_STATUS", "requestId": 1], namespace: Wire.media, to: "web-42")
        #expect(h.engine.violations.map(\.kind) == [.invalidConnect, .notConnected])
    }

    @Test func connectWithInvalidConnTypeGetsClose() {
        var h = EngineHarness()
        h.open(1)
        let out = h.send(1, ["type": "CONNECT", "connType": 5], namespace: Wire.connection)
        #expect(out.json(to: 1) == [["type": "CLOSE"]])
        #expect(h.receiver(1, ["type": "GET_STATUS", "requestId": 1]).isEmpty)
    }

    @Test func messageOnUnconnectedVirtualConnectionIsDroppedAndRecorded() {
        var h = EngineHarness()
        h.open(1)
        #expect(h.receiver(1, ["type": "GET_STATUS", "requestId": 1]).isEmpty)
        #expect(h.engine.violations.count == 1)
        #expect(h.engine.violations[0].kind == .notConnected)
        #expect(h.engine.violations[0].namespace == Wire.receiver)
        #expect(h.engine.violations[0].connection == 1)
        // Another sender id on the same socket needs its own CONNECT.
        h.connect(1)
        #expect(h.receiver(1, ["type": "GET_STATUS", "requestId": 2], from: "sender-7").isEmpty)
        #expect(h.receiver(1, ["type": "GET_STATUS", "requestId": 3]).count == 1)
        // CLOSE removes the virtual connection.
        h.send(1, ["type": "CLOSE"], namespace: Wire.connection)
        #expect(h.receiver(1, ["type": "GET_STATUS", "requestId": 4]).isEmpty)
        #expect(h.engine.violations.map(\.kind) == [.notConnected, .notConnected, .notConnected])
    }

    @Test func getStatusIsUnicastWithBackdropOnVideoDevices() throws {
        var h = EngineHarness()
        h.open(1)
        h.open(2)
        h.connect(1)
        h.connect(2)
        let out = h.receiver(1, ["type": "GET_STATUS", "requestId": 30])
        #expect(out.sent.map(\.socket) == [1])
        let envelope = out.sent[0].envelope
        #expect(envelope.destinationId == "sender-0" && envelope.sourceId == "receiver-0")
        let status = try #require(envelope.json)
        #expect(status["type"] == "RECEIVER_STATUS" && status["requestId"] == 30)
        let app = try #require(status["status"]?["applications"]?[0])
        #expect(app["appId"] == "E8C28D3C" && app["isIdleScreen"] == true && app["displayName"] == "Backdrop")
        #expect(app["sessionId"] == app["transportId"])
        let volume = try #require(status["status"]?["volume"])
        #expect(volume == ["controlType": "attenuation", "level": 0.5, "muted": false, "stepInterval": 0.05])
        #expect(status["status"]?["isActiveInput"] == true && status["status"]?["isStandBy"] == false)
        #expect(status["status"]?["userEq"] == [:])
    }

    @Test func audioDevicesReportNoApplicationsWhenIdle() throws {
        var h = EngineHarness { $0.kind = .audio }
        h.open(1)
        h.connect(1)
        let status = try #require(h.receiver(1, ["type": "GET_STATUS", "requestId": 1]).json().first)
        #expect(status["status"]?["applications"] == nil)
        #expect(status["status"]?["volume"] != nil)
    }

    @Test func launchBroadcastsToEverySocketConnectedToThePlatform() throws {
        var h = EngineHarness()
        for socket in 1...3 { h.open(socket) }
        h.connect(1)
        h.connect(2, from: "sender-12")
        let out = h.receiver(1, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 7])
        #expect(out.sent.map(\.socket) == [1, 2])
        for (_, envelope) in out.sent {
            #expect(envelope.destinationId == "*" && envelope.sourceId == "receiver-0")
            let app = try #require(envelope.json?["status"]?["applications"]?[0])
            #expect(envelope.json?["requestId"] == 7)
            #expect(app["appId"] == "CC1AD845" && app["isIdleScreen"] == false)
            #expect(app["namespaces"]?.arrayValue?.contains(["name": "urn:x-cast:com.google.cast.media"]) == true)
        }
    }

    /// A broadcast goes to the sockets connected to its source in ascending socket order, whatever
    /// order they were opened in (and however the engine's dictionary of sockets happens to iterate).
    @Test func broadcastsGoOutInSocketOrder() throws {
        var h = EngineHarness()
        let sockets = [9, 3, 7, 1, 12, 5, 20, 2]
        for socket in sockets { h.open(socket) }
        for socket in sockets where socket != 7 { h.connect(socket, from: "sender-\(socket)") }
        let out = h.receiver(12, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 7], from: "sender-12")
        #expect(out.sent.map(\.socket) == [1, 2, 3, 5, 9, 12, 20])
        // The media app's statuses: only the sockets connected to the app, again in order.
        for socket in [20, 5, 9] { h.connect(socket, from: "sender-\(socket)", to: h.transportId) }
        let load = h.send(9, ["type": "GET_STATUS", "requestId": 8], namespace: Wire.media, from: "sender-9", to: h.transportId)
        #expect(load.sent.map(\.socket) == [9])
        let queue = h.send(9, ["type": "LOAD", "requestId": 9, "media": ["contentId": "http://127.0.0.1/a.mp4", "streamType": "BUFFERED", "contentType": "video/mp4", "duration": 60]],
                           namespace: Wire.media, from: "sender-9", to: h.transportId)
        #expect(queue.sent.map(\.socket) == [5, 9, 20])
    }

    @Test func launchErrors() {
        var h = EngineHarness()
        h.open(1)
        h.connect(1)
        #expect(h.receiver(1, ["type": "LAUNCH", "requestId": 1]).json()
            == [["type": "LAUNCH_ERROR", "requestId": 1, "reason": "BAD_PARAMETER"]])
        #expect(h.receiver(1, ["type": "LAUNCH", "appId": "", "requestId": 2]).json()
            == [["type": "LAUNCH_ERROR", "requestId": 2, "reason": "BAD_PARAMETER"]])
        #expect(h.receiver(1, ["type": "LAUNCH", "appId": 12, "requestId": 3]).json()
            == [["type": "LAUNCH_ERROR", "requestId": 3, "reason": "BAD_PARAMETER"]])
        #expect(h.receiver(1, ["type": "LAUNCH", "appId": "DEADBEEF", "requestId": 4]).json()
            == [["type": "LAUNCH_ERROR", "requestId": 4, "reason": "NOT_FOUND"]])
        // The audio variant of the DMR exists only on audio devices.
        #expect(h.receiver(1, ["type": "LAUNCH", "appId": "705D30C6", "requestId": 5]).json()
            == [["type": "LAUNCH_ERROR", "requestId": 5, "reason": "NOT_FOUND"]])
        #expect(h.engine.app?.descriptor.appId == "E8C28D3C")
    }

    @Test func audioDeviceLaunchesTheAudioVariant() throws {
        var h = EngineHarness { $0.kind = .audio }
        h.open(1)
        h.connect(1)
        let app = try #require(h.receiver(1, ["type": "LAUNCH", "appId": "705D30C6", "requestId": 1]).json().first?["status"]?["applications"]?[0])
        #expect(app["statusText"] == "Cast Media Player")
        #expect(app["namespaces"] == [["name": "urn:x-cast:com.google.cast.media"]])
        #expect(h.receiver(1, ["type": "LAUNCH", "appId": "E8C28D3C", "requestId": 2]).json().first?["reason"] == "NOT_FOUND")
    }

    @Test func relaunchOfTheRunningAppKeepsTheSession() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        let session = h.engine.app?.sessionId
        let out = h.receiver(1, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 9])
        #expect(out.json(type: "CLOSE").isEmpty)
        #expect(out.json(type: "RECEIVER_STATUS").first?["status"]?["applications"]?[0]?["sessionId"]?.stringValue == session)
    }

    @Test func launchingAnotherAppClosesTheOldTransport() throws {
        var h = EngineHarness { $0.apps = [EmulatedReceiverApp(appId: "ABCD1234", displayName: "Echo", namespaces: ["urn:x-cast:com.example.echo"], handler: EchoHandler())] }
        h.launchMediaReceiver()
        let old = h.transportId
        let out = h.receiver(1, ["type": "LAUNCH", "appId": "ABCD1234", "requestId": 2])
        #expect(out.sent.count == 2)
        #expect(out.sent[0].envelope.namespace == Wire.connection)
        #expect(out.sent[0].envelope.sourceId == old && out.sent[0].envelope.destinationId == "sender-0")
        #expect(out.sent[1].envelope.json?["status"]?["applications"]?[0]?["appId"] == "ABCD1234")
        // The old transport is gone.
        h.send(1, ["type": "GET_STATUS", "requestId": 3], namespace: Wire.media, to: old)
        #expect(h.engine.violations.last?.kind == .notConnected)
    }

    @Test func stopClosesAppConnectionsAndReturnsToIdle() throws {
        var h = EngineHarness()
        h.launchMediaReceiver()
        h.open(2)
        h.connect(2, from: "sender-x")
        h.connect(2, from: "sender-x", to: h.transportId)
        let session = try #require(h.engine.app?.sessionId)
        #expect(h.receiver(1, ["type": "STOP", "sessionId": "nope", "requestId": 4]).json()
            == [["type": "INVALID_REQUEST", "requestId": 4, "reason": "INVALID_SESSION_ID"]])
        let out = h.receiver(1, ["type": "STOP", "sessionId": .string(session), "requestId": 5])
        let closes = out.sent.filter { $0.envelope.namespace == Wire.connection }
        #expect(closes.map(\.socket) == [1, 2])
        #expect(closes.allSatisfy { $0.envelope.sourceId == session && $0.envelope.json == ["type": "CLOSE"] })
        let statuses = out.json(type: "RECEIVER_STATUS")
        #expect(statuses.count == 2)
        #expect(statuses.allSatisfy { $0["requestId"] == 5 && $0["status"]?["applications"]?[0]?["appId"] == "E8C28D3C" })
    }

    @Test func stopOnAudioDeviceLeavesNoApplication() throws {
        var h = EngineHarness { $0.kind = .audio }
        h.launchMediaReceiver()
        let out = h.receiver(1, ["type": "STOP", "requestId": 5])
        #expect(out.json(type: "RECEIVER_STATUS").first?["status"]?["applications"] == nil)
        #expect(h.engine.app == nil)
    }

    @Test func setVolumeClampsAndMutes() throws {
        var h = EngineHarness()
        h.open(1)
        h.connect(1)
        var volume = h.receiver(1, ["type": "SET_VOLUME", "volume": ["level": 1.7], "requestId": 1]).json().first?["status"]?["volume"]
        #expect(volume?["level"] == 1.0)
        volume = h.receiver(1, ["type": "SET_VOLUME", "volume": ["level": -2], "requestId": 2]).json().first?["status"]?["volume"]
        #expect(volume?["level"] == 0.0)
        let out = h.receiver(1, ["type": "SET_VOLUME", "volume": ["muted": true], "requestId": 3])
        #expect(out.json().first?["requestId"] == 3)
        #expect(out.json().first?["status"]?["volume"]?["muted"] == true)
        #expect(out.json().first?["status"]?["volume"]?["level"] == 0.0)
        #expect(h.receiver(1, ["type": "SET_VOLUME", "volume": [:], "requestId": 4]).json()
            == [["type": "INVALID_REQUEST", "requestId": 4, "reason": "INVALID_PARAMS"]])
        #expect(h.receiver(1, ["type": "SET_VOLUME", "volume": ["level": "loud"], "requestId": 5]).json().first?["reason"] == "INVALID_PARAMS")
        #expect(h.receiver(1, ["type": "SET_VOLUME", "requestId": 6]).json().first?["reason"] == "INVALID_PARAMS")
    }

    @Test func fixedVolumeIgnoresLevelChanges() {
        var h = EngineHarness { $0.volumeControl = .fixed }
        h.open(1)
        h.connect(1)
        let volume = h.receiver(1, ["type": "SET_VOLUME", "volume": ["level": 0.9], "requestId": 1]).json().first?["status"]?["volume"]
        #expect(volume?["level"] == 0.5 && volume?["controlType"] == "fixed")
    }

    @Test func appAvailability() {
        var h = EngineHarness()
        h.open(1)
        h.connect(1)
        let out = h.receiver(1, ["type": "GET_APP_AVAILABILITY", "appId": ["CC1AD845", "00000000"], "requestId": 3])
        #expect(out.json() == [[
            "responseType": "GET_APP_AVAILABILITY", "requestId": 3,
            "availability": ["CC1AD845": "APP_AVAILABLE", "00000000": "APP_UNAVAILABLE"],
        ]])
        #expect(h.receiver(1, ["type": "GET_APP_AVAILABILITY", "appId": "CC1AD845", "requestId": 4]).json().first?["reason"] == "INVALID_PARAMS")
    }

    @Test func unknownTypeAndMissingRequestId() {
        var h = EngineHarness()
        h.open(1)
        h.connect(1)
        #expect(h.receiver(1, ["type": "REBOOT", "requestId": 8]).json()
            == [["type": "INVALID_REQUEST", "requestId": 8, "reason": "INVALID_COMMAND"]])
        #expect(h.receiver(1, ["type": "GET_STATUS"]).isEmpty)
        #expect(h.receiver(1, ["type": "LAUNCH", "appId": "CC1AD845"]).isEmpty)
        #expect(h.engine.app?.descriptor.appId == "E8C28D3C")
        // The unknown command is refused (and recorded with the request); requests without requestId are ignored.
        #expect(h.engine.violations.map(\.kind) == [.refusedRequest, .missingRequestId, .missingRequestId])
        #expect(h.engine.violations.first?.request?.contains("REBOOT") == true)
    }

    @Test func malformedPayloadsAreRecorded() {
        var h = EngineHarness()
        h.open(1)
        h.connect(1)
        _ = h.engine.receive(Envelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: Wire.receiver,
                                  payload: .string("{not json")), from: 1, now: h.now)
        _ = h.engine.receive(Envelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: Wire.receiver,
                                  payload: .binary(Data([1, 2]))), from: 1, now: h.now)
        h.receiver(1, ["requestId": 1])
        h.send(1, ["type": "HELLO"], namespace: "urn:x-cast:com.google.cast.tp.bogus")
        h.send(1, ["type": "GET_STATUS", "requestId": 1], namespace: "urn:x-cast:com.example.other")
        #expect(h.engine.violations.map(\.kind) == [.malformedPayload, .malformedPayload, .malformedPayload, .unknownNamespace, .unknownNamespace])
    }

    @Test func invalidFrameClosesOnlyThatSocket() {
        var h = EngineHarness()
        h.open(1)
        h.open(2)
        let out = h.engine.invalidFrame(socket: 2, reason: "frame of 70000 bytes")
        #expect(out.closedSockets == [2])
        #expect(h.engine.sockets.keys.sorted() == [1])
        #expect(h.engine.violations.map(\.kind) == [.invalidFrame])
    }

    @Test func receiverPingsStartAfterFirstMessageAndRepeat() {
        var h = EngineHarness { $0.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(5), silenceTimeout: .seconds(20)) }
        h.open(1)
        #expect(h.advance(by: .seconds(6)).isEmpty)
        h.connect(1)
        #expect(h.engine.nextDeadline == .seconds(11))
        let pings = h.advance(by: .seconds(5))
        #expect(pings.sent.count == 1)
        let ping = pings.sent[0].envelope
        #expect(ping.sourceId == "Tr@n$p0rt-0" && ping.destinationId == "Tr@n$p0rt-0" && ping.json == ["type": "PING"])
        h.send(1, ["type": "PONG"], namespace: Wire.heartbeat, from: "Tr@n$p0rt-0", to: "Tr@n$p0rt-0")
        #expect(h.advance(by: .seconds(5)).json(type: "PING").count == 1)
        #expect(h.engine.violations.isEmpty)
    }

    @Test func silentSocketIsDropped() {
        var h = EngineHarness { $0.heartbeat = EmulatedReceiverHeartbeat(pingInterval: .seconds(5), silenceTimeout: .seconds(20)) }
        h.open(1)
        h.open(2)
        h.connect(1)
        h.connect(2)
        h.advance(by: .seconds(15))
        h.send(2, ["type": "PING"], namespace: Wire.heartbeat)   // socket 2 stays alive
        let out = h.advance(by: .seconds(5))
        #expect(out.closedSockets == [1])
        #expect(h.engine.sockets.keys.sorted() == [2])
        #expect(h.engine.violations.map(\.kind) == [.heartbeatTimeout])
        #expect(h.advance(by: .seconds(14)).closedSockets.isEmpty)
        #expect(h.advance(by: .seconds(1)).closedSockets == [2])
    }

    @Test func multizoneStatusOfGroupAndSingleDevice() throws {
        let member = EmulatedReceiverGroupMember(id: UUID(), name: "Kitchen speaker", volumeLevel: 0.3)
        var group = EngineHarness { $0.kind = .group(members: [member]) }
        group.open(1)
        group.connect(1)
        let status = try #require(group.send(1, ["type": "GET_STATUS", "requestId": 4], namespace: Wire.multizone).json().first)
        #expect(status["type"] == "MULTIZONE_STATUS" && status["requestId"] == 4)
        #expect(status["status"]?["devices"]?[0]?["name"] == "Kitchen speaker")
        #expect(status["status"]?["devices"]?[0]?["deviceId"]?.stringValue == member.id.uuidString.lowercased())
        #expect(status["status"]?["devices"]?[0]?["volume"] == ["level": 0.3, "muted": false])
        #expect(status["status"]?["isMultichannel"] == false)
        let (found, updates) = group.engine.updateMember(id: member.id, level: 0.8, muted: nil)
        #expect(found)
        #expect(updates.json(type: "DEVICE_UPDATED").first?["device"]?["volume"]?["level"] == 0.8)
        #expect(group.engine.updateMember(id: UUID(), level: 0.1, muted: nil).found == false)
        #expect(group.send(1, ["type": "GET_CASTING_GROUPS", "requestId": 5], namespace: Wire.multizone).json().first?["type"] == "CASTING_GROUPS")

        var single = EngineHarness()
        single.open(1)
        single.connect(1)
        #expect(single.send(1, ["type": "GET_STATUS", "requestId": 4], namespace: Wire.multizone).json().first?["status"]?["devices"] == [])
    }

    @Test func customAppHandlerRepliesAndBroadcasts() throws {
        let namespace = "urn:x-cast:com.example.echo"
        var h = EngineHarness { $0.apps = [EmulatedReceiverApp(appId: "ABCD1234", displayName: "Echo", namespaces: [namespace], handler: EchoHandler())] }
        h.open(1)
        h.open(2)
        h.connect(1)
        h.receiver(1, ["type": "LAUNCH", "appId": "ABCD1234", "requestId": 1])
        h.connect(1, to: h.transportId)
        h.connect(2, from: "sender-b", to: h.transportId)
        let out = h.send(1, ["text": "hi"], namespace: namespace, to: h.transportId)
        #expect(out.sent.count == 3)
        #expect(out.sent[0].socket == 1 && out.sent[0].envelope.destinationId == "sender-0")
        #expect(out.sent[0].envelope.json == ["echo": ["text": "hi"]])
        #expect(out.sent[1...].map(\.socket) == [1, 2])
        #expect(out.sent[1...].allSatisfy { $0.envelope.destinationId == "*" && $0.envelope.json == ["seen": "sender-0"] })
        // A namespace the app does not list is dropped.
        h.send(1, ["type": "GET_STATUS", "requestId": 2], namespace: Wire.media, to: h.transportId)
        #expect(h.engine.violations.map(\.kind) == [.unknownNamespace])
    }

    /// An app's own namespaces are matched with `==`, as the engine always did: a sender's spelling that
    /// is canonically equivalent but longer in UTF-8 (`e` + U+0301 for `é`) reaches the app; the
    /// platform's names, matched length first (`Wire.matches`), are not affected (no platform name has a
    /// character whose equivalent ASCII is a different length).
    @Test func appNamespacesAreMatchedAsStringsAre() throws {
        let declared = "urn:x-cast:com.example.caf\u{E9}"
        let spelled = "urn:x-cast:com.example.cafe\u{301}"
        #expect(declared == spelled && declared.utf8.count != spelled.utf8.count)
        var h = EngineHarness { $0.apps = [EmulatedReceiverApp(appId: "ABCD1234", displayName: "Echo", namespaces: [declared], handler: EchoHandler())] }
        h.open(1)
        h.connect(1)
        h.receiver(1, ["type": "LAUNCH", "appId": "ABCD1234", "requestId": 1])
        h.connect(1, to: h.transportId)
        let out = h.send(1, ["text": "hi"], namespace: spelled, to: h.transportId)
        #expect(out.sent.first?.envelope.json == ["echo": ["text": "hi"]])
        #expect(h.engine.violations.isEmpty)
        for name in [Wire.connection, Wire.heartbeat, Wire.deviceAuth, Wire.receiver, Wire.media, Wire.multizone] {
            #expect(name.unicodeScalars.allSatisfy { $0.isASCII && !";`K".unicodeScalars.contains($0) })
        }
    }

    @Test func receiverStatusBroadcastGoesOnlyToPlatformSubscribers() {
        var h = EngineHarness()
        h.open(1)
        h.open(2)
        h.connect(1)
        let out = h.receiver(1, ["type": "SET_VOLUME", "volume": ["level": 0.2], "requestId": 3])
        #expect(out.sent.map(\.socket) == [1])
    }
}

/// Replies `{"echo": <message>}` to the sender and broadcasts `{"seen": <sender id>}`.
struct EchoHandler: EmulatedReceiverAppHandler {
    func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse] {
        [.reply(["echo": message.json ?? .string(message.text)]), .broadcast(["seen": .string(message.senderId)])]
    }
}
