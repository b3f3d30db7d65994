/// Why a Cast transport failed or closed.
///
/// Match on ``code``; new codes may be added in later versions without breaking your `switch`
/// over the ones you handle.
public struct CastTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case frameTooLarge, emptyFrame, malformedMessage, messageTooLarge
            case connectTimeout, connectFailed, tls, closed, peerClosed, io, resolution
            case handshakeTimeout, peerNotReading, evicted
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A frame header announced a body larger than ``CastFrame/maxBodySize``; the connection was closed.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// A frame header announced an empty body; the connection was closed.
        public static let emptyFrame = Code(.emptyFrame)
        /// A frame body was not a valid `CastMessage`; the connection was closed.
        public static let malformedMessage = Code(.malformedMessage)
        /// A message to send is larger than ``CastFrame/maxBodySize``; nothing was sent.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// The TCP connection or TLS handshake did not finish in time.
        public static let connectTimeout = Code(.connectTimeout)
        /// The TCP connection was refused or could not be made.
        public static let connectFailed = Code(.connectFailed)
        /// TLS failed (handshake, record or alert).
        public static let tls = Code(.tls)
        /// The transport was closed by this side; nothing more can be sent.
        public static let closed = Code(.closed)
        /// The peer closed the connection.
        public static let peerClosed = Code(.peerClosed)
        /// A socket error.
        public static let io = Code(.io)
        /// The host name could not be resolved.
        public static let resolution = Code(.resolution)
        /// An accepted peer did not finish the TLS handshake within the server's deadline
        /// (`CastTransportServer.Limits.handshakeTimeout` in CastTLS); the connection was closed.
        public static let handshakeTimeout = Code(.handshakeTimeout)
        /// The peer stopped reading: more than the allowed bytes stayed unsent to it for too long
        /// (`CastTransportServer.Limits.maximumUnsentBytes` in CastTLS); the connection was closed.
        public static let peerNotReading = Code(.peerNotReading)

        /// The server ran short of file descriptors and closed this accepted connection, which had not
        /// finished its TLS handshake, to admit another (idle connections first, then those of the
        /// busiest address, then the oldest: `CastTransportServer.Limits.descriptorReserve` in CastTLS).
        public static let evicted = Code(.evicted)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message (cause)`.
    public var description: String {
        cause.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)"
    }

    /// Errors are equal when code and message are; the cause is informational.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    /// Hashes code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
