public import CastJSON
public import CastCore
import Synchronization

/// A message received on a channel.
///
/// Routing reads only the payload's envelope (`type`, `responseType`, `requestId`) straight from its
/// bytes; the payload is parsed into a ``json`` tree the first time someone asks for it, once per
/// message (copies share the parse), so a plugin that decodes its replies from ``text`` never pays
/// for a tree.
public struct CastChannelMessage: Sendable, Hashable {
    /// The namespace it arrived on.
    public var namespace: String
    /// The endpoint that sent it (`receiver-0` or an app's transport id).
    public var sourceId: String
    /// The endpoint it was sent to (this sender's id, or `*` for a broadcast).
    public var destinationId: String
    /// The raw payload.
    public var payload: CastMessage.Payload {
        didSet { body = Body(payload: payload) }
    }
    private var body: Body

    /// Creates a channel message from a transport message; its JSON is parsed when first asked for.
    public init(_ message: CastMessage) {
        namespace = message.namespace
        sourceId = message.sourceId
        destinationId = message.destinationId
        payload = message.payload
        body = Body(payload: message.payload)
    }

    /// The payload parsed as JSON, when it is JSON text (parsed on first use, then kept).
    ///
    /// Setting it replaces what ``type`` and ``requestId`` read; it does not change ``payload``.
    public var json: JSONValue? {
        get { body.json }
        set { body = Body(json: newValue) }
    }

    /// The JSON `type` field (or `responseType`, which GET_APP_AVAILABILITY replies use), read from
    /// the payload's bytes as far as needed (see ``json`` for whether the payload is valid JSON).
    public var type: String? { body.type }
    /// The JSON `requestId` field; `0` marks an unsolicited status. Read from the payload's bytes as
    /// far as needed.
    public var requestId: Int? { body.requestId }
    /// Whether this message was sent to every connected sender (`destinationId == "*"`).
    public var isBroadcast: Bool { destinationId == "*" }
    /// The text payload, when it is text.
    public var text: String? {
        if case .string(let text) = payload { return text }
        return nil
    }

    /// Whether two messages have the same addressing, payload and JSON.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.namespace == rhs.namespace && lhs.sourceId == rhs.sourceId && lhs.destinationId == rhs.destinationId
            && lhs.payload == rhs.payload && (lhs.body === rhs.body || lhs.json == rhs.json)
    }

    /// Hashes the addressing and the payload (equal messages have equal payloads).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(namespace)
        hasher.combine(sourceId)
        hasher.combine(destinationId)
        hasher.combine(payload)
    }
}

extension CastChannelMessage {
    /// The payload's JSON, parsed at most once and shared by copies of the message.
    private final class Body: Sendable {
        private enum Source { case payload(CastMessage.Payload), json(JSONValue?) }
        private struct Cache {
            var json: JSONValue??
            var type: String??
            var requestId: Int??
        }
        private let source: Source
        private let cache: Mutex<Cache>

        init(payload: CastMessage.Payload) {
            source = .payload(payload)
            cache = Mutex(Cache())
        }

        init(json: JSONValue?) {
            source = .json(json)
            cache = Mutex(Cache(json: .some(json)))
        }

        var json: JSONValue? {
            if let parsed = cache.withLock({ $0.json }) { return parsed }
            let parsed: JSONValue?
            switch source {
            case .payload(.string(let text)): parsed = try? JSONValue(parsing: text)
            case .payload: parsed = nil
            case .json(let json): parsed = json
            }
            cache.withLock { $0.json = .some(parsed) }
            return parsed
        }

        var type: String? {
            if let type = cache.withLock({ $0.type }) { return type }
            let type: String?
            switch source {
            case .payload(.string(var text)): type = text.withUTF8 { JSONEnvelope.type(buffer: $0) }
            case .payload: type = nil
            case .json(let json): type = json?["type"]?.stringValue ?? json?["responseType"]?.stringValue
            }
            cache.withLock { $0.type = .some(type) }
            return type
        }

        var requestId: Int? {
            if let requestId = cache.withLock({ $0.requestId }) { return requestId }
            let requestId: Int?
            switch source {
            case .payload(.string(var text)): requestId = text.withUTF8 { JSONEnvelope.requestId(buffer: $0) }
            case .payload: requestId = nil
            case .json(let json): requestId = json?["requestId"]?.intValue
            }
            cache.withLock { $0.requestId = .some(requestId) }
            return requestId
        }
    }
}
