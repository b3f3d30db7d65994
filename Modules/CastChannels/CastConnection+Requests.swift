public import CastJSON
import CastTransport

extension CastConnection {
    /// Sends `json` with a fresh `requestId` to `destinationId` on `namespace` and waits for the reply.
    ///
    /// - Parameters:
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
        state.withLock {
            $0.tracker.register(
                id, entry: .init(namespace: namespace, destinationId: destinationId, accept: accept, waiter: promise))
        }
        do {
            try await send(message)
        } catch {
            _ = state.withLock { $0.tracker.remove(id) }
            throw error
        }
        let deadline = timeout ?? configuration.requestTimeout
        let timer = self.timer
        let type = json["type"]?.stringValue ?? "request"
        let deadlineTask = Task { [weak self] in
            do { try await timer.sleep(deadline) } catch { return }
            self?.failRequest(
                id, with: CastChannelError(code: .timeout, message: "No reply to \(type) (requestId \(id)) within \(deadline)"))
        }
        defer { deadlineTask.cancel() }
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

    /// Fails request `id` if it is still in flight.
    func failRequest(_ id: Int, with error: CastChannelError) {
        let entry = state.withLock { $0.tracker.remove(id) }
        entry?.waiter.fulfil(.failure(error))
    }

    /// The number of requests waiting for a reply.
    public var requestsInFlight: Int { state.withLock { $0.tracker.count } }
}
