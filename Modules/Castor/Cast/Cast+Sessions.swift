public import CastDiscoveryCore

extension Cast {
    /// Starts a session with `device` and waits until it is up.
    ///
    /// - If a session with another device exists, this is a switch: the receiver's queue, position
    ///   and settings are captured as a ``CastResumeState``, the old session ends (without telling
    ///   the delegate), and the state is loaded on the new device.
    /// - Otherwise the ``castable`` is asked for local state to hand over, then the ``delegate`` is told.
    /// - If the receiver already runs the configured app (another sender's session), it is joined
    ///   rather than relaunched.
    /// - Throws: ``CastError`` `.deviceUnreachable`, `.launchFailed`, `.timeout`...; the current
    ///   device is `nil` afterwards.
    public func startSession(with device: CastDevice) async throws(CastError) {
        try await startSession(with: device, resumingSessionId: nil)
    }

    /// Rejoins a remembered session (see ``sessionInfo``) at start-up if the receiver still runs it.
    /// - Throws: ``CastError`` `.sessionEnded` when the receiver no longer runs it (nothing else is started).
    public func resumeSession(_ info: CastSessionInfo, on device: CastDevice) async throws(CastError) {
        guard device.id.description == info.deviceId else {
            throw CastError(code: .invalidArgument, message: "Session \(info.sessionId) belongs to device \(info.deviceId), not \(device.id)")
        }
        try await startSession(with: device, resumingSessionId: info.sessionId)
    }

    /// Joins the media session another sender started on `device`, without ever launching an app.
    ///
    /// Connects, then waits, connected, until the receiver runs the configured app or any other app
    /// with the media namespace (whoever started it), and joins it. Once joined, the session
    /// behaves like one from ``startSession(with:)``: it reconnects by the configured policy, and it
    /// ends when the receiver stops the app. This is how a program that only follows a device (a
    /// desktop media-controls bridge, a status bar) attaches to it. The ``castable`` is not asked
    /// for local state, and the ``delegate`` is told when the session starts.
    /// - Throws: ``CastError`` `.deviceUnreachable` when the device cannot be reached, `.connectionLost`
    ///   when the connection drops while waiting, `.cancelled` when the task is cancelled.
    public func joinSession(with device: CastDevice) async throws(CastError) {
        try await startSession(with: device, resumingSessionId: nil, waitingForMediaApp: true)
    }

    func startSession(with device: CastDevice, resumingSessionId: String?, waitingForMediaApp: Bool = false) async throws(CastError) {
        await gate.enter()
        defer { gate.leave() }
        if let current = state.withLock({ $0.link }) {
            if current.device.id == device.id { return }
            // A switch: carry the queue over.
            let resume = await state.withLock({ $0.player })?.resumeState()
            state.withLock { $0.switchState = resume }
            await tearDown(stopApp: configuration.stopsReceiverAppOnEnd, notify: false)
        }
        let configuration = self.configuration
        state.withLock { state in
            state.currentDevice = device
            state.connectionState = .connecting
        }
        changed(\.currentDevice)
        changed(\.connectionState)
        // A reconnect looks the device up again by id in what discovery lists now, so a device
        // that came back at a new address or port is reached there.
        let link = SessionLink(device: device, configuration: configuration, clock: clock, connector: connector,
                               locate: { [weak self] id in self?.state.withLock { $0.devices.first { $0.id == id } } },
                               networkMonitor: networkMonitor, logger: logger, plugins: state.withLock { $0.plugins })
        let joined: Bool
        do {
            joined = try await link.open(resumingSessionId: resumingSessionId, waitingForMediaApp: waitingForMediaApp)
        } catch {
            state.withLock { state in
                state.currentDevice = nil
                state.connectionState = .disconnected
                state.switchState = nil
            }
            changed(\.currentDevice)
            changed(\.connectionState)
            throw error
        }
        let player = CastPlayer(media: link.media, queue: link.queue, configuration: configuration)
        let info = link.app.map { CastSessionInfo(deviceId: device.id.description, sessionId: $0.sessionId, appId: $0.appId) }
        let switchState = state.withLock { state in
            state.link = link
            state.player = player
            state.connectionState = .connected
            state.sessionInfo = info
            defer { state.switchState = nil }
            return state.switchState
        }
        changed(\.player)
        changed(\.connectionState)
        changed(\.sessionInfo)
        changed(\.multizoneDevices)
        follow(link)
        broadcaster.yield(.started(device))
        if let switchState {
            do { try await player.resume(from: switchState) } catch { logger.warning("Resuming on \(device.friendlyName) failed: \(error)") }
            return
        }
        if !joined, let local = castable?.castStartSession() {
            do { try await player.resume(from: local) } catch { logger.warning("Handing local playback over failed: \(error)") }
        }
        delegate?.castStartSession()
    }

    /// Ends the session: captures the receiver's state (when a ``delegate`` or ``castable`` is set
    /// to receive it), stops the receiver app (when ``CastConfiguration/stopsReceiverAppOnEnd``),
    /// disconnects, and hands the state to the ``delegate`` and then the ``castable``. Does nothing
    /// without a session.
    public func endSession() async {
        await endSession(stoppingReceiverApp: configuration.stopsReceiverAppOnEnd)
    }

    /// Ends the session like ``endSession()``, stopping the receiver app or not whatever
    /// ``CastConfiguration/stopsReceiverAppOnEnd`` says (a "quit" that must stop what plays, or a
    /// "leave" that must not).
    public func endSession(stoppingReceiverApp: Bool) async {
        await gate.enter()
        defer { gate.leave() }
        let hadSession = state.withLock { $0.link != nil }
        await tearDown(stopApp: stoppingReceiverApp, notify: true)
        if hadSession { broadcaster.yield(.ended(nil)) }
    }

