import CastMedia
import CastQueue
import Observation
import Synchronization

/// One entry of the receiver's queue. Its id is known at once; its asset is fetched on demand.
///
/// Call ``requestFetch()`` for the rows you show (the receiver is the source of truth and the sender
/// fetches only what it displays); ``asset`` changes, observably, when the item arrives. Headless
/// code awaits ``fetch()`` instead.
public final class CastPlayerItem: Observable, Sendable, Identifiable, Hashable, CustomStringConvertible {
    /// The receiver's item id.
    public let id: Int
    private let queue: CastMediaQueue
    private let registrar = ObservationRegistrar()
    private let item = Mutex<QueueItem?>(nil)

    init(id: Int, queue: CastMediaQueue) {
        self.id = id
        self.queue = queue
    }

    /// The item's asset; `nil` until fetched.
    public var asset: CastAsset? {
        registrar.access(self, keyPath: \.asset)
        return item.withLock { $0?.media }.map(CastAsset.init(media:))
    }

    /// Whether the item was fetched.
    public var isFetched: Bool {
        registrar.access(self, keyPath: \.asset)
        return item.withLock { $0 != nil }
    }

    /// The receiver's queue item, once fetched.
    public var queueItem: QueueItem? {
        registrar.access(self, keyPath: \.asset)
        return item.withLock { $0 }
    }

    /// Fetches the item now (unless it is already fetched) and returns its asset.
    /// - Throws: ``CastError`` when the receiver does not answer or no longer has the item.
    @discardableResult
    public func fetch() async throws(CastError) -> CastAsset? {
        if let asset = item.withLock({ $0?.media }).map(CastAsset.init(media:)) { return asset }
        let items: [QueueItem]
        do {
            items = try await queue.media.queueFetchItems([id])
        } catch {
            throw CastError(error)
        }
        guard let fetched = items.first(where: { $0.itemId == id }) else {
            throw CastError(code: .invalidArgument, message: "The receiver has no item \(id)")
        }
        update(fetched)
        return fetched.media.map(CastAsset.init(media:))
    }

    /// Asks for the item without waiting, unless it is already fetched; ``asset`` changes, observably,
    /// when it arrives. Requests of many rows are batched (call it for the rows you show).
    public func requestFetch() {
        guard !isFetched else { return }
        if let fetched = queue.item(withId: id) { update(fetched) }
    }

    func update(_ newItem: QueueItem?) {
        registrar.withMutation(of: self, keyPath: \.asset) {
            item.withLock { $0 = newItem }
        }
    }

    /// Items are equal when their ids are.
    public static func == (lhs: CastPlayerItem, rhs: CastPlayerItem) -> Bool { lhs.id == rhs.id }
    /// Hashes the id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    /// `item 3`.
    public var description: String { "item \(id)" }
}
