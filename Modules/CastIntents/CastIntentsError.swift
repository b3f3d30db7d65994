/// Why a media-intent value was rejected or a store operation failed.
///
/// Every failure of CastIntents is reported with this one error type. Match on ``code``:
///
/// ```swift
/// do { try await store.donate(interaction) }
/// catch where error.code == .duplicateInteraction { ... }
/// ```
public struct CastIntentsError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses. New codes may be added in later versions.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case emptyIdentifier, identifierTooLong, invalidIdentifier
            case emptyTitle, titleTooLong
            case invalidMediaItemType, unknownMediaItemType
            case invalidRepeatMode, invalidPredictionMode
            case invalidArtworkURL
            case invalidPlaybackSpeed, emptyIntent, tooManyItems
            case tooManySuggestions, duplicateSuggestion
            case duplicateInteraction, invalidLimit, invalidDate
            case corruptRecord, incompatibleSchema, storage
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// An identifier (of a media item, an interaction or a group) is empty.
        public static let emptyIdentifier = Code(.emptyIdentifier)
        /// An identifier is longer than ``MediaItem/maximumIdentifierLength`` UTF-8 bytes.
        public static let identifierTooLong = Code(.identifierTooLong)
        /// An identifier contains a control character (such as NUL or a newline).
        public static let invalidIdentifier = Code(.invalidIdentifier)
        /// A title is present but empty or only white space.
        public static let emptyTitle = Code(.emptyTitle)
        /// A title is longer than ``MediaItem/maximumTitleLength`` characters.
        public static let titleTooLong = Code(.titleTooLong)
        /// A media-item type's raw value is not a valid type name (empty, too long, or with
        /// characters other than ASCII letters, digits, `.`, `_` and `-`).
        public static let invalidMediaItemType = Code(.invalidMediaItemType)
        /// A media-item type is well formed but not one this version knows (for example written
        /// by a newer version of the program).
        public static let unknownMediaItemType = Code(.unknownMediaItemType)
        /// A repeat mode's raw value is not well formed.
        public static let invalidRepeatMode = Code(.invalidRepeatMode)
        /// A prediction mode's raw value is not well formed.
        public static let invalidPredictionMode = Code(.invalidPredictionMode)
        /// An artwork URL is not an absolute URL with a scheme.
        public static let invalidArtworkURL = Code(.invalidArtworkURL)
        /// A playback speed is not finite or outside ``PlayMediaIntent/playbackSpeedRange``.
        public static let invalidPlaybackSpeed = Code(.invalidPlaybackSpeed)
        /// An intent names neither media items nor a container where content is required
        /// (donations and suggestions).
        public static let emptyIntent = Code(.emptyIntent)
        /// An intent holds more than ``PlayMediaIntent/maximumItemCount`` media items.
        public static let tooManyItems = Code(.tooManyItems)
        /// More than ``CastIntentStoreLimits/maximumSuggestionCount`` suggested intents.
        public static let tooManySuggestions = Code(.tooManySuggestions)
        /// The same intent appears twice in a list of suggestions.
        public static let duplicateSuggestion = Code(.duplicateSuggestion)
        /// An interaction with the same identifier was already donated.
        public static let duplicateInteraction = Code(.duplicateInteraction)
        /// A query limit is negative.
        public static let invalidLimit = Code(.invalidLimit)
        /// A date is not finite (NaN or infinite).
        public static let invalidDate = Code(.invalidDate)
        /// A stored record could not be decoded (damaged, or written in a format this version
        /// does not understand). The record is left untouched.
        public static let corruptRecord = Code(.corruptRecord)
        /// The database was migrated by a newer version of CastIntents, or is not an intent store.
        public static let incompatibleSchema = Code(.incompatibleSchema)
        /// SQLite reported an error (I/O, disk full, locked database, ...); see ``CastIntentsError/cause``.
        public static let storage = Code(.storage)

        /// A short name of the code.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The underlying error, if any (for example a GRDB `DatabaseError`).
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message`, followed by the cause when there is one.
    public var description: String {
        if let cause { return "\(code): \(message) (caused by: \(cause))" }
        return "\(code): \(message)"
    }
}
