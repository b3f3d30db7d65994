import CastJSON
import CastCore
import Synchronization

extension CastConnection {
    /// Adds a channel plugin. It connects as soon as its app runs (at once for platform channels
    /// on a started connection); it can be added before or after ``start()``.
    /// - Throws: ``CastChannelError`` `.invalidNamespace` when a plugin for the same namespace and
    ///   endpoint is already added, or the plugin uses a transport namespace; the connection's end
    ///   (`.closed`, or why it ended) when it has ended.
    public func add(_ plugin: any CastChannelPlugin) async throws(CastChannelError) {
        guard !plugin.namespace.isTransport else {
            throw CastChannelError(code: .invalidNamespace, message: "\(plugin.namespace) is a transport namespace")
        }
        let (stream, mailbox) = AsyncStream<PluginCall>.makeStream()
        let key = ObjectIdentifier(plugin)
        let backlog = PluginBacklog()
        let fastPath = plugin as? any CastConnectionThreadPlugin
        let executor = fastPath?.runsOnConnectionThread == true ? transport.taskExecutor : nil
        let handle = PluginHandle(key: key, plugin: plugin, namespace: plugin.namespace, mailbox: mailbox, backlog: backlog,
                                  fastPath: fastPath, takesMessagesNow: executor != nil)
        var refusal: CastChannelError?
        var generation = 0
        let actions = machine { machine in
            do throws(CastChannelError) {
                let actions = try machine.add(handle, key: key, namespace: plugin.namespace.rawValue, endpoint: plugin.endpoint)
                generation = machine.generation(of: key) ?? 0
                return actions
            } catch {
                refusal = error
                return []
            }
        }
        if let refusal { throw refusal }
        let consumer = Task(executorPreference: executor) { [weak self] in
            for await call in stream {
                switch call {
                case .connect(let context):
                    await plugin.channelDidConnect(context)
                    self?.connectDelivered(key, generation: generation, context: context)
                case .message(let context, let message):
                    await plugin.channel(context, didReceive: message)
                    backlog.taken()
                case .disconnect(let context, let reason):
                    self?.state.withLock {
                        $0.machine.disconnectDelivered(key: key, generation: generation, link: Self.link(of: context))
                    }
                    await plugin.channelDidDisconnect(context, reason: reason)
                }
                backlog.finished()
            }
        }
        state.withLock { $0.consumers.append(consumer) }
        perform(actions)
    }

    /// Removes a plugin; it is told ``CastChannelDisconnectReason/removed`` if it was connected, and
    /// ``waitUntilConnected(_:timeout:)`` for it fails with `.notConnected`.
    public func remove(_ plugin: any CastChannelPlugin) {
        perform(machine { $0.remove(key: ObjectIdentifier(plugin)) })
    }

    /// The context of a connected plugin, available as soon as the connection has connected it,
    /// even before the plugin's ``CastChannelPlugin/channelDidConnect(_:)`` has run.
    public func context(for plugin: any CastChannelPlugin) -> CastChannelContext? {
        guard let link = state.withLock({ $0.machine.link(for: ObjectIdentifier(plugin)) }) else { return nil }
        return CastChannelContext(
            namespace: plugin.namespace, transportId: link.transportId, sessionId: link.sessionId,
            senderId: configuration.senderId, connection: self)
    }

    /// Waits until `plugin` is connected and its ``CastChannelPlugin/channelDidConnect(_:)`` has
    /// returned — for example right after launching the app it talks to.
    /// - Returns: the plugin's context.
    /// - Throws: ``CastChannelError`` `.timeout` (the configured request timeout by default),
    ///   `.notConnected` when the plugin was never added, or the connection's end.
    public func waitUntilConnected(_ plugin: any CastChannelPlugin, timeout: Duration? = nil) async throws(CastChannelError) -> CastChannelContext {
        let key = ObjectIdentifier(plugin)
        let promise = ReplyPromise<CastChannelContext>()
        let ready = try state.withLock { state throws(CastChannelError) in
            try state.machine.waitUntilConnected(key: key, namespace: plugin.namespace.rawValue, waiter: promise)
        }
        if let ready {
            return CastChannelContext(
                namespace: plugin.namespace, transportId: ready.transportId, sessionId: ready.sessionId,
                senderId: configuration.senderId, connection: self)
        }
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

    /// Waits until every plugin has been told this connection ended: each plugin's mailbox
    /// finishes when the connection closes or is lost (or the plugin is removed), and its task
    /// ends once ``CastChannelPlugin/channelDidDisconnect(_:reason:)`` has returned.
    ///
    /// Plugins that outlive a connection (a session's media channel, reconnected on a new
    /// connection) await this so that the old connection's disconnect cannot reach them after the
    /// new connection's connect. Await it too after ``close()`` before shutting down an event loop
    /// group of your own: a plugin that runs on the connection's thread
    /// (``CastConnectionThreadPlugin/runsOnConnectionThread``) is told of the end on that loop.
    /// - Parameter timeout: the longest wait.
    /// - Returns: `false` when `timeout` passed first (a plugin is still in its callbacks).
    public func waitUntilPluginsDisconnected(timeout: Duration) async -> Bool {
        let consumers = state.withLock { $0.consumers }
        let done = ReplyPromise<Bool>()
        let timer = self.timer
        let deadline = timer.elapsed() + timeout
        let watchdog = Task {
            do { try await timer.sleepUntil(deadline) } catch { return }
            done.fulfil(.success(false))
        }
        let drain = Task {
            for consumer in consumers { await consumer.value }
            done.fulfil(.success(true))
        }
        defer {
            watchdog.cancel()
            drain.cancel()
        }
        return (try? await done.value()) ?? false
    }

    func connectDelivered(_ key: ObjectIdentifier, generation: Int, context: CastChannelContext) {
        perform(machine { $0.connectDelivered(key: key, generation: generation, link: Self.link(of: context)) })
    }

    static func link(of context: CastChannelContext) -> Machine.Link {
        Machine.Link(transportId: context.transportId, sessionId: context.sessionId)
    }
}
