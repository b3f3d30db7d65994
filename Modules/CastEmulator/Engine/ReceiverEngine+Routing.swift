import CastJSON

extension ReceiverEngine {
    /// Handles one message a sender's socket delivered at `now`.
    mutating func receive(_ message: Envelope, from socket: Int, now: Duration) -> [ReceiverAction] {
        runTimersBeforeInput(now: now)
        exactRequestId = nil
        defer { exactRequestId = nil }
        // In place, found once: copying the socket's state out and storing it back hashed the socket twice.
        guard let slot = sockets.index(forKey: socket) else { return drain() }
        sockets.values[slot].noteInbound(
            at: now, startsHeartbeat: !Wire.matches(message.namespace, Wire.deviceAuth), pingInterval: settings.heartbeat.pingInterval)

        let namespace = message.namespace
        if Wire.matches(namespace, Wire.heartbeat) {
            handleHeartbeat(message, socket: socket)
        } else if Wire.matches(namespace, Wire.connection) {
            handleConnection(message, socket: socket)
        } else if Wire.matches(namespace, Wire.deviceAuth) {
            handleDeviceAuth(message, socket: socket, now: now)
        } else if namespace.hasPrefix(Wire.transportPrefix) {
            record(.unknownNamespace, "unknown transport namespace; dropped", socket: socket, envelope: message)
        } else {
            route(message, socket: socket, now: now)
        }
        return drain()
    }

    /// A command may have moved playback to an instant that is already due (a SEEK to the end).
    mutating func advanceMediaIfDue(now: Duration) {
        // Checked and advanced in place: copying the running app (or its player) out and back costs
        // more than the check, and every request makes it twice (the timers before the request, and
        // here after it).
        guard let due = mediaDeadline, due <= now, let follow = app?.media?.advance(to: now),
            let address = app?.address
        else { return }
        deliver(follow, from: address, namespace: Wire.media, requester: nil)
    }

    mutating func runTimersBeforeInput(now: Duration) {
        let due = tick(now: now)
        actions = due
    }

    /// A JSON object with a string `type`, or a recorded violation.
    mutating func parseTyped(_ message: Envelope, socket: Int) -> (type: String, fields: RequestFields)? {
        guard case .string(let text) = message.payload else {
            record(.malformedPayload, "binary payload on a JSON namespace; dropped", socket: socket, envelope: message)
            return nil
        }
        // Read from the text without a dictionary: routing and the command look members up a few times each.
        guard let fields = RequestFields.object(inJSON: text), let type = fields["type"]?.stringValue else {
            record(.malformedPayload, "payload is not a JSON object with a string \"type\"; dropped", socket: socket, envelope: message)
            return nil
        }
        return (type, fields)
    }

    /// The `requestId` of a request, or a recorded violation (real devices ignore such requests).
    ///
    /// Any integer `Int` holds is accepted, 64-bit ids included: one past ±2^53 is read from its digits
    /// and kept in ``exactRequestId``, so that the replies carry it exactly.
    mutating func requestId(_ fields: RequestFields, _ message: Envelope, socket: Int) -> Int? {
        guard let id = fields.exactRequestId ?? fields["requestId"].flatMap(Lenient.int) else {
            record(.missingRequestId, "request without an integer requestId; ignored", socket: socket, envelope: message)
            return nil
        }
        if id.magnitude > 1 << 53 { exactRequestId = id }
        return id
    }

    // MARK: Heartbeat

    private mutating func handleHeartbeat(_ message: Envelope, socket: Int) {
        guard let (type, _) = parseTyped(message, socket: socket) else { return }
        switch type {
        case "PING":
            actions.append(send(["type": "PONG"], from: message.destinationId, to: message.sourceId,
                                namespace: Wire.heartbeat, socket: socket))
        case "PONG":
            break
        default:
            record(.unexpectedMessage, "heartbeat message of type \(type); dropped", socket: socket, envelope: message)
        }
    }

    // MARK: Virtual connections

