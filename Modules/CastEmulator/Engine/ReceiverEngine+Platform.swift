import Foundation
import CastJSON

extension ReceiverEngine {
    // MARK: RECEIVER_STATUS

    /// The `status` object of RECEIVER_STATUS (§3.4): `applications` only while an app runs.
    var receiverStatusBody: JSONValue {
        var status: [String: JSONValue] = [
            "isActiveInput": true, "isStandBy": false, "userEq": [:],
            "volume": [
                "controlType": .string(settings.volumeControl.rawValue), "level": JSONValue(volumeLevel),
                "muted": JSONValue(isMuted), "stepInterval": 0.05,
            ],
        ]
        if let app {
            let connected = sockets.values.contains { $0.connections.keys.contains { $0.local == app.transportId } }
            status["applications"] = [[
                "appId": .string(app.descriptor.appId), "universalAppId": .string(app.descriptor.appId),
                "appType": "WEB", "displayName": .string(app.descriptor.displayName),
                "statusText": .string(app.descriptor.statusText), "iconUrl": "",
                "isIdleScreen": JSONValue(app.descriptor.isIdleScreen), "launchedFromCloud": false,
                "senderConnected": JSONValue(connected),
                "namespaces": .array(app.descriptor.namespaces.map { ["name": .string($0)] }),
                "sessionId": .string(app.sessionId), "transportId": .string(app.transportId),
            ]]
        }
        return .object(status)
    }

    func receiverStatus(requestId: Int) -> JSONValue {
        ["type": "RECEIVER_STATUS", "requestId": JSONValue(requestId), "status": receiverStatusBody]
    }

    mutating func broadcastReceiverStatus(requestId: Int) {
        broadcast(receiverStatus(requestId: requestId), from: Wire.platformId, namespace: Wire.receiver)
    }

    // MARK: Receiver namespace

    mutating func handleReceiver(_ message: Envelope, socket: Int, now: Duration) {
        guard let (type, fields) = parseTyped(message, socket: socket),
            let requestId = requestId(fields, message, socket: socket)
        else { return }
        let exact = exactRequestId
        let reply = { (json: JSONValue) -> ReceiverAction in
            .send(socket: socket, Envelope(sourceId: Wire.platformId, destinationId: message.sourceId,
                                           namespace: Wire.receiver, payload: .string(Self.replyText(json, exactRequestId: exact))))
        }
        do throws(RequestFailure) {
            switch type {
            case "GET_STATUS":
                actions.append(reply(receiverStatus(requestId: requestId)))
            case "LAUNCH":
                try launch(fields, requestId: requestId)
            case "STOP":
                try stop(fields, requestId: requestId)
            case "SET_VOLUME":
                try setVolume(fields, requestId: requestId)
            case "GET_APP_AVAILABILITY":
                guard let ids = try fields.stringArray("appId") else { throw .invalidParams }
                let apps = availableApps
                var availability: [String: JSONValue] = [:]
                for id in ids { availability[id] = apps[id] == nil ? "APP_UNAVAILABLE" : "APP_AVAILABLE" }
                actions.append(reply([
                    "responseType": "GET_APP_AVAILABILITY", "requestId": JSONValue(requestId),
                    "availability": .object(availability),
                ]))
            default:
                throw .invalidCommand
            }
        } catch {
            let reason = error.reason.map { " (\($0))" } ?? ""
            record(.refusedRequest, "answered \(error.type)\(reason)", socket: socket, envelope: message)
            actions.append(reply(error.message(requestId: requestId)))
        }
    }

    private mutating func launch(_ fields: RequestFields, requestId: Int) throws(RequestFailure) {
        guard let appId = fields["appId"]?.stringValue, !appId.isEmpty else {
            throw RequestFailure(type: "LAUNCH_ERROR", reason: "BAD_PARAMETER")
        }
        guard (try? fields.object("appParams")) != nil || !fields.has("appParams") else {
            throw RequestFailure(type: "LAUNCH_ERROR", reason: "BAD_PARAMETER")
        }
        guard let descriptor = availableApps[appId] else {
            throw RequestFailure(type: "LAUNCH_ERROR", reason: "NOT_FOUND")
        }
        if app?.descriptor.appId != appId {
            stopRunningApp()
            app = launchInstance(of: descriptor)
            if case .mirroring = descriptor.behaviour, let session = app?.sessionId {
                actions.append(.openStreamingPort(appSessionId: session, port: settings.mirroring.port))
            }
        }
        broadcastReceiverStatus(requestId: requestId)
    }

