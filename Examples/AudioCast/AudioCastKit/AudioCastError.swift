/// Why an AudioCast command failed.
public struct AudioCastError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case feedUnreadable, invalidFeed, unknownShow, unknownEpisode, unknownIntent, nothingSuggested
            case libraryCorrupt, storage, playbackFailed, deviceUnavailable
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The feed could not be read (no such file, unsupported URL scheme, network failure).
        public static let feedUnreadable = Code(.feedUnreadable)
        /// The feed is not a podcast RSS feed, or has no playable episode.
        public static let invalidFeed = Code(.invalidFeed)
        /// No subscribed show has this identifier or title.
        public static let unknownShow = Code(.unknownShow)
        /// No episode has this identifier or title.
        public static let unknownEpisode = Code(.unknownEpisode)
        /// No donated interaction has this identifier.
        public static let unknownIntent = Code(.unknownIntent)
        /// There is no suggestion to play.
        public static let nothingSuggested = Code(.nothingSuggested)
        /// The library file cannot be decoded; it is left untouched.
        public static let libraryCorrupt = Code(.libraryCorrupt)
        /// The library directory or the intent store cannot be read or written.
        public static let storage = Code(.storage)
        /// The play request failed (see the message for the handler's or the device's reason).
        public static let playbackFailed = Code(.playbackFailed)
        /// No Cast device could be reached.
        public static let deviceUnavailable = Code(.deviceUnavailable)
        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
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

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
