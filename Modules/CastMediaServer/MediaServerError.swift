/// An error from the media server, its file registrations, subtitle conversion or playlist parsing.
///
/// Match on ``code`` in `catch` clauses; ``message`` explains the failure to a person.
public struct MediaServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case fileNotFound, notARegularFile, fileUnreadable, invalidConfiguration, bindFailed
            case addressResolution, noRoute, invalidSubtitles, malformedPlaylist, streamingPlaylist
            case serverClosed, resourceUnavailable
        }
        private let base: Base
        /// The path does not name an existing file or directory.
        public static let fileNotFound = Code(base: .fileNotFound)
        /// The path names something other than a regular file (a directory, a device, a FIFO...).
        public static let notARegularFile = Code(base: .notARegularFile)
        /// The file or directory exists but could not be opened or read.
        public static let fileUnreadable = Code(base: .fileUnreadable)
        /// The server configuration is inconsistent (for example a wildcard bind address without an advertised host).
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// The listening socket could not be bound.
        public static let bindFailed = Code(base: .bindFailed)
        /// A host name could not be resolved to an address.
        public static let addressResolution = Code(base: .addressResolution)
        /// No local address routes to the given host.
        public static let noRoute = Code(base: .noRoute)
        /// Subtitle text contains no usable cue.
        public static let invalidSubtitles = Code(base: .invalidSubtitles)
        /// A playlist file does not have the expected structure.
        public static let malformedPlaylist = Code(base: .malformedPlaylist)
        /// An `.m3u8` file is an HLS streaming playlist, to be cast as one URL rather than expanded into files.
        public static let streamingPlaylist = Code(base: .streamingPlaylist)
        /// The server has been shut down.
        public static let serverClosed = Code(base: .serverClosed)
        /// A provided resource exists but cannot be given now (its conversion failed or did not finish in
        /// time): answered with 503.
        public static let resourceUnavailable = Code(base: .resourceUnavailable)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The underlying error, if any (for example a ``SystemCallError`` carrying `errno`).
    public var cause: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message (cause)`.
    public var description: String {
        if let cause { return "\(code): \(message) (\(cause))" }
        return "\(code): \(message)"
    }
}

/// A failed system call: its name and `errno`.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name of the call, such as `open` or `getaddrinfo`.
    public var call: String
    /// The `errno` value (or the `getaddrinfo` error code for `getaddrinfo`).
    public var errorNumber: Int32
    /// A textual explanation from the C library.
    public var reason: String

    /// Creates an error description of a failed call.
    public init(call: String, errorNumber: Int32, reason: String) {
        self.call = call
        self.errorNumber = errorNumber
        self.reason = reason
    }

    /// `call: reason (errno N)`.
    public var description: String { "\(call): \(reason) (errno \(errorNumber))" }
}
