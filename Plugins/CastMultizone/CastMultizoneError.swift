public import CastChannels

/// A failure of the multizone channel.
public struct CastMultizoneError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notConnected, unsupported, rejected, malformedMessage, unknownMember, channel
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The channel is not connected (no connection, or the connection ended).
        public static let notConnected = Code(.notConnected)
        /// The receiver does not implement the command (it answered `INVALID_COMMAND`).
        public static let unsupported = Code(.unsupported)
        /// The receiver rejected the command for another reason (`INVALID_REQUEST`, ...).
        public static let rejected = Code(.rejected)
        /// A message from the receiver could not be read.
        public static let malformedMessage = Code(.malformedMessage)
        /// No group member has the given id.
        public static let unknownMember = Code(.unknownMember)
        /// The channel failed underneath (timeout, connection lost...); see ``CastMultizoneError/cause``.
        public static let channel = Code(.channel)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The receiver's `reason`, when it sent one.
    public var reason: String?
    /// The channel error underneath, for ``Code/channel``.
    public var cause: CastChannelError?

    /// Creates an error.
    public init(code: Code, message: String, reason: String? = nil, cause: CastChannelError? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.cause = cause
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" + (reason.map { " (\($0))" } ?? "") }
}