    private mutating func handleConnection(_ message: Envelope, socket: Int) {
        guard let (type, fields) = parseTyped(message, socket: socket) else { return }
        let connection = VirtualConnection(local: message.destinationId, peer: message.sourceId)
        switch type {
        case "CONNECT":
            if message.sourceId == Wire.broadcastId || message.destinationId == Wire.broadcastId {
                record(.invalidConnect, "CONNECT with a wildcard id; ignored", socket: socket, envelope: message)
                return
            }
            let isKnownEndpoint = message.destinationId == Wire.platformId || message.destinationId == app?.transportId
            let connType = fields["connType"]
            let validType = connType == nil || connType.flatMap(\.intValue).map { (0...2).contains($0) } == true
            guard isKnownEndpoint, validType else {
                record(.invalidConnect,
                       isKnownEndpoint ? "CONNECT with an invalid connType; closed" : "CONNECT to an endpoint that does not exist; closed",
                       socket: socket, envelope: message)
                actions.append(send(["type": "CLOSE"], from: message.destinationId, to: message.sourceId,
                                    namespace: Wire.connection, socket: socket))
                return
            }
            let limit = settings.maximumVirtualConnections
            if let state = sockets[socket], state.connections[connection] == nil, state.connections.count >= limit {
                refuseConnect(message, socket: socket, limit: limit)
                return
            }
            sockets[socket]?.connections[connection] = .object(fields.members)
            if let version = negotiatedVersion(fields) {
                actions.append(send(["type": "CONNECTED", "protocolVersion": JSONValue(version)],
                                    from: message.destinationId, to: message.sourceId,
                                    namespace: Wire.connection, socket: socket))
            }
        case "CLOSE":
            sockets[socket]?.connections[connection] = nil
        default:
            record(.unexpectedMessage, "connection message of type \(type); dropped", socket: socket, envelope: message)
        }
    }

    /// A CONNECT past the socket's limit of virtual connections: answered CLOSE and recorded; a socket
    /// that keeps trying (as many refusals as the limit) is closed, so a flood of CONNECTs with new ids
    /// costs a bounded amount of work and no memory.
    private mutating func refuseConnect(_ message: Envelope, socket: Int, limit: Int) {
        sockets[socket]?.refusedConnects += 1
        let refused = sockets[socket]?.refusedConnects ?? 0
        record(.tooManyVirtualConnections,
               "CONNECT past the limit of \(limit) virtual connections per socket; closed" + (refused >= limit ? ", and the socket too" : ""),
               socket: socket, envelope: message)
        actions.append(send(["type": "CLOSE"], from: message.destinationId, to: message.sourceId,
                            namespace: Wire.connection, socket: socket))
        guard refused >= limit else { return }
        sockets[socket] = nil
        actions.append(.close(socket: socket, reason: "\(EmulatedReceiverViolation.Kind.tooManyVirtualConnections): "
            + "\(refused) CONNECTs past the limit of \(limit) virtual connections"))
    }

    /// The highest protocol version (0…3) offered by a CONNECT, when it offers any.
    private func negotiatedVersion(_ fields: RequestFields) -> Int? {
        var offered: [Int] = []
        if let single = fields["protocolVersion"]?.intValue { offered.append(single) }
        if let list = fields["protocolVersionList"]?.arrayValue { offered += list.compactMap(\.intValue) }
        guard fields.has("protocolVersion") || fields.has("protocolVersionList") else { return nil }
        return offered.filter { (0...3).contains($0) }.max() ?? 0
    }

    // MARK: Application namespaces

