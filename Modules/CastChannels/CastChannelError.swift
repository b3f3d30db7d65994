public import CastJSON
public import CastCore

/// Why a channel operation failed.
///
/// Match on ``code``. Receiver errors carry the receiver's `reason` and the whole reply.
public struct CastChannelError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case timeout, connectionLost, closed, messageTooLarge, invalidNamespace
            case launchError, invalidRequest, malformedReply, appClosed, notConnected, heartbeatTimeout, cancelled, notGenuine
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No reply arrived before the request's deadline.
        public static let timeout = Code(.timeout)
        /// The connection to the device was lost; every request in flight fails with this at once.
        public static let connectionLost = Code(.connectionLost)
        /// The connection was closed by this side.
        public static let closed = Code(.closed)
        /// The message would exceed the 64 KiB frame limit; nothing was sent.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// A namespace is not acceptable (see ``CastNamespace/init(_:)``).
        public static let invalidNamespace = Code(.invalidNamespace)
        /// The receiver answered LAUNCH with LAUNCH_ERROR; ``CastChannelError/reason`` says why.
        public static let launchError = Code(.launchError)
        /// The receiver answered INVALID_REQUEST; ``CastChannelError/reason`` says why.
        public static let invalidRequest = Code(.invalidRequest)
        /// The receiver's reply did not have the expected shape.
        public static let malformedReply = Code(.malformedReply)
        /// The app this request was addressed to closed its virtual connection or stopped.
        public static let appClosed = Code(.appClosed)
        /// The channel is not connected to a running app.
        public static let notConnected = Code(.notConnected)
        /// Device authentication did not prove the device genuine and the policy requires it.
        public static let notGenuine = Code(.notGenuine)
        /// The waiting task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// Nothing arrived from the device for longer than the liveness timeout.
        public static let heartbeatTimeout = Code(.heartbeatTimeout)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The receiver's `reason` field, for receiver errors (`NOT_FOUND`, `INVALID_COMMAND`, ...).
    public var reason: String?
    /// The receiver's whole reply, for receiver errors.
    public var reply: JSONValue?
    /// The transport error underneath, for connection failures.
    public var transportError: CastTransportError?

    /// Creates an error.
    public init(code: Code, message: String, reason: String? = nil, reply: JSONValue? = nil, transportError: CastTransportError? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.reply = reply
        self.transportError = transportError
    }

    /// `code: message [reason]`.
    public var description: String {
        var text = "\(code): \(message)"
        if let reason { text += " [\(reason)]" }
        if let transportError { text += " (\(transportError))" }
        return text
    }
}
