/// Why the emulated receiver could not do what was asked.
public struct CastReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case alreadyStarted, invalidConfiguration, listenFailed, advertiseFailed
        }
        private let base: Base
        /// ``CastReceiver/start()`` was called on a receiver that is running or was stopped.
        public static let alreadyStarted = Code(base: .alreadyStarted)
        /// The configuration cannot describe a device (for example a group without members).
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// The TLS listener could not be opened.
        public static let listenFailed = Code(base: .listenFailed)
        /// The advertiser could not publish the device.
        public static let advertiseFailed = Code(base: .advertiseFailed)
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
}
