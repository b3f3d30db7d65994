public import CastJSON
public import CastTransport

/// A message received on a channel.
public struct CastChannelMessage: Sendable, Hashable {
    /// The namespace it arrived on.
    public var namespace: String
    /// The endpoint that sent it (`receiver-0` or an app's transport id).
    public var sourceId: String
    /// The endpoint it was sent to (this sender's id, or `*` for a broadcast).
    public var destinationId: String
    /// The raw payload.
    public var payload: CastMessage.Payload
    /// The payload parsed as JSON, when it is JSON text.
    public var json: JSONValue?

    /// Creates a channel message from a transport message, parsing a JSON payload once.
    public init(_ message: CastMessage) {
        namespace = message.namespace
        sourceId = message.sourceId
        destinationId = message.destinationId
        payload = message.payload
        json = message.json
    }

    /// The JSON `type` field (or `responseType`, which GET_APP_AVAILABILITY replies use).
    public var type: String? { json?["type"]?.stringValue ?? json?["responseType"]?.stringValue }
    /// The JSON `requestId` field; `0` marks an unsolicited status.
    public var requestId: Int? { json?["requestId"]?.intValue }
    /// Whether this message was sent to every connected sender (`destinationId == "*"`).
    public var isBroadcast: Bool { destinationId == "*" }
    /// The text payload, when it is text.
    public var text: String? {
        if case .string(let text) = payload { return text }
        return nil
    }
}
