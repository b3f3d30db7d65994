internal import CastProcess

/// An error from probing, planning or converting media.
///
/// Match on ``code`` in `catch` clauses; ``message`` explains the failure to a person in one line.
public struct ConversionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case toolMissing, toolFailed, probeFailed, malformedProbe, malformedReport, noPlayableStream, refusedByPolicy
            case invalidOptions, spawnFailed, timedOut, stopped, tooLarge, fileSystem
        }
        private let base: Base
        /// ffmpeg or ffprobe is not installed (the message names the Debian package).
        public static let toolMissing = Code(base: .toolMissing)
        /// ffmpeg or ffprobe ran and failed (the message holds the end of its error output).
        public static let toolFailed = Code(base: .toolFailed)
        /// ffprobe could not read the file (not media, unreadable, truncated).
        public static let probeFailed = Code(base: .probeFailed)
        /// ffprobe's output is not what it writes (not JSON, missing fields, out of bounds).
        public static let malformedProbe = Code(base: .malformedProbe)
        /// yt-dlp's report (`yt-dlp -J`) is not what it writes: not JSON, not an object, neither a video nor a playlist.
        public static let malformedReport = Code(base: .malformedReport)
        /// The file has no stream the device could be given, even converted.
        public static let noPlayableStream = Code(base: .noPlayableStream)
        /// The device cannot play the file as it is and the policy (`--transcode never`) forbids converting it.
        public static let refusedByPolicy = Code(base: .refusedByPolicy)
        /// The options contradict each other or name what does not exist (a subtitle stream to burn that is not there).
        public static let invalidOptions = Code(base: .invalidOptions)
        /// A child process could not be started.
        public static let spawnFailed = Code(base: .spawnFailed)
        /// A probe or a segment did not come within its deadline.
        public static let timedOut = Code(base: .timedOut)
        /// The conversion was stopped.
        public static let stopped = Code(base: .stopped)
        /// Output went beyond its cap (ffprobe's report, an extracted subtitle track).
        public static let tooLarge = Code(base: .tooLarge)
        /// A temporary directory or file could not be made, read or removed.
        public static let fileSystem = Code(base: .fileSystem)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation, one line.
    public var message: String
    /// The underlying error, if any.
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

extension ConversionError {
    /// A child process that could not start, as conversion reports it (`toolMissing` names the Debian package).
    init(_ error: ProcessError, tool: String) {
        if error.code == .toolMissing {
            self = FFmpegTools.missing(tool)
        } else {
            self.init(code: .spawnFailed, message: error.message)
        }
    }
}
