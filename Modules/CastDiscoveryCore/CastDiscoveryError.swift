/// An error from discovery: a malformed record, a failed Avahi call, an unreachable host.
///
/// Match on ``code``; read ``message`` for the details. Discovery never stops because of one bad
/// record: browsers skip the offending service and report the error as a
/// ``DiscoveryDiagnostic`` instead.
public struct CastDiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case missingKey, invalidUTF8, duplicateKey, valueTooLong, recordTooLarge, invalidDeviceID
            case invalidNumber, malformedTXT, avahi, daemonUnavailable, busUnavailable, collision
            case http, malformedResponse, invalidDescription, probeFailed, connectionRefused
            case socket, invalidArgument, cancelled
        }
        private let base: Base
        /// A required TXT key (`id` or `fn`) is absent.
        public static let missingKey = Code(base: .missingKey)
        /// A key, or the value of a text key, is not valid UTF-8.
        public static let invalidUTF8 = Code(base: .invalidUTF8)
        /// The same key (case-insensitively, RFC 6763 §6.4) appears twice.
        public static let duplicateKey = Code(base: .duplicateKey)
        /// A TXT entry is longer than 255 bytes, or a value exceeds its documented size.
        public static let valueTooLong = Code(base: .valueTooLong)
        /// The whole TXT record is larger than ``CastTXTRecord/maxRecordSize``.
        public static let recordTooLarge = Code(base: .recordTooLarge)
        /// The `id` is not 32 hexadecimal digits (dashes allowed).
        public static let invalidDeviceID = Code(base: .invalidDeviceID)
        /// `ca`, `ve` or `st` is not the decimal number it must be.
        public static let invalidNumber = Code(base: .invalidNumber)
        /// The TXT wire format is truncated or an entry has an empty key.
        public static let malformedTXT = Code(base: .malformedTXT)
        /// An Avahi call failed for another reason (see the message).
        public static let avahi = Code(base: .avahi)
        /// avahi-daemon is not running.
        public static let daemonUnavailable = Code(base: .daemonUnavailable)
        /// The D-Bus system bus cannot be reached.
        public static let busUnavailable = Code(base: .busUnavailable)
        /// A published name collided and no alternative could be registered.
        public static let collision = Code(base: .collision)
        /// An HTTP exchange failed (status, size limit, timeout).
        public static let http = Code(base: .http)
        /// A network answer (SSDP, HTTP) could not be parsed.
        public static let malformedResponse = Code(base: .malformedResponse)
        /// A DIAL device description was rejected.
        public static let invalidDescription = Code(base: .invalidDescription)
        /// Probing a known host failed.
        public static let probeFailed = Code(base: .probeFailed)
        /// The host refused the connection.
        public static let connectionRefused = Code(base: .connectionRefused)
        /// A socket call failed.
        public static let socket = Code(base: .socket)
        /// An argument was invalid (for example a `host:port` string).
        public static let invalidArgument = Code(base: .invalidArgument)
        /// The operation was cancelled.
        public static let cancelled = Code(base: .cancelled)
        /// A short name of the code.
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

    /// `code: message`.
    public var description: String {
        if let cause { return "\(code): \(message) (\(cause))" }
        return "\(code): \(message)"
    }

    /// Errors are equal when code and message are equal; the cause is not compared.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    /// Hashes code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
