internal import CastChannels
internal import CastMedia

/// A failure of the Castor façade: a session that cannot start, a command that failed, a lost connection.
public struct CastError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case noSession, deviceUnreachable, launchFailed, connectionLost, commandFailed, timeout,
                 invalidArgument, unsupported, cancelled, sessionEnded, sessionTakenOver
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// There is no session (or no player) to run the command on.
        public static let noSession = Code(.noSession)
        /// The device could not be reached (no endpoint, connect or TLS failure).
        public static let deviceUnreachable = Code(.deviceUnreachable)
        /// The receiver app could not be launched (the receiver's reason is in ``CastError/reason``).
        public static let launchFailed = Code(.launchFailed)
        /// The connection dropped while the command was in flight; commands never hang on it.
        public static let connectionLost = Code(.connectionLost)
        /// The receiver rejected the command (see ``CastError/reason`` and ``CastError/cause``).
        public static let commandFailed = Code(.commandFailed)
        /// The receiver did not answer in time.
        public static let timeout = Code(.timeout)
        /// An argument is out of range or refers to something unknown (an item not in the queue...).
        public static let invalidArgument = Code(.invalidArgument)
        /// The receiver or the stream does not support the command.
        public static let unsupported = Code(.unsupported)
        /// A newer request replaced this one, or the task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The session ended (the app stopped on the receiver, or reconnecting gave up).
        public static let sessionEnded = Code(.sessionEnded)
        /// Another sender took the device over while this one was away (it runs another app or
        /// another session); the session was not fought for.
        public static let sessionTakenOver = Code(.sessionTakenOver)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The receiver's reason, when it gave one (`NOT_FOUND`, `INVALID_PARAMS`...).
    public var reason: String?
    /// The error underneath, if any.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, reason: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.cause = cause
    }

    /// `code: message (reason)`.
    public var description: String { "\(code): \(message)" + (reason.map { " (\($0))" } ?? "") }
}

extension CastError {
    init(_ error: CastMediaError) {
        let code: Code
        switch error.code {
        case .connectionLost, .notConnected: code = .connectionLost
        case .timeout: code = .timeout
        case .noMediaSession: code = .noSession
        case .cancelled: code = .cancelled
        case .messageTooLarge, .statusTooLarge: code = .invalidArgument
        default: code = .commandFailed
        }
        self.init(code: code, message: error.message, reason: error.reason?.rawValue, cause: error)
    }

    init(_ error: CastChannelError, doing what: String) {
        let code: Code
        switch error.code {
        case .timeout: code = .timeout
        case .launchError: code = .launchFailed
        case .cancelled: code = .cancelled
        case .invalidRequest: code = .commandFailed
        case .appClosed: code = .sessionEnded
        default: code = .connectionLost
        }
        self.init(code: code, message: "\(what): \(error.message)", reason: error.reason, cause: error)
    }
}
