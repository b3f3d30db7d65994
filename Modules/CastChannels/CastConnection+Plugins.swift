import CastJSON
import CastTransport

extension CastConnection {
    /// Adds a channel plugin. It connects as soon as its app runs (at once for platform channels
    /// on a started connection); it can be added before or after ``start()``.
    /// - Throws: ``CastChannelError`` `.invalidNamespace` when a plugin for the same namespace and
    ///   endpoint is already added, or the plugin uses a transport namespace.
    public func add(_ plugin: any CastChannelPlugin) async throws(CastChannelError) {
        guard !plugin.namespace.isTransport else {
            throw CastChannelError(code: .invalidNamespace, message: "\(plugin.namespace) is a transport namespace")
        }
        let (stream, mailbox) = AsyncStream<PluginCall>.makeStream()
        let key = ObjectIdentifier(plugin)
        let (added, status, running) = state.withLock { state -> (Bool, ReceiverStatus?, Bool) in
            let clash = state.plugins.values.contains {
                $0.plugin.namespace == plugin.namespace && $0.plugin.endpoint == plugin.endpoint
            }
            guard state.plugins[key] == nil, !clash else { return (false, nil, false) }
            state.plugins[key] = PluginSlot(plugin: plugin, mailbox: mailbox, context: nil)
            if case .running = state.phase { return (true, state.receiverStatus, true) }
            return (true, nil, false)
        }
        guard added else {
            throw CastChannelError(code: .invalidNamespace, message: "A channel for \(plugin.namespace) is already added")
        }
        let consumer = Task { [weak self] in
            for await call in stream {
                switch call {
                case .connect(let context):
                    await plugin.channelDidConnect(context)
                    self?.connectDelivered(key, context: context)
                case .message(let context, let message):
                    await plugin.channel(context, didReceive: message)
                case .disconnect(let context, let reason):
                    self?.state.withLock { state in
                        if state.plugins[key]?.deliveredContext?.transportId == context.transportId {
                            state.plugins[key]?.deliveredContext = nil
                        }
                    }
                    await plugin.channelDidDisconnect(context, reason: reason)
                }
            }
        }
        state.withLock { $0.tasks.append(consumer) }
        guard running else { return }
        if plugin.endpoint == .platform {
            await connectPlatformPlugins()
        } else if let status {
            await reconcilePlugins(with: status)
        }
    }

    /// Removes a plugin; it is told ``CastChannelDisconnectReason/removed`` if it was connected.
    public func remove(_ plugin: any CastChannelPlugin) {
        guard let slot = state.withLock({ $0.plugins.removeValue(forKey: ObjectIdentifier(plugin)) }) else { return }
        if let context = slot.context { slot.mailbox.yield(.disconnect(context, .removed)) }
        slot.mailbox.finish()
    }

    /// The context of a connected plugin, available as soon as the connection has connected it,
    /// even before the plugin's ``CastChannelPlugin/channelDidConnect(_:)`` has run.
    public func context(for plugin: any CastChannelPlugin) -> CastChannelContext? {
        state.withLock { $0.plugins[ObjectIdentifier(plugin)]?.context }
    }

    /// Waits until `plugin` is connected and its ``CastChannelPlugin/channelDidConnect(_:)`` has
    /// returned — for example right after launching the app it talks to.
    /// - Returns: the plugin's context.
    /// - Throws: ``CastChannelError`` `.timeout` (the configured request timeout by default),
    ///   `.notConnected` when the plugin was never added, or the connection's end.
    public func waitUntilConnected(_ plugin: any CastChannelPlugin, timeout: Duration? = nil) async throws(CastChannelError) -> CastChannelContext {
        let key = ObjectIdentifier(plugin)
        let promise = ReplyPromise<CastChannelContext>()
        let ready = try state.withLock { state throws(CastChannelError) -> CastChannelContext? in
            guard case .running = state.phase else {
                if case .closed(let reason) = state.phase, let reason { throw reason }
                if case .idle = state.phase {} else { throw CastChannelError(code: .closed, message: "The connection is closed") }
                return nil
            }
            guard state.plugins[key] != nil else {
                throw CastChannelError(code: .notConnected, message: "\(plugin.namespace) was never added to this connection")
            }
            if let delivered = state.plugins[key]?.deliveredContext { return delivered }
            state.plugins[key]?.connectWaiters.append(promise)
            return nil
        }
        if let ready { return ready }
        let limit = timeout ?? configuration.requestTimeout
        let timer = self.timer
        let deadline = timer.elapsed() + limit
        let namespace = plugin.namespace
        let deadlineTask = Task {
            do { try await timer.sleepUntil(deadline) } catch { return }
            promise.fulfil(.failure(CastChannelError(code: .timeout, message: "\(namespace) did not connect within \(limit)")))
        }
        defer { deadlineTask.cancel() }
        return try await promise.value()
    }

