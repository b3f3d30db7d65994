/// Why the emulated receiver could not do what was asked, or could not fetch what a LOAD names.
public struct EmulatedReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case alreadyStarted, invalidConfiguration, listenFailed, advertiseFailed
            case invalidURL, connectionFailed, timedOut, malformedResponse, responseTooLarge
            case httpStatus, contentType, cors, notWebVTT, unsupportedMedia
        }
        private let base: Base
        /// ``EmulatedReceiver/start()`` was called on a receiver that is running or was stopped.
        public static let alreadyStarted = Code(base: .alreadyStarted)
        /// The configuration cannot describe a device (for example a group without members).
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// The TLS listener could not be opened.
        public static let listenFailed = Code(base: .listenFailed)
        /// The advertiser could not publish the device.
        public static let advertiseFailed = Code(base: .advertiseFailed)

        // Why a fetch of media or a text track failed (``EmulatedReceiverFetch/error``).

        /// The URL has no host, or a port out of range.
        public static let invalidURL = Code(base: .invalidURL)
        /// The connection could not be made or broke before the response ended.
        public static let connectionFailed = Code(base: .connectionFailed)
        /// The fetch took longer than ``EmulatedReceiverMediaFetching/timeout``.
        public static let timedOut = Code(base: .timedOut)
        /// The response is not valid HTTP/1.1 (or a 206 for another range than the one asked for).
        public static let malformedResponse = Code(base: .malformedResponse)
        /// The response head or the text track exceeds its limit.
        public static let responseTooLarge = Code(base: .responseTooLarge)
        /// The status code is not 200 or 206.
        public static let httpStatus = Code(base: .httpStatus)
        /// The `Content-Type` is missing or not one a player accepts for this content.
        public static let contentType = Code(base: .contentType)
        /// CORS is required and `Access-Control-Allow-Origin` does not admit the receiver's origin.
        public static let cors = Code(base: .cors)
        /// A text track whose body does not start with `WEBVTT`.
        public static let notWebVTT = Code(base: .notWebVTT)
        /// Media whose container or codecs the device's profile cannot play (see
        /// ``EmulatedReceiverConfiguration/profile``); the message says why.
        public static let unsupportedMedia = Code(base: .unsupportedMedia)
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
