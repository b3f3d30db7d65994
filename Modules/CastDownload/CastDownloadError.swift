/// Why a download failed.
public struct CastDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unsupportedScheme, redirectRefused, httpStatus, tooLarge, deadlineExceeded, tooSlow, failed, cancelled
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The URL is not `http` or `https`.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// The server redirected to a URL that is not `http` or `https` (for example `file:`).
        public static let redirectRefused = Code(.redirectRefused)
        /// The server answered with a status outside 200–299.
        public static let httpStatus = Code(.httpStatus)
        /// The body is larger than ``CastDownloadLimits/maximumBytes`` (announced or while reading).
        public static let tooLarge = Code(.tooLarge)
        /// The download did not finish within ``CastDownloadLimits/deadline``.
        public static let deadlineExceeded = Code(.deadlineExceeded)
        /// The server sent less than ``CastDownloadLimits/minimumBytesPerWindow`` in a window.
        public static let tooSlow = Code(.tooSlow)
        /// The connection or the protocol failed.
        public static let failed = Code(.failed)
        /// The calling task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The HTTP status, for ``Code/httpStatus``.
    public var status: Int?

    /// Creates an error.
    public init(code: Code, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