    func connectDelivered(_ key: ObjectIdentifier, context: CastChannelContext) {
        let waiters = state.withLock { state -> [ReplyPromise<CastChannelContext>] in
            guard state.plugins[key]?.context?.transportId == context.transportId else { return [] }
            state.plugins[key]?.deliveredContext = context
            defer { state.plugins[key]?.connectWaiters.removeAll() }
            return state.plugins[key]?.connectWaiters ?? []
        }
        for waiter in waiters { waiter.fulfil(.success(context)) }
    }

    /// Connects every platform plugin that is not yet connected.
    func connectPlatformPlugins() async {
        let pending = state.withLock { state in
            state.plugins.filter { $0.value.plugin.endpoint == .platform && $0.value.context == nil }.map(\.key)
        }
        for key in pending {
            connect(key, transportId: CastEndpoint.platform, sessionId: nil)
        }
    }

    /// Connects plugins whose app is running and disconnects those whose app is gone.
    func reconcilePlugins(with status: ReceiverStatus) async {
        let liveTransports = Set(status.applications.map(\.transportId))
        // Plugins whose app left the status.
        let (gone, goneEndpoints) = state.withLock { state -> ([PluginSlot], Set<String>) in
            var gone: [PluginSlot] = []
            var endpoints: Set<String> = []
            for (key, slot) in state.plugins {
                guard slot.plugin.endpoint == .application, let context = slot.context,
                    !liveTransports.contains(context.transportId)
                else { continue }
                gone.append(slot)
                endpoints.insert(context.transportId)
                state.plugins[key]?.context = nil
            }
            for endpoint in state.virtualConnections where endpoint != CastEndpoint.platform && !liveTransports.contains(endpoint) {
                endpoints.insert(endpoint)
            }
            state.virtualConnections.subtract(endpoints)
            return (gone, endpoints)
        }
        for slot in gone {
            if let context = slot.context { slot.mailbox.yield(.disconnect(context, .appStopped)) }
        }
        for endpoint in goneEndpoints {
            let entries = state.withLock { $0.tracker.removeAll(destinationId: endpoint) }
            let error = CastChannelError(code: .appClosed, message: "The app at \(endpoint) stopped")
            for entry in entries { entry.waiter.fulfil(.failure(error)) }
            eventBroadcaster.yield(.appClosed(transportId: endpoint))
        }
        // Plugins whose app is now running.
        let pending = state.withLock { state in
            state.plugins.filter { $0.value.plugin.endpoint == .application && $0.value.context == nil }
                .map { ($0.key, $0.value.plugin.namespace) }
        }
        for (key, namespace) in pending {
            guard let app = status.applications.first(where: { $0.supports(namespace) }) else { continue }
            do {
                try await ensureVirtualConnection(to: app.transportId)
            } catch {
                logger.warning("Cannot connect \(namespace) to \(app.transportId): \(error)")
                continue
            }
            connect(key, transportId: app.transportId, sessionId: app.sessionId)
        }
    }

    private func connect(_ key: ObjectIdentifier, transportId: String, sessionId: String?) {
        let slot: PluginSlot? = state.withLock { state in
            guard var slot = state.plugins[key], slot.context == nil else { return nil }
            let context = CastChannelContext(
                namespace: slot.plugin.namespace, transportId: transportId, sessionId: sessionId,
                senderId: configuration.senderId, connection: self)
            slot.context = context
            state.plugins[key] = slot
            return slot
        }
        if let slot, let context = slot.context { slot.mailbox.yield(.connect(context)) }
    }

    /// Hands a message to the plugins connected to its namespace and source.
    func deliverToPlugins(_ message: CastChannelMessage) {
        let targets = state.withLock { state in
            state.plugins.values.filter {
                $0.plugin.namespace.rawValue == message.namespace && $0.context?.transportId == message.sourceId
            }
        }
        for slot in targets {
            if let context = slot.context { slot.mailbox.yield(.message(context, message)) }
        }
    }
}
