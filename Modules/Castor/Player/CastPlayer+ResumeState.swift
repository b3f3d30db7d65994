import CastJSON
import CastMedia
import CastQueue

extension CastPlayer {
    /// The receiver's queue as a resume state: every item with media, the current index, the
    /// position relative to the seekable window, whether it plays, speed, repeat mode, the active
    /// tracks of the current item and the active track language per characteristic. Fetches items the sender has not fetched yet, unless
    /// the media session has ended.
    /// - Returns: `nil` when the receiver has nothing to resume.
    public func resumeState() async -> CastResumeState? {
        // Without a live media session (for example while reconnecting), use what the sender knew.
        guard let status = state.withLock({ $0.status }), media.isConnected else { return lastKnownResumeState() }
        var queueItems: [QueueItem] = []
        let ids = queue.itemIds
        // A session that ended (IDLE with a reason: finished, stopped, failed) answers no queue request
        // (INVALID_PLAYER_STATE): build the state from what the sender already has.
        let ended = status.playerState == .idle && status.idleReason != nil
        if !ids.isEmpty && !ended {
            var fetched: [Int: QueueItem] = [:]
            for batchStart in stride(from: 0, to: ids.count, by: QueueModelState.batchSize) {
                let batch = Array(ids[batchStart..<min(ids.count, batchStart + QueueModelState.batchSize)])
                if let items = try? await media.queueFetchItems(batch) {
                    for item in items { if let id = item.itemId { fetched[id] = item } }
                }
            }
            queueItems = ids.compactMap { fetched[$0] }
        }
        if queueItems.count < ids.count { queueItems = knownQueueItems().count > queueItems.count ? knownQueueItems() : queueItems }
        return Self.resumeState(status: status, items: queueItems, position: media.estimatedPosition)
    }

    /// What the sender knows of the queue without asking the receiver: fetched items and the
    /// status's window of items, in queue order.
    func knownQueueItems() -> [QueueItem] {
        var known: [Int: QueueItem] = [:]
        let (statusItems, lastItems) = state.withLock { ($0.lastStatus?.items ?? [], $0.lastItems) }
        for item in statusItems { if let id = item.itemId { known[id] = item } }
        for item in lastItems { if let fetched = item.queueItem, let id = fetched.itemId { known[id] = fetched } }
        let order = lastItems.map(\.id)
        if order.isEmpty { return known.values.sorted { ($0.itemId ?? 0) < ($1.itemId ?? 0) } }
        return order.compactMap { known[$0] }
    }

    /// The resume state from what the sender knows, without asking the receiver (it may be gone).
    func lastKnownResumeState() -> CastResumeState? {
        guard let status = state.withLock({ $0.lastStatus }) else { return nil }
        return Self.resumeState(status: status, items: knownQueueItems(), position: media.estimatedPosition)
    }

    /// The resume state at the moment the connection was lost: the media session the channel had
    /// then, its position extrapolated to that moment, and the queue the sender knew.
    func resumeStateAtLoss() -> CastResumeState? {
        if let (status, position) = media.lastSessionAtDisconnect {
            return Self.resumeState(status: status, items: knownQueueItems(), position: position)
        }
        return lastKnownResumeState()
    }

    /// Builds a resume state from a status and the queue's items (pure; for tests and tools).
    static func resumeState(status: MediaStatus, items: [QueueItem], position: Double?) -> CastResumeState? {
        var withMedia = items.filter { $0.media != nil }
        if withMedia.isEmpty, let media = status.media { withMedia = [QueueItem(itemId: status.currentItemId, media: media)] }
        let currentId = status.currentItemId
        let index = withMedia.firstIndex { $0.itemId != nil && $0.itemId == currentId } ?? 0
        var time = position ?? status.currentTime
        if let start = status.liveSeekableRange?.start { time -= start }
        var options = CastLoadOptions(
            index: index, time: .saturatingSeconds(max(0, time)),
            shouldPlay: isPlaying(status.playerState),
            playbackSpeed: status.playbackRate,
            repeatMode: CastRepeatMode(status.repeatMode ?? .off))
        // The tracks that were on, when the start asset carries them (and so their ids) back.
        if let active = status.activeTrackIds, withMedia.indices.contains(index) {
            let ids = Set(withMedia[index].media?.tracks?.map(\.trackId) ?? [])
            if !ids.isEmpty { options.activeTrackIds = active.filter(ids.contains) }
        }
        guard var state = CastResumeState(assets: withMedia.compactMap { $0.media.map(CastAsset.init(media:)) }, options: options) else {
            return nil
        }
        let active = Set(status.activeTrackIds ?? [])
        for track in status.media?.tracks ?? [] where active.contains(track.trackId) {
            switch track.type {
            case .audio: state.setMediaSelection(language: track.languageCode, for: .audible)
            case .text: state.setMediaSelection(language: track.languageCode, for: .legible)
            default: break
            }
        }
        return state
    }

    /// Loads a resume state: its assets and options, then a preference per characteristic.
    public func resume(from state: CastResumeState) async throws(CastError) {
        for characteristic in state.mediaSelectionCharacteristics {
            if let language = state.mediaSelectionLanguage(for: characteristic) {
                setMediaSelectionPreference(.on(languages: language), for: characteristic)
            }
        }
        try await loadItems(from: state.assets, with: state.options)
    }
}
