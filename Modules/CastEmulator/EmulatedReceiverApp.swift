import CastJSON

/// A custom receiver application the emulated device can launch, with its namespaces and a handler
/// that answers the messages senders send on them.
///
/// ```swift
/// let echo = EmulatedReceiverApp(appId: "ABCD1234", displayName: "Echo",
///                            namespaces: ["urn:x-cast:com.example.echo"], handler: EchoHandler())
/// ```
public struct EmulatedReceiverApp: Sendable {
    /// The application id senders LAUNCH (8 upper-case hex characters for registered apps).
    public var appId: String
    /// The name RECEIVER_STATUS reports (`displayName`).
    public var displayName: String
    /// The status text RECEIVER_STATUS reports (`statusText`).
    public var statusText: String
    /// The namespaces the app listens on (listed in RECEIVER_STATUS `namespaces`).
    public var namespaces: [String]
    /// Answers messages on the app's namespaces.
    public var handler: any EmulatedReceiverAppHandler

    /// Creates a custom app.
    public init(
        appId: String, displayName: String, statusText: String? = nil, namespaces: [String],
        handler: any EmulatedReceiverAppHandler
    ) {
        self.appId = appId
        self.displayName = displayName
        self.statusText = statusText ?? displayName
        self.namespaces = namespaces
        self.handler = handler
    }
}

/// The receiver-side half of a custom application: it sees every message a connected sender sends
/// on one of the app's namespaces and decides what to send back.
///
/// A reply to the sender (``EmulatedReceiverAppResponse/Audience/sender``) to a request carries the
/// request's `requestId`: when the request is a JSON object with a `requestId` and the reply is a
/// JSON object without one, the receiver adds it, so a sender waiting for the answer gets it. A
/// handler that sets `requestId` itself keeps its value; broadcasts are left as they are.
///
/// Handlers run inside the receiver's state machine: keep them quick and free of I/O.
public protocol EmulatedReceiverAppHandler: Sendable {
    /// Answers one message. Return the messages to send (an empty array sends nothing).
    func handle(_ message: EmulatedReceiverAppMessage) -> [EmulatedReceiverAppResponse]
}

/// A message a sender sent to a custom app.
public struct EmulatedReceiverAppMessage: Sendable, Hashable {
    /// The namespace it arrived on.
    public var namespace: String
    /// The sender's endpoint id (envelope `source_id`).
    public var senderId: String
    /// The app session's id.
    public var sessionId: String
    /// The payload text as sent (custom namespaces carry JSON by convention but need not).
    public var text: String
    /// The payload parsed as JSON, when it is JSON.
    public var json: JSONValue?

    /// Creates a message.
    public init(namespace: String, senderId: String, sessionId: String, text: String) {
        self.namespace = namespace
        self.senderId = senderId
        self.sessionId = sessionId
        self.text = text
        self.json = try? JSONValue(parsing: text)
    }
}

/// A message a custom app sends in answer to a sender.
public struct EmulatedReceiverAppResponse: Sendable, Hashable {
    /// Who receives the message.
    public enum Audience: Sendable, Hashable {
        /// Only the sender that sent the message being answered.
        case sender
        /// Every sender connected to the app (envelope destination `*`).
        case everyone
    }
    /// Who receives the message.
    public var audience: Audience
    /// The namespace to send on; `nil` means the namespace of the message being answered.
    public var namespace: String?
    /// The payload text.
    public var text: String

    /// A reply to the sender, on the same namespace.
    public static func reply(_ json: JSONValue) -> EmulatedReceiverAppResponse {
        EmulatedReceiverAppResponse(audience: .sender, namespace: nil, text: json.serialized())
    }
    /// A broadcast to every connected sender, on the same namespace.
    public static func broadcast(_ json: JSONValue) -> EmulatedReceiverAppResponse {
        EmulatedReceiverAppResponse(audience: .everyone, namespace: nil, text: json.serialized())
    }

    /// Creates a response.
    public init(audience: Audience, namespace: String? = nil, text: String) {
        self.audience = audience
        self.namespace = namespace
        self.text = text
    }
}
