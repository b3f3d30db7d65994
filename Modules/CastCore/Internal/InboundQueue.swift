import Synchronization

/// The messages decoded and not yet taken by the consumer of a transport's `inbound`,
/// which pulls them one by one (an unfolding stream), so the queue knows what is still waiting.
package final class InboundQueue: Sendable {
    private struct State {
        var messages = MessageFIFO()
        var bytes = 0
        var overLimit = false
        var waiter: CheckedContinuation<CastMessage?, any Error>?
        /// How the stream ends once the queue is empty: `.success` cleanly.
        var end: Result<Void, CastTransportError>?
        var drained: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    package let limit: Int

    package init(limit: Int) { self.limit = limit }

    package var isFull: Bool { state.withLock { $0.overLimit } }

    package func onDrained(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.drained = body } }

    package func push(_ message: CastMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<CastMessage?, any Error>? in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            let size = message.encodedSize
            state.messages.append((message, size))
            state.bytes += size
            if state.bytes >= limit { state.overLimit = true }
            return nil
        }
        waiter?.resume(returning: message)
    }

    package func finish(throwing error: CastTransportError?) {
        let waiter = state.withLock { state -> CheckedContinuation<CastMessage?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    /// Takes every queued message, and the end when the queue has one, leaving it empty (ended, if
    /// it was). A read gate paused by the full queue reopens.
    package func takeAll() -> ([CastMessage], end: Result<Void, CastTransportError>?) {
        let (messages, end, drained) = state.withLock { state in
            let messages = state.messages.map { $0.message }
            let drained = state.overLimit ? state.drained : nil
            state.messages.removeAll()
            state.bytes = 0
            state.overLimit = false
            return (messages, state.end, drained)
        }
        drained?()
        return (messages, end)
    }

    /// Takes the first queued message, or the end, under the lock; `nil` when the consumer must wait.
    private func take(_ state: inout State) -> (Result<CastMessage?, any Error>, drained: (@Sendable () -> Void)?)? {
        if let first = state.messages.popFirst() {
            state.bytes -= first.size
            var drained: (@Sendable () -> Void)?
            if state.overLimit, state.bytes <= limit / 2 {
                state.overLimit = false
                drained = state.drained
            }
            return (.success(first.message), drained)
        }
        switch state.end {
        case .success: return (.success(nil), nil)
        case .failure(let error): return (.failure(error), nil)
        case nil: return nil
        }
    }

    /// The next message; `nil` at a clean end or when the consuming task is cancelled.
    package func next() async throws -> CastMessage? {
        if let (result, drained) = state.withLock({ take(&$0) }) {
            drained?()
            return try result.get()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CastMessage?, any Error>) in
                let resumeNow = state.withLock { state -> (Result<CastMessage?, any Error>, drained: (@Sendable () -> Void)?)? in
                    if let taken = take(&state) { return taken }
                    if Task.isCancelled { return (.success(nil), nil) }
                    state.waiter = continuation
                    return nil
                }
                if let (result, drained) = resumeNow {
                    drained?()
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// A first-in, first-out queue of messages and their sizes: an array read from a moving head,
/// compacted once the taken part is at least half of it, so each message is moved O(1) times.
private struct MessageFIFO {
    private var items: [(message: CastMessage, size: Int)] = []
    private var head = 0

    mutating func append(_ item: (message: CastMessage, size: Int)) { items.append(item) }

    mutating func popFirst() -> (message: CastMessage, size: Int)? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    func map<T>(_ transform: ((message: CastMessage, size: Int)) -> T) -> [T] { items[head...].map(transform) }

    mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}
