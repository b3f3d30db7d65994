/// Why Cast Streaming input was refused or a streaming session could not go on.
public struct StreamingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case malformedPacket, malformedMessage, unsupportedOffer, noStreamSelected, encryptionRequired
            case answerTimeout, answerRefused, receiverStopped, senderStopped, timedOut, encoderFailed, captureFailed
            case launchFailed, socketFailed, invalidConfiguration, deviceLost
        }
        private let base: Base

        /// An RTP or RTCP packet that is not what the Cast Streaming wire format allows.
        public static let malformedPacket = Code(base: .malformedPacket)
        /// A message on the `webrtc` namespace that is not valid JSON of the expected shape.
        public static let malformedMessage = Code(base: .malformedMessage)
        /// An OFFER this side cannot take (remoting, an unknown mode).
        public static let unsupportedOffer = Code(base: .unsupportedOffer)
        /// No offered stream has a codec the receiver decodes.
        public static let noStreamSelected = Code(base: .noStreamSelected)
        /// A stream offered without a valid `aesKey` and `aesIvMask`.
        public static let encryptionRequired = Code(base: .encryptionRequired)
        /// The receiver did not ANSWER within the deadline.
        public static let answerTimeout = Code(base: .answerTimeout)
        /// The receiver answered with an error.
        public static let answerRefused = Code(base: .answerRefused)
        /// The receiver ended the session (stopped the app, stopped answering).
        public static let receiverStopped = Code(base: .receiverStopped)
        /// The sender ended the session or stopped sending.
        public static let senderStopped = Code(base: .senderStopped)
        /// A wait ran past its deadline.
        public static let timedOut = Code(base: .timedOut)
        /// An encoder refused its input or its settings.
        public static let encoderFailed = Code(base: .encoderFailed)
        /// A capture source stalled, ended early or could not start.
        public static let captureFailed = Code(base: .captureFailed)
        /// The mirroring app could not be launched.
        public static let launchFailed = Code(base: .launchFailed)
        /// A UDP socket could not be opened or broke.
        public static let socketFailed = Code(base: .socketFailed)
        /// Settings that cannot describe a session.
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// The connection to the device was lost (reset, closed, heartbeat timeout) while the session ran:
        /// the device did not end it, and a sender may connect again and start a new one.
        public static let deviceLost = Code(base: .deviceLost)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The underlying error, when there is one.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message (cause)`.
    public var description: String {
        if let cause { return "\(code): \(message) (\(cause))" }
        return "\(code): \(message)"
    }

    /// Errors are equal when code and message are; the cause is not compared.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    /// Hashes code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    static func malformed(_ message: String) -> StreamingError { StreamingError(code: .malformedPacket, message: message) }
}
