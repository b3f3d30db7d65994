public import CastChannels

extension Cast {
    /// Adds a custom channel plugin to the session: to the current session at once, and to every later
    /// session and every reconnected connection, until ``remove(_:)``.
    ///
    /// The plugin is the same kind a `CastConnection` takes (one type conforming to
    /// `CastChannelPlugin`; the plugin kit's `CastChannelLink` and `CastBroadcaster` do its
    /// bookkeeping). An application-channel plugin connects when the session's receiver app lists its
    /// namespace; a platform-channel plugin as soon as the connection is up. Adding a plugin twice does
    /// nothing.
    ///
    /// ```swift
    /// let cast = Cast()
    /// let score = ScoreChannel()
    /// try await cast.add(score)
    /// try await cast.startSession(with: device)
    /// ```
    ///
    /// - Throws: ``CastError`` ``CastError/Code/invalidArgument`` for a transport namespace, or a
    ///   namespace and endpoint another plugin of the session (yours or a built-in one) already speaks.
    public func add(_ plugin: any CastChannelPlugin) async throws(CastError) {
        guard !plugin.namespace.isTransport else {
            throw CastError(code: .invalidArgument, message: "\(plugin.namespace) is a transport namespace; a plugin cannot speak it")
        }
        let outcome = state.withLock { state -> Result<SessionLink?, CastError> in
            if state.plugins.contains(where: { $0 === plugin }) { return .success(nil) }
            if state.plugins.contains(where: { $0.namespace == plugin.namespace && $0.endpoint == plugin.endpoint }) {
                return .failure(CastError(code: .invalidArgument,
                                          message: "Another plugin already speaks \(plugin.namespace) on the session"))
            }
            state.plugins.append(plugin)
            return .success(state.link)
        }
        let link = try outcome.get()
        do {
            try await link?.add(plugin)
        } catch {
            state.withLock { $0.plugins.removeAll { $0 === plugin } }
            let code: CastError.Code = error.code == .invalidNamespace ? .invalidArgument : .connectionLost
            throw CastError(code: code, message: "Adding the \(plugin.namespace) channel: \(error.message)", cause: error)
        }
    }

    /// Removes a plugin added with ``add(_:)``: it disconnects with
    /// `CastChannelDisconnectReason.removed` and is not added to later sessions.
    public func remove(_ plugin: any CastChannelPlugin) {
        let link = state.withLock { state -> SessionLink? in
            state.plugins.removeAll { $0 === plugin }
            return state.link
        }
        link?.remove(plugin)
    }

    /// The custom channel plugins added with ``add(_:)``.
    public var plugins: [any CastChannelPlugin] { state.withLock { $0.plugins } }
}
