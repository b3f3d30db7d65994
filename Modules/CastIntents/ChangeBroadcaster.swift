import Synchronization

/// Fans committed changes out to every subscriber of ``CastIntentStore/changes()``.
final class ChangeBroadcaster: Sendable {
    private let subscribers = Mutex<(next: Int, continuations: [Int: AsyncStream<IntentStoreChange>.Continuation])>(
        (0, [:]))

    /// A new subscription; it receives the changes published after this call.
    func stream() -> AsyncStream<IntentStoreChange> {
        let (stream, continuation) = AsyncStream<IntentStoreChange>.makeStream(bufferingPolicy: .unbounded)
        let key = subscribers.withLock { state in
            let key = state.next
            state.next += 1
            state.continuations[key] = continuation
            return key
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    /// Publishes a change to every current subscriber.
    func publish(_ change: IntentStoreChange) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(change) }
    }

    deinit {
        let continuations = subscribers.withLock { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
