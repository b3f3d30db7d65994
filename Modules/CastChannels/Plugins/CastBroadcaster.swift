import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers.
///
/// Each subscriber gets every value yielded after it subscribed, buffered without bound (status
/// updates are small and rare). ``finish()`` ends every stream, and later subscribers get a
/// finished stream.
package final class CastBroadcaster<Element: Sendable>: Sendable {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }
    private let state = Mutex(State())

    package init() {}

    /// A new stream of the values yielded from now on.
    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber.
    package func yield(_ value: Element) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(value) }
    }

    /// Ends every stream.
    package func finish() {
        let continuations = state.withLock { state in
            state.finished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// How many subscribers are listening.
    package var subscriberCount: Int { state.withLock { $0.continuations.count } }
}
