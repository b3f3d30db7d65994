import CastChannels
import CastJSON
public import CastMedia
import Synchronization

/// The receiver's queue, mirrored on the sender (`GCKMediaQueue`).
///
/// It knows every item id, fetches items lazily in batches of at most 20 when asked for one, keeps
/// them in an LRU cache, and follows QUEUE_CHANGE and MEDIA_STATUS messages, including those
/// caused by other senders.
/// ```swift
/// let queue = CastMediaQueue(media: media)
/// for await change in queue.changes { reloadRows(queue.itemCount) }
/// let item = queue.item(at: 3)   // nil until fetched; a change `.itemsLoaded` follows
/// ```
public final class CastMediaQueue: Sendable {
    /// The media channel it follows.
    public let media: CastMediaChannel
    private let state: Mutex<QueueModelState>
    private let broadcaster = CastBroadcaster<QueueModelChange>()
    private let follower = Mutex<Task<Void, Never>?>(nil)

    /// Starts following `media`.
    /// - Parameters:
    ///   - media: the media channel whose queue to mirror.
    ///   - cacheCapacity: how many items to keep (at least a screenful; default 100).
    public init(media: CastMediaChannel, cacheCapacity: Int = 100) {
        self.media = media
        state = Mutex(QueueModelState(cacheCapacity: cacheCapacity))
        let messages = media.messages
        let task = Task { [weak self] in
            for await message in messages {
                guard let self else { return }
                self.handle(message)
            }
        }
        follower.withLock { $0 = task }
        if let status = media.status, let json = try? JSONValue(encoding: MediaStatusMessage(status: [status])) {
            handle(json)
        }
    }

    deinit {
        follower.withLock { $0?.cancel() }
        broadcaster.finish()
    }

    /// Every change from now on; each call gives an independent sequence.
    public var changes: AsyncStream<QueueModelChange> { broadcaster.subscribe() }

    /// Every item id, in order.
    public var itemIds: [Int] { state.withLock { $0.itemIds } }
    /// The number of items.
    public var itemCount: Int { state.withLock { $0.itemCount } }
    /// The current item id.
    public var currentItemId: Int? { state.withLock { $0.currentItemId } }
    /// The id of the item being loaded.
    public var loadingItemId: Int? { state.withLock { $0.loadingItemId } }
    /// The id of the preloaded item.
    public var preloadedItemId: Int? { state.withLock { $0.preloadedItemId } }
    /// The index of an item.
    public func index(of itemId: Int) -> Int? { state.withLock { $0.index(of: itemId) } }

    /// The item at `index` when cached; otherwise `nil`, and a batch fetch starts (its result is announced
    /// with ``QueueModelChange/itemsLoaded(itemIds:)``).
    public func item(at index: Int) -> QueueItem? {
        let (item, effect) = state.withLock { $0.item(at: index) }
        if let effect { perform([effect], yieldingToReplacementsAfter: media.replacementsStarted) }
        return item
    }

    /// The item with an id when cached, else `nil` (and a fetch starts).
    public func item(withId itemId: Int) -> QueueItem? {
        guard let index = index(of: itemId) else { return nil }
        return item(at: index)
    }

    /// Fetches the item ids again and waits for them.
    public func reload() async throws(CastMediaError) {
        // The session the request names (the channel's latest status): the answer belongs to it.
        let session = media.mediaSessionId
        let ids = try await media.queueFetchItemIds()
        let changes = state.withLock { $0.setItemIds(ids, session: session) }
        publish(changes)
    }

    /// Turns the queue into `entries` with the fewest messages (see ``QueueEditPlan``).
    /// - Returns: the plan that was sent.
    @discardableResult
    public func setItems(_ entries: [QueueEntry]) async throws(CastMediaError) -> QueueEditPlan {
        let plan = try QueueEditPlan(from: itemIds, to: entries)
        if !plan.removals.isEmpty { try await media.queueRemove(plan.removals) }
        if let order = plan.reorder { try await media.queueReorder(order) }
        for insertion in plan.insertions { try await media.queueInsert(insertion.items, before: insertion.before) }
        return plan
    }

    // MARK: - Internals

    private func handle(_ json: JSONValue) {
        let serial = media.replacementsStarted
        let (changes, effects) = state.withLock { $0.apply(json) }
        publish(changes)
        perform(effects, yieldingToReplacementsAfter: serial)
    }

    /// A message of the media channel; a MEDIA_STATUS is read from its bytes.
    private func handle(_ message: CastChannelMessage) {
        let serial = media.replacementsStarted
        let (changes, effects) = state.withLock { $0.apply(message) }
        publish(changes)
        perform(effects, yieldingToReplacementsAfter: serial)
    }

    private func publish(_ changes: [QueueModelChange]) {
        for change in changes { broadcaster.yield(change) }
    }

    /// Sends fetches; their answers come back through the media messages and update the model there.
    ///
    /// A fetch yields to a LOAD started after the status that asked for it (`serial`, the channel's
    /// count of LOADs when that status was applied): sent while that LOAD is in flight it would name
    /// the session being replaced, and the new session's first status asks again. A LOAD started
    /// before is the one whose status this may be, and does not hold the fetch back.
    private func perform(_ effects: [QueueModelState.Effect], yieldingToReplacementsAfter serial: Int) {
        for effect in effects {
            Task { [weak self, media] in
                do throws(CastMediaError) {
                    switch effect {
                    case .fetchItemIds: _ = try await media.queueFetchItemIds(yieldingToReplacementsAfter: serial)
                    case .fetchItems(let ids):
                        let received = Set(try await media.queueFetchItems(ids, yieldingToReplacementsAfter: serial).compactMap(\.itemId))
                        // Ids the receiver did not return may be asked for again.
                        self?.state.withLock { $0.fetchFailed(.fetchItems(ids.filter { !received.contains($0) })) }
                    }
                } catch {
                    self?.state.withLock { $0.fetchFailed(effect) }
                }
            }
        }
    }
}
