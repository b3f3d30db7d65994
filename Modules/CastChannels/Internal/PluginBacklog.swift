import Synchronization

/// How many received messages a plugin has been handed and not yet taken (what bounds its
/// mailbox), and how many of its calls of any kind are queued or running (what decides whether a
/// message can be handed to it at once).
final class PluginBacklog: Sendable {
    private let count = Atomic<Int>(0)
    private let calls = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)

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

    /// A call (connect, message, disconnect) is about to be queued in the mailbox.
    func queued() {
        calls.add(1, ordering: .relaxed)
    }

    /// A queued call returned (or was never queued: the mailbox had finished).
    func finished() {
        calls.subtract(1, ordering: .releasing)
    }

    /// The mailbox finished: the plugin gets nothing more, by either path.
    func close() {
        closed.store(true, ordering: .releasing)
    }

    /// Whether no call is queued or running (everything the plugin was handed has returned) and
    /// the mailbox is still open.
    var isIdle: Bool { !closed.load(ordering: .acquiring) && calls.load(ordering: .acquiring) == 0 }
}
