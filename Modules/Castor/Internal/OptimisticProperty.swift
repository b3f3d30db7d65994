import Synchronization

/// Drives an ``OptimisticState``: sends requests one at a time and resumes `async throws` writers.
final class OptimisticProperty<Value: Sendable & Equatable>: Sendable {
    typealias Sender = @Sendable (Value) async throws(CastError) -> Value?

    private struct State {
        var machine: OptimisticState<Value>
        var inFlightWaiters: [CheckedContinuation<Void, any Error>] = []
        var pendingWaiters: [CheckedContinuation<Void, any Error>] = []
    }

    private let state: Mutex<State>
    private let sender: Mutex<Sender?>
    private let onChange: @Sendable () -> Void

    /// - Parameters:
    ///   - initial: the receiver's value to start with.
    ///   - onChange: called after the shown value may have changed (to notify observers).
    init(_ initial: Value, onChange: @escaping @Sendable () -> Void) {
        state = Mutex(State(machine: OptimisticState(initial)))
        sender = Mutex(nil)
        self.onChange = onChange
    }

    /// Sets how values are sent. The sender returns the receiver's value from its reply, if any.
    func setSender(_ sender: @escaping Sender) {
        self.sender.withLock { $0 = sender }
    }

    var value: Value { state.withLock { $0.machine.value } }
    var isBusy: Bool { state.withLock { $0.machine.isBusy } }
    var receiverValue: Value { state.withLock { $0.machine.receiverValue } }

    /// A status from the receiver.
    func receive(_ value: Value) {
        let changed = state.withLock { state in
            let before = state.machine.value
            state.machine.receive(value)
            return before != state.machine.value
        }
        if changed { onChange() }
    }

    /// Fire-and-forget write: the value shows at once; a failure rolls back silently.
    func write(_ value: Value) {
        let toSend = state.withLock { $0.machine.write(value) }
        onChange()
        if let toSend { launch(toSend) }
    }

    /// Awaited write: returns when the receiver accepted this value (or a later one that replaced it).
    func update(to value: Value) async throws(CastError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let toSend = state.withLock { state -> Value? in
                    let toSend = state.machine.write(value)
                    if toSend != nil {
                        state.inFlightWaiters.append(continuation)
                    } else {
                        state.pendingWaiters.append(continuation)
                    }
                    return toSend
                }
                onChange()
                if let toSend { launch(toSend) }
            }
        } catch let error as CastError {
            throw error
        } catch {
            throw CastError(code: .cancelled, message: "\(error)")
        }
    }

    /// Forgets requests and fails their writers (the session ended).
    func reset(to value: Value, failing error: CastError) {
        let waiters = state.withLock { state in
            state.machine.reset(to: value)
            defer {
                state.inFlightWaiters = []
                state.pendingWaiters = []
            }
            return state.inFlightWaiters + state.pendingWaiters
        }
        for waiter in waiters { waiter.resume(throwing: error) }
        onChange()
    }

    private func launch(_ value: Value) {
        Task { [self] in
            var next: Value? = value
            while let current = next {
                let result: Result<Value?, CastError>
                if let send = sender.withLock({ $0 }) {
                    do throws(CastError) {
                        result = .success(try await send(current))
                    } catch {
                        result = .failure(error)
                    }
                } else {
                    result = .failure(CastError(code: .noSession, message: "There is no session to send to"))
                }
                let (waiters, failedPending, following) = state.withLock { state in
                    let reported: Value? = if case .success(let value) = result { value } else { nil }
                    let following = state.machine.complete(success: Self.isSuccess(result), reported: reported)
                    let waiters = state.inFlightWaiters
                    state.inFlightWaiters = []
                    var failedPending: [CheckedContinuation<Void, any Error>] = []
                    if following != nil {
                        state.inFlightWaiters = state.pendingWaiters
                    } else {
                        failedPending = state.pendingWaiters
                    }
                    state.pendingWaiters = []
                    return (waiters, failedPending, following)
                }
                for waiter in waiters {
                    switch result {
                    case .success: waiter.resume()
                    case .failure(let error): waiter.resume(throwing: error)
                    }
                }
                if case .failure(let error) = result {
                    for waiter in failedPending { waiter.resume(throwing: error) }
                } else {
                    for waiter in failedPending { waiter.resume() }
                }
                onChange()
                next = following
            }
        }
    }

    private static func isSuccess(_ result: Result<Value?, CastError>) -> Bool {
        if case .success = result { return true }
        return false
    }
}
