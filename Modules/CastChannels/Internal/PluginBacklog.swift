import Synchronization

/// How many received messages a plugin has been handed and not yet taken: what bounds its mailbox.
final class PluginBacklog: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more message unless `limit` are already waiting.
    /// - Returns: `false` when the mailbox is full (nothing is counted then).
    func admit(limit: Int) -> Bool {
        if count.add(1, ordering: .relaxed).newValue <= limit { return true }
        count.subtract(1, ordering: .relaxed)
        return false
    }

    /// The plugin has taken one message.
    func taken() {
        count.subtract(1, ordering: .relaxed)
    }

    /// The messages waiting now.
    var waiting: Int { count.load(ordering: .relaxed) }
}
