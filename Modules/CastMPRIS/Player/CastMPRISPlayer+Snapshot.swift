import Castor
import CastMedia

extension CastMPRISPlayer {
    /// Reads the façade: `nil` without a session. Every property read here is observed, so
    /// ``ObservationFeed`` delivers a new reading whenever one of them changes.
    func observe() -> Observed? {
        guard let device = cast.currentDevice, let player = cast.player else { return nil }
        let manager = cast.deviceManager()
        let status = player.mediaStatus
        let queue = player.items
        let items = queue.map { item in
            MPRISSnapshot.Item(id: item.id, media: item.queueItem?.media)
        }
        let snapshot = MPRISSnapshot(
            identity: configuration.identity ?? device.friendlyName,
            status: status,
            shouldPlay: player.shouldPlay,
            repeatMode: player.repeatMode,
            isShuffled: player.isShuffled,
            rate: player.playbackSpeed,
            rateRange: player.playbackSpeedRange,
            volume: manager.map { Double($0.volume) },
            isMuted: manager?.isMuted ?? false,
            canSetVolume: manager?.canAdjustVolume ?? false,
            position: player.time(),
            seekableRange: player.seekableTimeRange(),
            canGoNext: player.canAdvanceToNext(),
            canGoPrevious: player.canReturnToPrevious(),
            items: items,
            currentItemId: player.currentItem?.id ?? status?.currentItemId,
            takenAt: stopwatch())
        let sources = [ObjectIdentifier(player)] + (manager.map { [ObjectIdentifier($0)] } ?? []) + queue.map { ObjectIdentifier($0) }
        return Observed(device: device, snapshot: snapshot, sources: sources)
    }

    /// The state method calls are decided on: the façade now (so `Position` is extrapolated at the
    /// moment it is asked for), or an idle player without a session.
    func currentState() -> MPRISState {
        if let observed = observe() { return MPRISState(observed.snapshot, options: options) }
        return MPRISState(MPRISSnapshot(identity: configuration.identity ?? "Cast"), options: options)
    }
}
