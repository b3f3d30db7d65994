import CastMedia

extension CastPlayer {
    /// Whether the receiver shuffles the queue: its repeat mode is `REPEAT_ALL_AND_SHUFFLE` (the queue
    /// is played in shuffled order and shuffled again each time it starts over). ``repeatMode`` reads
    /// this mode as `CastRepeatMode.all`.
    public var isShuffled: Bool {
        guard let status = mediaStatus else { return false }
        return (status.repeatMode ?? status.queueData?.repeatMode) == .allAndShuffle
    }

    /// Turns shuffling on or off and waits for the receiver.
    ///
    /// On: the queue is shuffled now (QUEUE_UPDATE `shuffle`) and the repeat mode becomes
    /// `REPEAT_ALL_AND_SHUFFLE`, so ``repeatMode`` reads `CastRepeatMode.all`. Off: the repeat mode
    /// goes back to `REPEAT_ALL` (the order stays as shuffled: a receiver cannot restore it). Does
    /// nothing when already in that state.
    /// - Throws: ``CastError`` `.noSession` without media, or the receiver's refusal.
    public func setShuffled(_ shuffled: Bool) async throws(CastError) {
        guard mediaStatus != nil else { throw CastError(code: .noSession, message: "There is no queue to shuffle") }
        guard shuffled != isShuffled else { return }
        do {
            if shuffled {
                _ = try await media.queueSetRepeatMode(.allAndShuffle)
                _ = try await media.queueShuffle()
            } else {
                _ = try await media.queueSetRepeatMode(.all)
            }
        } catch {
            applyLatestStatus()
            throw CastError(error)
        }
        try? await queue.reload()
        rebuildItems()
        applyLatestStatus()
    }
}
