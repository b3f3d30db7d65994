import Synchronization

/// Fans the publisher's registered names out to any number of `AsyncStream` subscribers, each
/// buffering at most ``bufferLimit`` names (the newest are kept: a subscriber that stopped reading
/// still learns the current name). ``finish()`` ends every stream; later subscribers get a finished one.
final class RegistrationFanOut: Sendable {
    /// Names buffered per subscriber.
    static let bufferLimit = 16

    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<String>.Continuation] = [:]
        var finished = false
    }
    private let state = Mutex(State())

    /// A new stream of the names registered from now on.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
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

    /// Sends `name` to every subscriber.
    func yield(_ name: String) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(name) }
    }

    /// Ends every stream.
    func finish() {
        let continuations = state.withLock { state in
            state.finished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
