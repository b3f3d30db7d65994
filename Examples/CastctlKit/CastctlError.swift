/// Why a castctl configuration, saved-state or announcement step failed.
public struct CastctlError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case malformedConfiguration, unreadableFile, unwritableFile, invalidDevice, unknownKey, noDevice
            case malformedState, nothingPlaying, speechFailed, announcementFailed
            case toolMissing, resolveFailed, noMedia, noPlayableFormat
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The configuration file breaks its syntax (``CastctlError/file`` and ``CastctlError/line`` say where).
        public static let malformedConfiguration = Code(.malformedConfiguration)
        /// A file cannot be read (permissions, too large, not UTF-8).
        public static let unreadableFile = Code(.unreadableFile)
        /// A file cannot be written; the old file is left as it was.
        public static let unwritableFile = Code(.unwritableFile)
        /// A device is not NAME, UUID or HOST[:PORT], or an alias name is not valid.
        public static let invalidDevice = Code(.invalidDevice)
        /// A configuration key or alias that does not exist.
        public static let unknownKey = Code(.unknownKey)
        /// No device was given and there is no default one.
        public static let noDevice = Code(.noDevice)
        /// A saved-state file is not one castctl wrote (or was written by a newer castctl).
        public static let malformedState = Code(.malformedState)
        /// The device plays nothing to save.
        public static let nothingPlaying = Code(.nothingPlaying)
        /// The text-to-speech command failed, timed out or wrote no audio.
        public static let speechFailed = Code(.speechFailed)
        /// The announcement could not be played or what played could not be restored.
        public static let announcementFailed = Code(.announcementFailed)
        /// An external tool castctl needs (yt-dlp) is not installed.
        public static let toolMissing = Code(.toolMissing)
        /// A page could not be resolved to media (yt-dlp failed, timed out, or wrote what castctl cannot read).
        public static let resolveFailed = Code(.resolveFailed)
        /// The page holds no video or audio yt-dlp can find.
        public static let noMedia = Code(.noMedia)
        /// None of the page's formats plays on the device as it is (only separate video and audio, or
        /// codecs the device's profile refuses); the message names the formats.
        public static let noPlayableFormat = Code(.noPlayableFormat)
        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation (without the file and line, which ``description`` adds).
    public var message: String
    /// The file concerned, if any.
    public var file: String?
    /// The line of ``file`` (from 1), for syntax errors.
    public var line: Int?
    /// The error underneath, if any.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, file: String? = nil, line: Int? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.cause = cause
    }

    /// `FILE:LINE: message` (the compiler's form, which editors jump to), or the message alone.
    public var description: String {
        guard let file else { return message }
        return line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}
