/// Something a sender did that a real Cast device would not accept.
///
/// The emulated receiver is strict: it drops or refuses what a real device drops or refuses,
/// and records each case here so tests can assert that a sender behaves (an empty log) or
/// that a misbehaving sender was caught.
public struct EmulatedReceiverViolation: Sendable, Hashable, CustomStringConvertible {
    /// The kind of violation, for matching.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notConnected, unknownNamespace, malformedPayload, missingRequestId
            case invalidConnect, unexpectedMessage, invalidFrame, heartbeatTimeout, unsupportedAuthMessage
            case refusedRequest, handshakeTimeout, notReading, tooManyVirtualConnections
            case malformedPacket, flood
        }
        private let base: Base
        /// A non-transport message on a virtual connection that was never opened with CONNECT
        /// (or was closed since); the message was dropped.
        public static let notConnected = Kind(base: .notConnected)
        /// A message on a namespace the destination does not listen on; dropped.
        public static let unknownNamespace = Kind(base: .unknownNamespace)
        /// A payload that is not a JSON object with a string `type` (or binary where JSON is required).
        public static let malformedPayload = Kind(base: .malformedPayload)
        /// A request without an integer `requestId`; ignored, as real devices do.
        public static let missingRequestId = Kind(base: .missingRequestId)
        /// A CONNECT the receiver could not accept (wildcard ids, bad `connType`, unknown destination).
        public static let invalidConnect = Kind(base: .invalidConnect)
        /// A well-formed message of a type the namespace does not define for senders.
        public static let unexpectedMessage = Kind(base: .unexpectedMessage)
        /// A frame that is oversized, empty or not a CastMessage; the socket was closed.
        public static let invalidFrame = Kind(base: .invalidFrame)
        /// The sender stayed silent longer than the heartbeat timeout; the socket was closed.
        public static let heartbeatTimeout = Kind(base: .heartbeatTimeout)
        /// A device-authentication message that is not a well-formed challenge; ignored.
        public static let unsupportedAuthMessage = Kind(base: .unsupportedAuthMessage)
        /// A request the receiver answered with an error (`INVALID_REQUEST`, `INVALID_PLAYER_STATE`,
        /// `LAUNCH_ERROR`): invalid parameters, an unknown command or app, a stale media session.
        public static let refusedRequest = Kind(base: .refusedRequest)
        /// The sender connected but did not finish the TLS handshake within the handshake deadline;
        /// the socket was closed. Recorded with ``EmulatedReceiverViolation/connection`` 0: the sender
        /// never became a numbered connection.
        public static let handshakeTimeout = Kind(base: .handshakeTimeout)
        /// The sender stopped reading its replies: more than the unsent-bytes limit stayed queued for
        /// it past the limit's timeout; the socket was closed.
        public static let notReading = Kind(base: .notReading)
        /// A Cast Streaming datagram (RTP or RTCP) that is malformed or belongs to no negotiated stream;
        /// dropped. Recorded one by one up to a limit per session, then only counted.
        public static let malformedPacket = Kind(base: .malformedPacket)
        /// A Cast Streaming sender sent more datagrams a second than the device reads; the session was ended.
        public static let flood = Kind(base: .flood)
        /// A CONNECT on a socket that already held the most virtual connections one socket may
        /// (16); answered CLOSE. A socket that keeps trying is closed.
        public static let tooManyVirtualConnections = Kind(base: .tooManyVirtualConnections)
        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// What happened.
    public var kind: Kind
    /// A human-readable explanation.
    public var message: String
    /// The receiver's number for the sender's socket (1 for the first accepted socket, and so on;
    /// 0 for a socket dropped before its TLS handshake finished).
    public var connection: Int
    /// The namespace of the offending message, when there was one.
    public var namespace: String?
    /// The envelope source id of the offending message, when there was one.
    public var sourceId: String?
    /// The envelope destination id of the offending message, when there was one.
    public var destinationId: String?
    /// The offending message's payload as sent (JSON text; binary payloads as a byte count), cut at
    /// 2048 characters, when there was a message.
    public var request: String?

    /// Creates a violation record.
    public init(
        kind: Kind, message: String, connection: Int,
        namespace: String? = nil, sourceId: String? = nil, destinationId: String? = nil, request: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.connection = connection
        self.namespace = namespace
        self.sourceId = sourceId
        self.destinationId = destinationId
        self.request = request
    }

    /// `[kind] socket N sourceId→destinationId namespace: message; request: payload`.
    public var description: String {
        var text = "[\(kind)] socket \(connection)"
        if let sourceId, let destinationId { text += " \(sourceId)→\(destinationId)" }
        if let namespace { text += " \(namespace)" }
        text += ": " + message
        if let request { text += "; request: " + request }
        return text
    }
}
