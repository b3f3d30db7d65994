import Synchronization

/// A one-shot result that may be fulfilled before or after someone awaits it.
///
/// One task awaits it: the one that made it (a request, a wait for a plugin or for the outbox).
/// That is what lets it hold an `UnsafeContinuation`: the continuation is taken out under the lock
/// by whichever of ``fulfil(_:)`` and ``value()`` comes second, and resumed exactly once. A checked
/// continuation allocated its canary on every request and checked it on resume.
package final class ReplyPromise<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, CastChannelError>?
        var continuation: UnsafeContinuation<Result<Value, CastChannelError>, Never>?
    }
    private let state = Mutex(State())

    package init() {}

    /// Fulfils the promise; later calls are ignored.
    package func fulfil(_ result: Result<Value, CastChannelError>) {
        let continuation = state.withLock { state -> UnsafeContinuation<Result<Value, CastChannelError>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }

    /// Waits for the result. Awaited once, by one task.
    package func value() async throws(CastChannelError) -> Value {
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Value, CastChannelError>, Never>) in
            let ready = state.withLock { state -> Result<Value, CastChannelError>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }
}