    private mutating func route(_ message: Envelope, socket: Int, now: Duration) {
        guard sockets[socket]?.isConnected(local: message.destinationId, peer: message.sourceId) == true else {
            record(.notConnected, "message on a virtual connection that was never opened with CONNECT; dropped",
                   socket: socket, envelope: message)
            return
        }
        if message.destinationId == Wire.platformId {
            if Wire.matches(message.namespace, Wire.receiver) {
                handleReceiver(message, socket: socket, now: now)
            } else if Wire.matches(message.namespace, Wire.multizone) {
                handleMultizone(message, socket: socket)
            } else {
                record(.unknownNamespace, "receiver-0 does not listen on this namespace; dropped", socket: socket, envelope: message)
            }
            return
        }
        guard let running = app?.address, running.transportId == message.destinationId else {
            record(.notConnected, "the destination app is no longer running; dropped", socket: socket, envelope: message)
            return
        }
        // The app's namespaces are its own (`EmulatedReceiverApp.namespaces`), so `==` decides. A first pass
        // with `Wire.matches` (whose yes is always `==`'s yes) finds a shared platform name by its bits
        // without reading the names it passes over; only when it finds none does `==` read them.
        let namespaces = app!.descriptor.namespaces
        guard namespaces.contains(where: { Wire.matches(message.namespace, $0) }) || namespaces.contains(message.namespace) else {
            record(.unknownNamespace, "the app does not listen on this namespace; dropped", socket: socket, envelope: message)
            return
        }
        switch app!.descriptor.behaviour {
        case .mediaReceiver where Wire.matches(message.namespace, Wire.media):
            guard app?.media != nil, let (type, fields) = parseTyped(message, socket: socket),
                let requestId = requestId(fields, message, socket: socket)
            else { return }
            // An item no MEDIA_STATUS could report whole is refused before anything changes.
            if let problem = MediaStatusFit.refusal(of: type, request: fields) {
                var failure = RequestFailure.invalidParams
                failure.extra["customData"] = ["message": .string("\(type) refused: \(problem)")]
                record(.refusedRequest, "answered INVALID_REQUEST (INVALID_PARAMS): \(problem)", socket: socket, envelope: message)
                actions.append(send(failure.message(requestId: requestId), from: running.transportId, to: message.sourceId,
                                    namespace: Wire.media, socket: socket))
                return
            }
            app!.media!.replyDestinationLength = message.sourceId.utf8.count
            // In place: the player is most of the running app, and copying it out and back cost every
            // command a few thousand instructions.
            let outputs = app!.media!.handle(type: type, request: fields, requestId: requestId, now: now)
            recordRefusals(outputs, for: message, socket: socket)
            deliver(outputs, from: running, namespace: Wire.media, requester: (socket, message.sourceId))
            advanceMediaIfDue(now: now)
        case .custom(let handler):
            guard case .string(let text) = message.payload else {
                record(.malformedPayload, "binary payload on an app namespace; dropped", socket: socket, envelope: message)
                return
            }
            let incoming = EmulatedReceiverAppMessage(
                namespace: message.namespace, senderId: message.sourceId, sessionId: running.sessionId, text: text)
            for response in handler.handle(incoming) {
                let namespace = response.namespace ?? message.namespace
                switch response.audience {
                case .sender:
                    actions.append(.send(socket: socket, Envelope(
                        sourceId: running.transportId, destinationId: message.sourceId, namespace: namespace,
                        payload: .string(Self.carryingRequestId(response.text, of: incoming)))))
                case .everyone:
                    let envelope = Envelope(sourceId: running.transportId, destinationId: Wire.broadcastId,
                                            namespace: namespace, payload: .string(response.text))
                    for target in sockets.keys.sorted()
                    where sockets[target]!.connections.keys.contains(where: { $0.local == running.transportId }) {
                        actions.append(.send(socket: target, envelope))
                    }
                }
            }
        case .mirroring:
            handleMirroringMessage(message, socket: socket, now: now)
        case .mediaReceiver, .idleScreen:
            // Namespaces real apps list but never answer (cac, debugoverlay, sse): accepted, no reply.
            break
        }
    }

    /// A reply to a request carries the request's `requestId`: when the request is a JSON object with
    /// a `requestId` and the reply a JSON object without one, the id is added (senders match replies
    /// by it and would otherwise wait for their timeout).
    /// A `requestId` past 2^53 is carried with all its digits, read again from the request's text.
    static func carryingRequestId(_ reply: String, of request: EmulatedReceiverAppMessage) -> String {
        guard let requestId = request.json?["requestId"], requestId != .null,
            case .object(var members) = (try? JSONValue(parsing: reply)) ?? .null, members["requestId"] == nil
        else { return reply }
        members["requestId"] = requestId
        if case .number(let number) = requestId, number.magnitude > 0x1p53,
            let exact = RequestFields.object(inJSON: request.text)?.exactRequestId
        {
            return JSONValue.object(members).serialized(settingInteger: "requestId", to: exact)
        }
        return JSONValue.object(members).serialized()
    }
}
