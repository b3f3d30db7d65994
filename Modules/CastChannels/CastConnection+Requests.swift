public import CastJSON
import CastTransport

extension CastConnection {
    /// Sends `json` with a fresh `requestId` to `destinationId` on `namespace` and waits for the reply.
    ///
    /// - Parameters:
    ///   - json: the request; its `requestId` is set here.
    ///   - namespace: the namespace to send on.
    ///   - destinationId: the endpoint: `receiver-0`, or an app's transport id.
    ///   - senderId: the source endpoint; the connection's sender id when `nil`.
    ///   - timeout: the deadline; the configured request timeout when `nil`.
    ///   - accept: which messages carrying the id count as the reply; others (interim replies such
    ///     as LAUNCH_STATUS) are only delivered to listeners.
    /// - Throws: ``CastChannelError``: `.timeout`, `.connectionLost`, `.appClosed`,
    ///   `.messageTooLarge` (nothing sent), `.closed`, `.cancelled`.
    public func request(
        _ json: JSONValue, namespace: String, destinationId: String, senderId: String? = nil, timeout: Duration? = nil,
        accept: @escaping @Sendable (CastChannelMessage) -> Bool = { _ in true }
    ) async throws(CastChannelError) -> CastChannelMessage {
        let promise = ReplyPromise<CastChannelMessage>()
        let id = try state.withLock { state throws(CastChannelError) -> Int in
            guard case .running = state.phase else {
                if case .closed(let reason) = state.phase, let reason { throw reason }
                throw CastChannelError(code: .closed, message: "The connection is not running")
            }
            return state.tracker.allocate()
        }
        var payload = json
        payload["requestId"] = .number(Double(id))
        let message = CastMessage(
            sourceId: senderId ?? configuration.senderId, destinationId: destinationId, namespace: namespace, json: payload)
        let limit = timeout ?? configuration.requestTimeout
        let deadline = timer.elapsed() + limit
        let type = json["type"]?.stringValue ?? "request"
        state.withLock {
            $0.tracker.register(
                id,
                entry: .init(namespace: namespace, destinationId: destinationId, accept: accept, waiter: promise,
                             deadline: deadline, timeout: limit, label: type))
        }
        armDeadline(deadline)
        do {
            try await send(message)
        } catch {
            _ = state.withLock { $0.tracker.remove(id) }
            throw error
        }
        do {
            return try await withTaskCancellationHandler {
                try await promise.value()
            } onCancel: {
                self.failRequest(id, with: CastChannelError(code: .cancelled, message: "\(type) (requestId \(id)) was cancelled"))
            }
        } catch let error as CastChannelError {
            throw error
        } catch {
            throw CastChannelError(code: .cancelled, message: "\(error)")
        }
    }

    // MARK: - Deadlines

    /// Makes sure the deadline task wakes by `deadline`.
    ///
    /// One task per connection sleeps until the earliest deadline in flight, rather than one task per
    /// request: with the usual single timeout, a new request's deadline is later than the one already
    /// scheduled and costs nothing here.
    func armDeadline(_ deadline: Duration) {
        state.withLock { state in
            if let wake = state.deadlineWake, wake <= deadline, state.deadlineTask != nil { return }
            guard case .running = state.phase else { return }
            state.deadlineTask?.cancel()
            state.deadlineGeneration += 1
            state.deadlineWake = deadline
            let generation = state.deadlineGeneration
            state.deadlineTask = Task { [weak self] in await self?.runDeadlines(generation: generation, firstWake: deadline) }
        }
    }

    /// Sleeps until each earliest deadline in turn and fails the requests whose deadline passed;
    /// ends when none is left in flight or a newer task took over.
    private func runDeadlines(generation: Int, firstWake: Duration) async {
        var wake = firstWake
        while true {
            do { try await timer.sleepUntil(wake) } catch { return }
            let now = timer.elapsed()
            let (expired, next) = state.withLock { state -> ([(id: Int, entry: RequestTracker<ReplyPromise<CastChannelMessage>>.Entry)], Duration?) in
                guard state.deadlineGeneration == generation else { return ([], nil) }
                let expired = state.tracker.removeExpired(at: now)
                let next = state.tracker.earliestDeadline
                state.deadlineWake = next
                if next == nil { state.deadlineTask = nil }
                return (expired, next)
            }
            for (id, entry) in expired {
                let message = "No reply to \(entry.label) (requestId \(id)) from \(transport.peerDescription) within "
                    + "\((entry.timeout ?? .zero).castDescription): the request's deadline passed while waiting for the device's answer"
                entry.waiter.fulfil(.failure(CastChannelError(code: .timeout, message: message)))
            }
            guard let next else { return }
            wake = next
        }
    }

    /// Fails request `id` if it is still in flight.
    func failRequest(_ id: Int, with error: CastChannelError) {
        let entry = state.withLock { $0.tracker.remove(id) }
        entry?.waiter.fulfil(.failure(error))
    }

    /// The number of requests waiting for a reply.
    public var requestsInFlight: Int { state.withLock { $0.tracker.count } }

    /// The message types of the requests waiting for a reply (for "what was it waiting for" messages).
    package var requestLabelsInFlight: [String] { state.withLock { $0.tracker.labels } }
}