    private mutating func stop(_ fields: RequestFields, requestId: Int) throws(RequestFailure) {
        let sessionId = try fields.string("sessionId")
        if let sessionId, sessionId != app?.sessionId { throw .invalidRequest("INVALID_SESSION_ID") }
        if let running = app, !running.descriptor.isIdleScreen {
            stopRunningApp()
            if let idle = idleApp { app = launchInstance(of: idle) }
        }
        broadcastReceiverStatus(requestId: requestId)
    }

    /// Stops the running app: CLOSE from its transport to every sender connected to it.
    mutating func stopRunningApp() {
        guard let running = app else { return }
        if var mirroring = running.mirroring {
            mirroring.end("the app stopped")
            if let session = mirroring.snapshot { actions.append(.mirroring(.ended(session))) }
            actions.append(.closeStreamingPort)
        }
        for socket in sockets.keys.sorted() {
            guard var state = sockets[socket] else { continue }
            for connection in state.connections.keys.sorted(by: { $0.peer < $1.peer }) where connection.local == running.transportId {
                actions.append(send(["type": "CLOSE"], from: running.transportId, to: connection.peer,
                                    namespace: Wire.connection, socket: socket))
                state.connections[connection] = nil
            }
            sockets[socket] = state
        }
        app = nil
    }

    private mutating func setVolume(_ fields: RequestFields, requestId: Int) throws(RequestFailure) {
        guard let volume = try fields.object("volume") else { throw .invalidParams }
        let typed = RequestFields(volume)
        let level = try typed.number("level")
        let muted = try typed.bool("muted")
        guard level != nil || muted != nil else { throw .invalidParams }
        if let level, settings.volumeControl != .fixed { volumeLevel = min(1, max(0, level)) }
        if let muted { isMuted = muted }
        broadcastReceiverStatus(requestId: requestId)
    }

    // MARK: Multizone

    func multizoneStatus(requestId: Int) -> JSONValue {
        ["type": "MULTIZONE_STATUS", "requestId": JSONValue(requestId),
         "status": ["devices": .array(members.map(\.json)), "isMultichannel": false]]
    }

    mutating func handleMultizone(_ message: Envelope, socket: Int) {
        guard let (type, fields) = parseTyped(message, socket: socket),
            let requestId = requestId(fields, message, socket: socket)
        else { return }
        let json: JSONValue
        switch type {
        case "GET_STATUS": json = multizoneStatus(requestId: requestId)
        case "GET_CASTING_GROUPS":
            json = ["type": "CASTING_GROUPS", "requestId": JSONValue(requestId), "status": ["groups": []]]
        default:
            json = RequestFailure.invalidCommand.message(requestId: requestId)
            record(.refusedRequest, "answered INVALID_REQUEST (INVALID_COMMAND)", socket: socket, envelope: message)
        }
        actions.append(send(json, from: Wire.platformId, to: message.sourceId, namespace: Wire.multizone, socket: socket))
    }

    /// Changes a group member's volume (as if set on the speaker) and broadcasts DEVICE_UPDATED.
    /// Returns `false` when no member has that id.
    mutating func updateMember(id: UUID, level: Double?, muted: Bool?) -> (found: Bool, actions: [ReceiverAction]) {
        guard let index = members.firstIndex(where: { $0.id == id }) else { return (false, drain()) }
        if let level { members[index].volumeLevel = min(1, max(0, level)) }
        if let muted { members[index].isMuted = muted }
        broadcast(["type": "DEVICE_UPDATED", "requestId": 0, "device": members[index].json],
                  from: Wire.platformId, namespace: Wire.multizone)
        return (true, drain())
    }
}
