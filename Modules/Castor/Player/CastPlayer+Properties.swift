public import CastMedia
public import CastQueue

extension CastPlayer {
    /// The latest media status from the receiver (`nil` when there is no media session).
    public var mediaStatus: MediaStatus? {
        accessStatus()
        // The channel's status also records replies, so it is never behind the stream.
        return media.status
    }

    /// The receiver's player state.
    public var playerState: PlayerState {
        mediaStatus?.playerState ?? .idle
    }

    /// The current item's asset, straight from the status (no fetch needed).
    public var currentAsset: CastAsset? {
        mediaStatus?.media.map(CastAsset.init(media:))
    }

    /// The current stream type.
    public var streamType: StreamType {
        mediaStatus?.media?.streamType ?? .none
    }

    /// Whether the receiver is buffering or loading.
    public var isBusy: Bool {
        let state = playerState
        return state == .buffering || state == .loading
    }

    /// Whether the receiver reports a non-empty queue (or media); controls should be disabled otherwise.
    public var isActive: Bool {
        accessStatus()
        registrar.access(self, keyPath: \.items)
        let items = state.withLock { $0.items }
        guard let status = media.status else { return false }
        // An idle status with a reason (finished, cancelled, error) means the media session is over.
        if status.playerState == .idle, status.idleReason != nil { return false }
        return !items.isEmpty || status.media != nil
    }
}

extension CastPlayer {
    /// Whether the player should play: reading it gives the optimistic value; setting it sends PLAY or PAUSE.
    public var shouldPlay: Bool {
        get {
            registrar.access(self, keyPath: \.shouldPlay)
            return shouldPlayProperty.value
        }
        set { shouldPlayProperty.write(newValue) }
    }

    /// Sets ``shouldPlay`` and waits for the receiver.
    public func setShouldPlay(_ shouldPlay: Bool) async throws(CastError) {
        try await shouldPlayProperty.update(to: shouldPlay)
    }

    /// Plays and waits for the receiver.
    public func play() async throws(CastError) { try await setShouldPlay(true) }
    /// Pauses and waits for the receiver.
    public func pause() async throws(CastError) { try await setShouldPlay(false) }
    /// Toggles between play and pause and waits for the receiver.
    public func togglePlayPause() async throws(CastError) { try await setShouldPlay(!shouldPlay) }

    /// Plays without waiting (same as setting ``shouldPlay`` to `true`).
    public func requestPlay() { shouldPlay = true }
    /// Pauses without waiting (same as setting ``shouldPlay`` to `false`).
    public func requestPause() { shouldPlay = false }
    /// Toggles between play and pause without waiting.
    public func requestTogglePlayPause() { shouldPlay.toggle() }

    /// Stops playback and waits: the receiver ends its media session.
    public func stop() async throws(CastError) {
        do { _ = try await media.stop() } catch { throw CastError(error) }
        applyLatestStatus()
    }

    /// Stops playback without waiting; a failure is dropped.
    public func requestStop() {
        Task { try? await self.stop() }
    }

    /// The repeat mode (optimistic).
    public var repeatMode: CastRepeatMode {
        get {
            registrar.access(self, keyPath: \.repeatMode)
            return repeatModeProperty.value
        }
        set { repeatModeProperty.write(newValue) }
    }

    /// Sets the repeat mode and waits for the receiver.
    public func setRepeatMode(_ mode: CastRepeatMode) async throws(CastError) {
        try await repeatModeProperty.update(to: mode)
    }
}

extension CastPlayer {
    /// The allowed speeds: 0.5...2 for on-demand streams, 1...1 for live streams.
    public var playbackSpeedRange: ClosedRange<Double> {
        streamType == .live ? 1...1 : 0.5...2
    }

    /// The playback speed (optimistic), clamped to ``playbackSpeedRange`` when set.
    public var playbackSpeed: Double {
        get {
            registrar.access(self, keyPath: \.playbackSpeed)
            return speedProperty.value
        }
        set { speedProperty.write(clampedSpeed(newValue)) }
    }

    /// Sets the playback speed (clamped) and waits for the receiver.
    public func setPlaybackSpeed(_ speed: Double) async throws(CastError) {
        try await speedProperty.update(to: clampedSpeed(speed))
    }

    private func clampedSpeed(_ speed: Double) -> Double {
        let range = playbackSpeedRange
        return speed.isNaN ? 1 : min(range.upperBound, max(range.lowerBound, speed))
    }
}
