public import CastJSON
public import CastCore
import Foundation
import Synchronization

/// The far end of an in-memory transport, answering like a receiver from a script.
///
/// It records every message it receives, answers PING with PONG, and for every other message
/// runs the first matching rule. Tests use it to drive a sender without sockets:
///
/// ```swift
/// let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
/// let peer = ScriptedCastPeer(transport: receiverEnd)
/// peer.on(type: "GET_STATUS") { message, json in
///     [message.reply(json: ["type": "RECEIVER_STATUS", "requestId": json["requestId"]!, "status": [:]])]
/// }
/// peer.start()
/// ```
public final class ScriptedCastPeer: Sendable {
    /// Computes the replies to a message (its parsed JSON passed along; `.null` for binary).
    public typealias Rule = @Sendable (CastMessage, JSONValue) async -> [CastMessage]

    private struct State {
        var rules: [(namespace: String?, type: String?, rule: Rule)] = []
        var received: [CastMessage] = []
        var waiters: [(predicate: @Sendable (CastMessage) -> Bool, continuation: CheckedContinuation<CastMessage, Never>)] = []
        var task: Task<Void, Never>?
        var answersPings = true
    }

    /// The transport end this peer owns.
    public let transport: any CastTransport
    private let state = Mutex(State())

    /// Creates a peer on `transport` (usually the second end of `InMemoryCastTransport.pair()`, in CastCore).
    public init(transport: any CastTransport) {
        self.transport = transport
    }

    /// Adds a rule for messages of `type` (JSON `type`) on `namespace` (any when `nil`).
    /// Rules are tried in the order they were added; the first match answers.
    public func on(namespace: String? = nil, type: String?, _ rule: @escaping Rule) {
        state.withLock { $0.rules.append((namespace, type, rule)) }
    }

    /// Whether PINGs get a PONG (on by default); turn it off to play a device that went silent.
    public var answersPings: Bool {
        get { state.withLock { $0.answersPings } }
        set { state.withLock { $0.answersPings = newValue } }
    }

    /// Starts reading.
    public func start() {
        let task = Task { [self] in
            do {
                for try await message in transport.inbound { await handle(message) }
            } catch {}
        }
        state.withLock { $0.task = task }
    }

    /// Every message received so far.
    public var received: [CastMessage] { state.withLock { $0.received } }

    /// Received messages on `namespace` whose JSON `type` is `type`.
    public func received(namespace: String? = nil, type: String) -> [CastMessage] {
        received.filter { ($0.namespace == namespace || namespace == nil) && $0.json?["type"]?.stringValue == type }
    }

    /// Waits for the first message (already received or future) that satisfies `predicate`.
    public func waitFor(_ predicate: @escaping @Sendable (CastMessage) -> Bool) async -> CastMessage {
        await withCheckedContinuation { continuation in
            let found: CastMessage? = state.withLock { state in
                if let message = state.received.first(where: predicate) { return message }
                state.waiters.append((predicate, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Waits for a message of `type` on `namespace`.
    public func waitFor(namespace: String? = nil, type: String) async -> CastMessage {
        await waitFor { ($0.namespace == namespace || namespace == nil) && $0.json?["type"]?.stringValue == type }
    }

    /// Sends a message to the sender.
    public func send(_ message: CastMessage) async throws {
        try transport.send(message)
    }

    /// Stops reading and closes the transport.
    public func stop() async {
        state.withLock { $0.task?.cancel() }
        await transport.close()
    }

    private func handle(_ message: CastMessage) async {
        let json = message.json ?? .null
        let (ready, rule): ([CheckedContinuation<CastMessage, Never>], Rule?) = state.withLock { state in
            state.received.append(message)
            var ready: [CheckedContinuation<CastMessage, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(message) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            let type = json["type"]?.stringValue
            let rule = state.rules.first { ($0.namespace == nil || $0.namespace == message.namespace) && ($0.type == nil || $0.type == type) }?.rule
            return (ready, rule)
        }
        for continuation in ready { continuation.resume(returning: message) }
        if message.namespace == "urn:x-cast:com.google.cast.tp.heartbeat", json["type"] == "PING" {
            if answersPings { try? transport.send(message.reply(.string(#"{"type":"PONG"}"#))) }
            return
        }
        if message.namespace == "urn:x-cast:com.google.cast.tp.deviceauth", rule == nil {
            // A device without credentials: DeviceAuthMessage { error { error_type: INTERNAL_ERROR } }.
            try? transport.send(message.reply(.binary(Data([0x1a, 0x02, 0x08, 0x00]))))
            return
        }
        guard let rule else { return }
        for reply in await rule(message, json) {
            try? transport.send(reply)
        }
    }
}

extension CastMessage {
    /// A reply to this message (ids swapped) carrying `json`.
    public func reply(json: JSONValue) -> CastMessage {
        reply(.string(json.serialized()))
    }

    /// The same message's namespace, from `sourceId` to every sender (`*`), carrying `json`.
    public func broadcast(json: JSONValue) -> CastMessage {
        CastMessage(sourceId: destinationId, destinationId: "*", namespace: namespace, json: json)
    }
}
