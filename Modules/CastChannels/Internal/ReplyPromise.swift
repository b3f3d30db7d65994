import Synchronization

/// A one-shot result that may be fulfilled before or after someone awaits it.
package final class ReplyPromise<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, CastChannelError>?
        var continuation: CheckedContinuation<Value, any Error>?
    }
    private let state = Mutex(State())

    package init() {}

    /// Fulfils the promise; later calls are ignored.
    package func fulfil(_ result: Result<Value, CastChannelError>) {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }

    /// Waits for the result.
    package func value() async throws(CastChannelError) -> Value {
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready: Result<Value, CastChannelError>? = state.withLock { state in
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
            }
        } catch let error as CastChannelError {
            throw error
        } catch {
            throw CastChannelError(code: .cancelled, message: "\(error)")
        }
    }
}
