public import CastJSON
public import CastCore
import Foundation

/// What a channel plugin sends through: its namespace on one virtual connection.
public struct CastChannelContext: Sendable {
    /// The channel's namespace.
    public let namespace: CastNamespace
    /// The peer endpoint: the app's transport id, or `receiver-0` for platform channels.
    public let transportId: String
    /// The app's session id, for application channels (`nil` for platform channels).
    public let sessionId: String?
    /// This sender's endpoint id.
    public let senderId: String
    let connection: CastConnection

    /// Sends a JSON message without waiting for an answer.
    /// - Throws: ``CastChannelError`` `.messageTooLarge` (nothing sent), `.notConnected`,
    ///   `.connectionLost` or `.closed`.
    public func send(_ json: JSONValue) async throws(CastChannelError) {
        try await send(CastMessage.Payload.string(json.serialized()))
    }

    /// Sends a payload (text or binary) without waiting for an answer.
    public func send(_ payload: CastMessage.Payload) async throws(CastChannelError) {
        try connection.send(
            CastMessage(sourceId: senderId, destinationId: transportId, namespace: namespace.rawValue, payload: payload))
    }

    /// Sends a JSON request and waits for the reply that carries its `requestId`.
    ///
    /// A fresh positive `requestId` is set on `json` (any value there is replaced). The reply is
    /// the first message on this namespace carrying that id, whatever its type: interpreting
    /// error types is the caller's job. The reply is also delivered to the plugin as usual.
    /// - Parameters:
    ///   - json: a JSON object with at least a `type`.
    ///   - timeout: the deadline; `nil` uses the connection's configured request timeout.
    /// - Throws: ``CastChannelError`` `.timeout`, `.connectionLost` (at once, when the connection
    ///   drops), `.appClosed`, `.messageTooLarge` (nothing sent), `.closed`.
    public func request(_ json: JSONValue, timeout: Duration? = nil) async throws(CastChannelError) -> CastChannelMessage {
        try await connection.request(
            json, namespace: namespace, destinationId: transportId, senderId: senderId, timeout: timeout)
    }
}
