import CastMedia

extension CastPlayer {
    /// The tracks of the current media for a characteristic.
    func tracks(for characteristic: CastMediaCharacteristic) -> [CastMediaTrackInfo] {
        let tracks = mediaStatus?.media?.tracks ?? []
        return tracks.compactMap { track in
            switch (characteristic, track.type) {
            case (.audible, .audio):
                return CastMediaTrackInfo(id: track.trackId, name: track.name, languageCode: track.languageCode, characteristic: .audible)
            case (.legible, .text) where track.subtype == nil || track.subtype == .subtitles || track.subtype == .captions:
                return CastMediaTrackInfo(id: track.trackId, name: track.name, languageCode: track.languageCode, characteristic: .legible)
            default:
                return nil
            }
        }
    }

    /// The characteristics with a choice: audible when there is more than one audio track, legible with any text track.
    public var mediaSelectionCharacteristics: Set<CastMediaCharacteristic> {
        var result: Set<CastMediaCharacteristic> = []
        if tracks(for: .audible).count > 1 { result.insert(.audible) }
        if !tracks(for: .legible).isEmpty { result.insert(.legible) }
        return result
    }

    /// The options for a characteristic: audible options only when there is more than one track;
    /// legible options are `[.off] + tracks`.
    public func mediaSelectionOptions(for characteristic: CastMediaCharacteristic) -> [CastMediaSelectionOption] {
        let tracks = tracks(for: characteristic)
        switch characteristic {
        case .audible: return tracks.count > 1 ? tracks.map { .on($0) } : []
        case .legible: return tracks.isEmpty ? [] : [.off] + tracks.map { .on($0) }
        }
    }

    /// The selected option for a characteristic (optimistic).
    public func selectedMediaOption(for characteristic: CastMediaCharacteristic) -> CastMediaSelectionOption {
        let active = Set(activeTrackIds)
        if let track = tracks(for: characteristic).first(where: { active.contains($0.id) }) { return .on(track) }
        return .off
    }

    /// The option the receiver currently reports (not the optimistic value).
    public func currentMediaOption(for characteristic: CastMediaCharacteristic) -> CastMediaSelectionOption {
        let active = Set(mediaStatus?.activeTrackIds ?? [])
        if let track = tracks(for: characteristic).first(where: { active.contains($0.id) }) { return .on(track) }
        return .off
    }

    /// Selects an option and waits for the receiver: replaces the active track of that characteristic.
    public func select(mediaOption option: CastMediaSelectionOption, for characteristic: CastMediaCharacteristic) async throws(CastError) {
        try await activeTracksProperty.update(to: trackIds(selecting: option, for: characteristic))
    }

    /// Selects an option without waiting (the selection shows at once).
    public func requestSelect(mediaOption option: CastMediaSelectionOption, for characteristic: CastMediaCharacteristic) {
        activeTracksProperty.write(trackIds(selecting: option, for: characteristic))
    }

    private func trackIds(selecting option: CastMediaSelectionOption, for characteristic: CastMediaCharacteristic) -> [Int] {
        let own = Set(tracks(for: characteristic).map(\.id))
        var ids = activeTrackIds.filter { !own.contains($0) }
        if case .on(let track) = option { ids.append(track.id) }
        return ids.sorted()
    }

    /// Sets the preferred languages for a characteristic. Applied to the next content loaded (each
    /// new media session), once its status lists tracks; the content playing now is left alone.
    public func setMediaSelectionPreference(_ preference: CastMediaSelectionPreference, for characteristic: CastMediaCharacteristic) {
        let current = media.status?.mediaSessionId
        state.withLock { state in
            state.preferences[characteristic] = preference
            state.preferencesAppliedFor = current.map { [$0] } ?? []
        }
    }

    /// The preferred languages for a characteristic.
    public func mediaSelectionPreference(for characteristic: CastMediaCharacteristic) -> CastMediaSelectionPreference? {
        state.withLock { $0.preferences[characteristic] }
    }

    func applyPreferencesIfNeeded(_ status: MediaStatus) {
        guard let tracks = status.media?.tracks, !tracks.isEmpty else { return }
        let preferences = state.withLock { state -> [CastMediaCharacteristic: CastMediaSelectionPreference]? in
            guard !state.preferences.isEmpty, !state.preferencesAppliedFor.contains(status.mediaSessionId) else { return nil }
            state.preferencesAppliedFor.insert(status.mediaSessionId)
            return state.preferences
        }
        guard let preferences else { return }
        var ids = Set(status.activeTrackIds ?? [])
        for (characteristic, preference) in preferences {
            let candidates = tracks.filter { track in
                characteristic == .audible ? track.type == .audio : track.type == .text
            }
            for track in candidates { ids.remove(track.trackId) }
            if case .on(let languages) = preference {
                // The first preferred language with a track; of its tracks, the one already on if any
                // (a resume that turned on the second English track keeps it).
                let active = Set(status.activeTrackIds ?? [])
                let match = languages.lazy.compactMap { language -> MediaTrack? in
                    let tracks = candidates.filter { Self.language($0.languageCode, matches: language) }
                    return tracks.first { active.contains($0.trackId) } ?? tracks.first
                }.first
                if let match { ids.insert(match.trackId) } else if characteristic == .audible,
                    let kept = candidates.first(where: { (status.activeTrackIds ?? []).contains($0.trackId) }) {
                    ids.insert(kept.trackId)
                }
            }
        }
        let desired = ids.sorted()
        if desired != (status.activeTrackIds ?? []).sorted() { activeTracksProperty.write(desired) }
    }

    static func language(_ code: String?, matches preferred: String) -> Bool {
        guard let code else { return false }
        let a = code.lowercased(), b = preferred.lowercased()
        return a == b || a.hasPrefix(b + "-") || b.hasPrefix(a + "-")
    }
}
