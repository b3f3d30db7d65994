public import CastJSON
import CastCore
import Synchronization

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
        _ json: JSONValue, namespace: CastNamespace, destinationId: String, senderId: String? = nil, timeout: Duration? = nil,
        accept: @escaping @Sendable (CastChannelMessage) -> Bool = { _ in true }
    ) async throws(CastChannelError) -> CastChannelMessage {
        let promise = ReplyPromise<CastChannelMessage>()
        let limit = timeout ?? configuration.requestTimeout
        let deadline = timer.elapsed() + limit
        let type = json["type"]?.stringValue ?? "request"
        var refusal: CastChannelError?
        var id = 0
        let actions = machine { machine in
            do throws(CastChannelError) {
                let started = try machine.startRequest(
                    namespace: namespace.rawValue, destinationId: destinationId, reply: promise, deadline: deadline, timeout: limit,
                    label: type, accept: accept)
                id = started.id
                return started.actions
            } catch {
                refusal = error
                return []
            }
        }
        if let refusal { throw refusal }
        perform(actions)
        // The request's text with its id, written without copying the request's members.
        let message = CastMessage(
            sourceId: senderId ?? configuration.senderId, destinationId: destinationId, namespace: namespace.rawValue,
            payload: .string(json.serialized(setting: "requestId", to: .number(Double(id)))))
        do {
            try send(message)
        } catch {
            perform(machine { $0.abandonRequest(id, error: nil) })
            throw error
        }
        let requestId = id
        do {
            return try await withTaskCancellationHandler {
                try await promise.value()
            } onCancel: {
                self.perform(self.machine {
                    $0.abandonRequest(
                        requestId, error: CastChannelError(code: .cancelled, message: "\(type) (requestId \(requestId)) was cancelled"))
                })
            }
        } catch let error as CastChannelError {
            throw error
        } catch {
            throw CastChannelError(code: .cancelled, message: "\(error)")
        }
    }

    /// The number of requests waiting for a reply.
    public var requestsInFlight: Int { state.withLock { $0.machine.requestsInFlight } }

    /// The message types of the requests waiting for a reply (for "what was it waiting for" messages).
    package var requestLabelsInFlight: [String] { state.withLock { $0.machine.requestLabels } }
}