    /// Ends the current session. With `notify`, the delegate and castable get the resume state.
    func tearDown(stopApp: Bool, notify: Bool) async {
        guard let (link, player) = state.withLock({ state in state.link.map { ($0, state.player) } }) else { return }
        setConnectionState(.disconnecting)
        // The state is built (asking the receiver for the queue's items) only for someone to hand it
        // to: without a delegate or castable, ending never waits on the receiver (a silent device
        // held `castctl mpris`'s stop until the request timed out).
        let handedOver = notify && state.withLock { $0.delegate != nil || $0.castable != nil }
        let resume = handedOver ? await player?.resumeState() : nil
        detach(link)
        await link.close(stopApp: stopApp)
        player?.invalidate()
        finishTearDown(notifyingWith: notify ? .some(resume) : .none)
    }

    /// Forgets the session's objects; with a value, tells the delegate and castable.
    private func finishTearDown(notifyingWith resume: CastResumeState??) {
        let (delegate, castable) = state.withLock { state in
            state.link = nil
            state.player = nil
            state.currentDevice = nil
            state.connectionState = .disconnected
            state.sessionInfo = nil
            state.managers = [:]
            return (state.delegate, state.castable)
        }
        changed(\.player)
        changed(\.currentDevice)
        changed(\.connectionState)
        changed(\.sessionInfo)
        changed(\.multizoneDevices)
        if case .some(let resume) = resume {
            delegate?.castEndSession(with: resume)
            castable?.castEndSession(with: resume)
        }
    }

    private func detach(_ link: SessionLink) {
        state.withLock { state in
            state.linkTask?.cancel()
            state.linkTask = nil
        }
    }

    /// Follows the session: connection state while reconnecting, the receiver status, and the end
    /// of the session decided by the receiver (app stopped) or by reconnecting giving up.
    private func follow(_ link: SessionLink) {
        let members = link.multizone.events
        let membersTask = Task { [weak self] in
            for await _ in members {
                guard let self else { return }
                self.changed(\.multizoneDevices)
            }
        }
        let statuses = link.media.statuses
        let statusTask = Task { [weak self] in
            for await status in statuses {
                guard let self else { return }
                self.broadcaster.yield(.mediaStatus(status))
            }
        }
        let events = link.events
        let task = Task { [weak self, weak link] in
            defer {
                membersTask.cancel()
                statusTask.cancel()
            }
            for await event in events {
                guard let self, let link else { return }
                switch event {
                case .state(let connectionState):
                    guard self.state.withLock({ $0.link === link }) else { return }
                    self.setConnectionState(connectionState)
                case .receiverStatus(let status):
                    self.changed(\.multizoneDevices)
                    self.broadcaster.yield(.receiverStatus(status))
                case .lost(let error):
                    self.broadcaster.yield(.connectionLost(error))
                case .reconnecting(let attempt, let delay):
                    self.broadcaster.yield(.reconnecting(attempt: attempt, delay: delay))
                case .rejoined(let attempt):
                    self.updateCurrentDevice(from: link)
                    self.broadcaster.yield(.rejoined(attempt: attempt))
                case .relaunched:
                    self.updateCurrentDevice(from: link)
                    await self.resumeAfterRestart(link)
                case .ended(let error):
                    self.logger.info("Session on \(link.device.friendlyName) ended: \(error)")
                    await self.sessionEndedRemotely(link, because: error)
                    self.broadcaster.yield(.ended(error))
                    return
                }
            }
        }
        state.withLock { $0.linkTask = task }
    }

    /// Takes the link's newest record of the device (found again at another address) as ``currentDevice``.
    private func updateCurrentDevice(from link: SessionLink) {
        let device = link.device
        let changed = state.withLock { state -> Bool in
            guard state.link === link, state.currentDevice != device else { return false }
            state.currentDevice = device
            return true
        }
        if changed { self.changed(\.currentDevice) }
    }

    /// The receiver restarted and the app runs again: loads what played at the moment of loss.
    private func resumeAfterRestart(_ link: SessionLink) async {
        guard let player = state.withLock({ $0.link === link ? $0.player : nil }) else { return }
        let info = link.app.map { CastSessionInfo(deviceId: link.device.id.description, sessionId: $0.sessionId, appId: $0.appId) }
        if let info {
            state.withLock { $0.sessionInfo = info }
            changed(\.sessionInfo)
        }
        // The delegate learns of the new app session once the reload was tried, whatever came of it.
        defer {
            if let info, let delegate = state.withLock({ $0.link === link ? $0.delegate : nil }) {
                delegate.castSessionRelaunched(info)
            }
        }
        guard let resume = player.resumeStateAtLoss() else {
            broadcaster.yield(.resumeFailed(CastError(code: .noSession, message: "Nothing was playing when the connection was lost")))
            return
        }
        do {
            try await player.resume(from: resume)
            logger.info("Resumed on \(link.device.friendlyName) at \(resume.options.time ?? .zero)")
            broadcaster.yield(.resumed(resume))
        } catch {
            logger.warning("Resuming on \(link.device.friendlyName) after it restarted failed: \(error)")
            broadcaster.yield(.resumeFailed(error))
        }
    }

    private func sessionEndedRemotely(_ link: SessionLink, because error: CastError?) async {
        await gate.enter()
        defer { gate.leave() }
        guard let player = state.withLock({ $0.link === link ? $0.player : nil }) else { return }
        // The receiver may be gone: build the state from what the sender already knows.
        let resume = player.lastKnownResumeState()
        await link.close(stopApp: false)
        player.invalidate(because: error)
        finishTearDown(notifyingWith: .some(resume))
    }
}
