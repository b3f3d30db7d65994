import CastJSON
import CastTransport

extension CastConnection {
    /// Reads until the transport ends, then ends the connection if it was still running.
    func runReadLoop() async {
        do {
            for try await message in transport.inbound {
                await handle(message)
            }
            connectionEnded(cause: transport.closeReason ?? CastTransportError(code: .peerClosed, message: "The device closed the connection"))
        } catch {
            connectionEnded(cause: error)
        }
    }

    func connectionEnded(cause: any Error) {
        guard isRunning else { return }
        let transportError = cause as? CastTransportError
        finish(
            with: CastChannelError(code: .connectionLost, message: "Connection to \(transport.peerDescription) lost: \(cause)", transportError: transportError),
            pluginReason: .connectionLost)
    }

    /// Handles one inbound message, in arrival order.
    func handle(_ message: CastMessage) async {
        let now = timer.elapsed()
        state.withLock { $0.heartbeat.received(at: now) }
        // Only messages meant for this sender: unicast to our id, or a broadcast.
        guard message.destinationId == configuration.senderId || message.destinationId == CastEndpoint.broadcast
            || message.namespace == CastNamespace.heartbeat.rawValue
        else {
            logger.debug("Ignoring message for \(message.destinationId)")
            return
        }
        switch message.namespace {
        case CastNamespace.deviceAuth.rawValue:
            let waiter = state.withLock { state in
                defer { state.deviceAuthReply = nil }
                return state.deviceAuthReply
            }
            waiter?.fulfil(.success(message))
            return
        case CastNamespace.heartbeat.rawValue:
            if message.json?["type"]?.stringValue == "PING" {
                // Answer with the ids swapped, whether the PING came from receiver-0 or Tr@n$p0rt-0.
                try? await transport.send(message.reply(.string(#"{"type":"PONG"}"#)))
            }
            return
        case CastNamespace.connection.rawValue:
            if message.json?["type"]?.stringValue == "CLOSE" {
                await virtualConnectionClosed(by: message.sourceId)
            }
            return
        default:
            break
        }
        let channelMessage = parsedEarly(message) ?? CastChannelMessage(message)
        if channelMessage.namespace == CastNamespace.receiver.rawValue, channelMessage.type == "RECEIVER_STATUS",
            let payload = channelMessage.json
        {
            do {
                let status = try ReceiverStatus(message: payload)
                state.withLock { $0.receiverStatus = status }
                await reconcilePlugins(with: status)
                eventBroadcaster.yield(.receiverStatus(status))
            } catch {
                logger.warning("Malformed RECEIVER_STATUS: \(error)")
            }
        }
        if let (_, entry) = state.withLock({ $0.tracker.match(channelMessage) }) {
            entry.waiter.fulfil(.success(channelMessage))
        }
        deliverToPlugins(channelMessage)
        messageBroadcaster.yield(channelMessage)
    }

    /// Completes the request a reply answers as soon as the transport has decoded it, on its I/O
    /// thread, instead of after the read-loop task has been scheduled: one thread hand-off less for
    /// every command's reply. The message still reaches plugins and listeners through the read loop,
    /// in order. Platform-channel replies (RECEIVER_STATUS) are left to the read loop, which must
    /// record the status before the request returns.
    func completeRequestEarly(with message: CastMessage) {
        guard message.destinationId == configuration.senderId || message.destinationId == CastEndpoint.broadcast,
            case .string = message.payload
        else { return }
        switch message.namespace {
        case CastNamespace.heartbeat.rawValue, CastNamespace.connection.rawValue, CastNamespace.deviceAuth.rawValue,
            CastNamespace.receiver.rawValue:
            return
        default:
            break
        }
        guard state.withLock({ $0.tracker.count }) > 0 else { return }
        let parsed = CastChannelMessage(message)
        let entry = state.withLock { state in
            state.earlyParsed = (message, parsed)
            return state.tracker.match(parsed)?.entry
        }
        entry?.waiter.fulfil(.success(parsed))
    }

    /// The parse ``completeRequestEarly(with:)`` already made of `message`, if any.
    private func parsedEarly(_ message: CastMessage) -> CastChannelMessage? {
        state.withLock { state in
            guard let early = state.earlyParsed, early.message == message else { return nil }
            state.earlyParsed = nil
            return early.parsed
        }
    }

    /// The receiver sent CLOSE for the virtual connection from `endpoint` to us.
    func virtualConnectionClosed(by endpoint: String) async {
        let (slots, entries) = state.withLock { state -> ([PluginSlot], [RequestTracker<ReplyPromise<CastChannelMessage>>.Entry]) in
            state.virtualConnections.remove(endpoint)
            var closed: [PluginSlot] = []
            for (key, slot) in state.plugins where slot.context?.transportId == endpoint {
                closed.append(slot)
                state.plugins[key]?.context = nil
            }
            return (closed, state.tracker.removeAll(destinationId: endpoint))
        }
        let error = CastChannelError(code: .appClosed, message: "\(endpoint) closed the virtual connection")
        for entry in entries { entry.waiter.fulfil(.failure(error)) }
        for slot in slots {
            if let context = slot.context { slot.mailbox.yield(.disconnect(context, .closedByReceiver)) }
        }
        if endpoint != CastEndpoint.platform {
            eventBroadcaster.yield(.appClosed(transportId: endpoint))
        }
    }

    // MARK: - Heartbeat

    /// PINGs on schedule and ends the connection when the receiver falls silent.
    func runHeartbeat() async {
        let ping = CastMessage(
            sourceId: configuration.senderId, destinationId: CastEndpoint.platform,
            namespace: CastNamespace.heartbeat.rawValue, payload: .string(#"{"type":"PING"}"#))
        while !Task.isCancelled {
            let now = timer.elapsed()
            let delay = state.withLock { $0.heartbeat.delayUntilNextTick(at: now) }
            do { try await timer.sleepUntil(now + delay) } catch { return }
            let action = state.withLock { $0.heartbeat.tick(at: timer.elapsed()) }
            switch action {
            case .sendPing:
                try? await transport.send(ping)
            case .declareDead(let silence):
                guard isRunning else { return }
                finish(
                    with: CastChannelError(
                        code: .heartbeatTimeout,
                        message: "No message from \(transport.peerDescription) for \(silence.castDescription): the liveness "
                            + "deadline (\(configuration.livenessTimeout.castDescription)) passed while waiting for any message, "
                            + "our PINGs included; the device or the network path to it is gone"),
                    pluginReason: .connectionLost)
                await transport.close()
                return
            }
        }
    }
}
