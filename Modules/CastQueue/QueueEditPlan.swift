public import CastMedia

/// One entry of a desired queue: an item already in the queue (by id) or a new one.
public enum QueueEntry: Sendable, Hashable {
    /// An item already in the queue.
    case existing(Int)
    /// A new item (without an id).
    case new(QueueItem)
}

/// The fewest queue messages that turn one queue into another: at most one QUEUE_REMOVE, at most one
/// QUEUE_REORDER (only when the order of the kept items really changed), and one QUEUE_INSERT per run
/// of consecutive new items. Applied in that order, they produce the desired queue.
public struct QueueEditPlan: Sendable, Hashable {
    /// One QUEUE_INSERT: items to insert before an item (or at the end when `nil`).
    public struct Insertion: Sendable, Hashable {
        /// The new items, in order.
        public var items: [QueueItem]
        /// The item they go before; `nil` appends.
        public var before: Int?
    }

    /// The ids to remove (QUEUE_REMOVE), in queue order; empty for none.
    public var removals: [Int]
    /// The new order of the kept items (QUEUE_REORDER), or `nil` when it is unchanged.
    public var reorder: [Int]?
    /// The insertions, in the order to send them.
    public var insertions: [Insertion]

    /// Whether nothing needs to be sent.
    public var isEmpty: Bool { removals.isEmpty && reorder == nil && insertions.isEmpty }

    /// The number of messages the plan sends.
    public var messageCount: Int { (removals.isEmpty ? 0 : 1) + (reorder == nil ? 0 : 1) + insertions.count }

    /// Plans the edit from `current` item ids to `desired`.
    /// - Throws: `CastMediaError` `invalidRequest` when `desired` names an id twice or an id not in `current`.
    public init(from current: [Int], to desired: [QueueEntry]) throws(CastMediaError) {
        let currentSet = Set(current)
        var seen = Set<Int>()
        var desiredExisting: [Int] = []
        for case .existing(let id) in desired {
            guard currentSet.contains(id) else {
                throw CastMediaError(code: .invalidRequest, message: "Item \(id) is not in the queue", reason: .invalidParams)
            }
            guard seen.insert(id).inserted else {
                throw CastMediaError(code: .invalidRequest, message: "Item \(id) appears twice", reason: .invalidParams)
            }
            desiredExisting.append(id)
        }
        removals = current.filter { !seen.contains($0) }
        let kept = current.filter { seen.contains($0) }
        reorder = kept == desiredExisting ? nil : desiredExisting
        insertions = []
        var run: [QueueItem] = []
        for entry in desired {
            switch entry {
            case .new(let item):
                run.append(item)
            case .existing(let id):
                if !run.isEmpty { insertions.append(Insertion(items: run, before: id)) }
                run = []
            }
        }
        if !run.isEmpty { insertions.append(Insertion(items: run, before: nil)) }
    }

    /// Applies the plan to ids the way a receiver would, with `newIds` supplying ids for inserted items:
    /// the reference semantics the plan is tested against.
    public func simulate(on current: [Int], newIds: inout some IteratorProtocol<Int>) -> [Int] {
        var ids = current.filter { !Set(removals).contains($0) }
        if let reorder { ids = reorder }
        for insertion in insertions {
            let fresh = insertion.items.compactMap { _ in newIds.next() }
            let index = insertion.before.flatMap { ids.firstIndex(of: $0) } ?? ids.count
            ids.insert(contentsOf: fresh, at: index)
        }
        return ids
    }
}
