public import CastJSON
public import Foundation

/// One CASTV2 message: the envelope of a frame on the wire.
///
/// The source and destination ids name the virtual connection (`sender-0` → `receiver-0`, or a
/// running app's `transportId`); the namespace says which channel it belongs to. Every namespace
/// but device authentication carries JSON text; device authentication carries protobuf bytes.
public struct CastMessage: Sendable, Hashable {
    /// What a message carries.
    public enum Payload: Sendable, Hashable {
        /// UTF-8 text, JSON for every standard namespace.
        case string(String)
        /// Bytes, used by `urn:x-cast:com.google.cast.tp.deviceauth`.
        case binary(Data)
    }

    /// The endpoint that sent the message, such as `sender-0` or an app's transport id.
    public var sourceId: String
    /// The endpoint the message is for, such as `receiver-0`, a transport id, or `*` for a broadcast.
    public var destinationId: String
    /// The channel namespace, such as `urn:x-cast:com.google.cast.media`.
    public var namespace: String
    /// The payload.
    public var payload: Payload

    /// Creates a message.
    public init(sourceId: String, destinationId: String, namespace: String, payload: Payload) {
        self.sourceId = sourceId
        self.destinationId = destinationId
        self.namespace = namespace
        self.payload = payload
    }

    /// Creates a message whose payload is the compact JSON text of `json`.
    public init(sourceId: String, destinationId: String, namespace: String, json: JSONValue) {
        self.init(sourceId: sourceId, destinationId: destinationId, namespace: namespace, payload: .string(json.serialized()))
    }

    /// The payload parsed as JSON; `nil` for binary payloads and text that is not JSON.
    public var json: JSONValue? {
        guard case .string(let text) = payload else { return nil }
        return try? JSONValue(parsing: text)
    }

    /// The payload text; `nil` for binary payloads.
    public var text: String? {
        guard case .string(let text) = payload else { return nil }
        return text
    }

    /// The same message with source and destination swapped, carrying `payload`: the shape of a reply.
    public func reply(_ payload: Payload) -> CastMessage {
        CastMessage(sourceId: destinationId, destinationId: sourceId, namespace: namespace, payload: payload)
    }
}

extension CastMessage: CustomStringConvertible {
    /// `source → destination [namespace] payload`, with binary payloads summarised by size.
    public var description: String {
        let body: String
        switch payload {
        case .string(let text): body = text
        case .binary(let data): body = "<\(data.count) bytes>"
        }
        return "\(sourceId) → \(destinationId) [\(namespace)] \(body)"
    }
}
