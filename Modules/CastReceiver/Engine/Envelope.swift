import Foundation
import CastJSON

/// One CastMessage as the receiver's state machines see it (ids, namespace, payload).
struct Envelope: Sendable, Hashable {
    enum Payload: Sendable, Hashable {
        case string(String)
        case binary(Data)
    }
    var sourceId: String
    var destinationId: String
    var namespace: String
    var payload: Payload

    init(sourceId: String, destinationId: String, namespace: String, payload: Payload) {
        self.sourceId = sourceId
        self.destinationId = destinationId
        self.namespace = namespace
        self.payload = payload
    }

    init(sourceId: String, destinationId: String, namespace: String, json: JSONValue) {
        self.init(sourceId: sourceId, destinationId: destinationId, namespace: namespace,
                  payload: .string(json.serialized()))
    }

    /// The payload parsed as JSON; `nil` for binary or unparsable payloads.
    var json: JSONValue? {
        guard case .string(let text) = payload else { return nil }
        return try? JSONValue(parsing: text)
    }
}

/// Well-known namespaces and endpoint ids.
enum Wire {
    static let connection = "urn:x-cast:com.google.cast.tp.connection"
    static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    static let receiver = "urn:x-cast:com.google.cast.receiver"
    static let media = "urn:x-cast:com.google.cast.media"
    static let multizone = "urn:x-cast:com.google.cast.multizone"
    static let transportPrefix = "urn:x-cast:com.google.cast.tp."

    static let platformId = "receiver-0"
    static let heartbeatId = "Tr@n$p0rt-0"
    static let broadcastId = "*"
}

/// What the state machine asks the I/O shell to do.
enum ReceiverAction: Sendable, Hashable {
    /// Write this message on that socket.
    case send(socket: Int, Envelope)
    /// Close that socket (after writing what was queued before).
    case close(socket: Int)
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
