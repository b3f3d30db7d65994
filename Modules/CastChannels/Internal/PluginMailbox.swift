import Synchronization

/// A plugin's calls in order (connect, each message, disconnect), taken by the one task that runs
/// the plugin's callbacks.
///
/// What `AsyncStream` did here, without its generic machinery: `AsyncStream<Element>` is compiled
/// once for any element, so every message paid runtime metadata lookups and an unspecialized
/// `removeFirst` to hand over a waiting continuation (measured: a few percent of the sender's CPU
/// per SEEK). Like the stream, it ends when ``finish()`` is called (calls already queued are still
/// taken) or when the taking task is cancelled (what is queued is dropped); calls after the end are
/// dropped.
final class PluginMailbox<Call: Sendable>: Sendable {
    private struct State {
        var calls: [Call] = []
        /// Index of the next call in `calls` (taken calls are cleared in batches, not shifted one by one).
        var head = 0
        var waiter: UnsafeContinuation<Call?, Never>?
        var finished = false

        /// The oldest queued call, if any.
        mutating func takeQueued() -> Call? {
            guard head < calls.count else { return nil }
            let call = calls[head]
            head += 1
            if head == calls.count {
                calls.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= calls.count {
                calls.removeFirst(head)
                head = 0
            }
            return call
        }
    }
    private let state = Mutex(State())

    init() {}

    /// Queues a call, or hands it straight to the waiting task.
    func yield(_ call: Call) {
        let waiter = state.withLock { state -> UnsafeContinuation<Call?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.calls.append(call)
            return nil
        }
        waiter?.resume(returning: call)
    }

    /// Ends the mailbox: the taking task gets what is queued, then `nil`.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Call?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next call, waiting for one; `nil` once the mailbox ended or the task was cancelled.
    /// Taken by one task at a time.
    func next() async -> Call? {
        if let queued = state.withLock({ $0.takeQueued() }) { return queued }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Call?, Never>) in
                let ready = state.withLock { state -> Call?? in
                    if let queued = state.takeQueued() { return .some(queued) }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> UnsafeContinuation<Call?, Never>? in
                state.finished = true
                state.calls = []
                state.head = 0
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
