public import CastJSON
public import CastMediaMetadata

/// Why a media command failed: the receiver's error reply, or a failure to get one.
///
/// ```swift
/// do { try await media.load(item) }
/// catch let error as CastMediaError where error.code == .loadFailed {
///     print(error.detailedErrorCode?.name ?? "unknown")
/// }
/// ```
public struct CastMediaError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case invalidPlayerState, loadFailed, loadCancelled, invalidRequest, receiverError, timeout, connectionLost,
                noMediaSession, messageTooLarge, statusTooLarge, unexpectedReply, notConnected, cancelled
        }
        private let base: Base
        private init(base: Base) { self.base = base }
        /// INVALID_PLAYER_STATE: the command does not fit the player's state.
        public static let invalidPlayerState = Code(base: .invalidPlayerState)
        /// LOAD_FAILED: the media could not be loaded (see ``CastMediaError/detailedErrorCode``).
        public static let loadFailed = Code(base: .loadFailed)
        /// LOAD_CANCELLED: another LOAD replaced this one.
        public static let loadCancelled = Code(base: .loadCancelled)
        /// INVALID_REQUEST: the receiver refused the request (see ``CastMediaError/reason``).
        public static let invalidRequest = Code(base: .invalidRequest)
        /// ERROR: the receiver app reported a generic error.
        public static let receiverError = Code(base: .receiverError)
        /// No reply arrived in time.
        public static let timeout = Code(base: .timeout)
        /// The connection closed before a reply arrived.
        public static let connectionLost = Code(base: .connectionLost)
        /// The command needs a media session and there is none (nothing loaded, or it ended).
        public static let noMediaSession = Code(base: .noMediaSession)
        /// The request would exceed the 64 KiB message limit; nothing was sent.
        public static let messageTooLarge = Code(base: .messageTooLarge)
        /// The request fits the 64 KiB limit, but the MEDIA_STATUS answering it could not: it would carry
        /// the media twice (as `media` and in the queue item) and the custom data, over 64 KiB. Nothing
        /// was sent; ``CastMediaError/messageSize`` is the status's estimated size.
        public static let statusTooLarge = Code(base: .statusTooLarge)
        /// The reply could not be understood.
        public static let unexpectedReply = Code(base: .unexpectedReply)
        /// The media channel is not connected to a receiver app.
        public static let notConnected = Code(base: .notConnected)
        /// The waiting task was cancelled.
        public static let cancelled = Code(base: .cancelled)

        /// Maps a receiver error `type`; `nil` for a type that is not an error.
        public init?(errorType: String) {
            switch errorType {
            case "INVALID_PLAYER_STATE": self = .invalidPlayerState
            case "LOAD_FAILED": self = .loadFailed
            case "LOAD_CANCELLED": self = .loadCancelled
            case "INVALID_REQUEST": self = .invalidRequest
            case "ERROR": self = .receiverError
            default: return nil
            }
        }

        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The receiver's reason (`reason`), when it gave one.
    public var reason: MediaErrorReason?
    /// The receiver's detailed error code (`detailedErrorCode`), when it gave one.
    public var detailedErrorCode: DetailedErrorCode?
    /// The queue item concerned (`itemId`), when given.
    public var itemId: Int?
    /// The receiver's custom data, when given.
    public var customData: CastCustomData?
    /// The size of the refused message, for ``Code/messageTooLarge`` (for ``Code/statusTooLarge``, of the status).
    public var messageSize: Int?
    /// The underlying error, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, reason: MediaErrorReason? = nil, detailedErrorCode: DetailedErrorCode? = nil,
                itemId: Int? = nil, customData: CastCustomData? = nil, messageSize: Int? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.detailedErrorCode = detailedErrorCode
        self.itemId = itemId
        self.customData = customData
        self.messageSize = messageSize
        self.cause = cause
    }

    /// Reads a receiver error reply (`{"type":"LOAD_FAILED","reason":…,"detailedErrorCode":…}`);
    /// `nil` when the message is not an error.
    public init?(reply json: JSONValue) {
        guard let type = json["type"]?.stringValue, let code = Code(errorType: type) else { return nil }
        let reason = json["reason"]?.stringValue.map(MediaErrorReason.init(rawValue:))
        let detailed = json["detailedErrorCode"]?.intValue.map(DetailedErrorCode.init(rawValue:))
        var message = type
        if let reason { message += " (\(reason.rawValue))" }
        if let detailed { message += ": detailed error \(detailed.rawValue) \(detailed.name ?? "unknown")" }
        self.init(code: code, message: message, reason: reason, detailedErrorCode: detailed,
                  itemId: json["itemId"]?.intValue, customData: json["customData"].map(CastCustomData.init))
    }

    /// The request was too large to send.
    public init(_ error: CastMessageTooLargeError) {
        self.init(code: .messageTooLarge, message: error.description, messageSize: error.size, cause: error)
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// The receiver's reason for an error (`reason`).
public struct MediaErrorReason: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The command is not known.
    public static let invalidCommand = MediaErrorReason(rawValue: "INVALID_COMMAND")
    /// A parameter is invalid.
    public static let invalidParams = MediaErrorReason(rawValue: "INVALID_PARAMS")
    /// The media session id is not the current one.
    public static let invalidMediaSessionId = MediaErrorReason(rawValue: "INVALID_MEDIA_SESSION_ID")
    /// The request is invalid.
    public static let invalidRequest = MediaErrorReason(rawValue: "INVALID_REQUEST")
    /// The request id was already used.
    public static let duplicateRequestId = MediaErrorReason(rawValue: "DUPLICATE_REQUEST_ID")
    /// The queue has no further item.
    public static let endOfQueue = MediaErrorReason(rawValue: "END_OF_QUEUE")
    /// Too many skips.
    public static let skipLimitReached = MediaErrorReason(rawValue: "SKIP_LIMIT_REACHED")
    /// Not supported.
    public static let notSupported = MediaErrorReason(rawValue: "NOT_SUPPORTED")
    /// The language is not supported.
    public static let languageNotSupported = MediaErrorReason(rawValue: "LANGUAGE_NOT_SUPPORTED")
    /// A generic load error.
    public static let genericLoadError = MediaErrorReason(rawValue: "GENERIC_LOAD_ERROR")
    /// An application error.
    public static let appError = MediaErrorReason(rawValue: "APP_ERROR")
    /// Credentials expired.
    public static let authenticationExpired = MediaErrorReason(rawValue: "AUTHENTICATION_EXPIRED")
    /// Too many concurrent streams.
    public static let concurrentStreamLimit = MediaErrorReason(rawValue: "CONCURRENT_STREAM_LIMIT")
    /// The content already plays.
    public static let contentAlreadyPlaying = MediaErrorReason(rawValue: "CONTENT_ALREADY_PLAYING")
    /// The content is filtered.
    public static let contentFiltered = MediaErrorReason(rawValue: "CONTENT_FILTERED")
    /// Not available in this region.
    public static let notAvailableInRegion = MediaErrorReason(rawValue: "NOT_AVAILABLE_IN_REGION")
    /// Parental control.
    public static let parentalControlRestricted = MediaErrorReason(rawValue: "PARENTAL_CONTROL_RESTRICTED")
    /// A premium account is required.
    public static let premiumAccountRequired = MediaErrorReason(rawValue: "PREMIUM_ACCOUNT_REQUIRED")
    /// A video device is required.
    public static let videoDeviceRequired = MediaErrorReason(rawValue: "VIDEO_DEVICE_REQUIRED")
}

/// The receiver's detailed error code (`detailedErrorCode`), with the names of Google's table.
public struct DetailedErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The number.
    public var rawValue: Int
    /// Creates a code from its number (any number is kept).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 104: the media source is not supported (a common LOAD_FAILED).
    public static let mediaSourceNotSupported = DetailedErrorCode(rawValue: 104)
    /// 999: a generic error.
    public static let generic = DetailedErrorCode(rawValue: 999)

    /// The name in Google's table, such as `MEDIA_SRC_NOT_SUPPORTED`; `nil` for an unknown number.
    public var name: String? { Self.names[rawValue] }

    /// `104 MEDIA_SRC_NOT_SUPPORTED`.
    public var description: String { "\(rawValue) \(name ?? "UNKNOWN")" }

    /// Google's table of detailed error codes.
    public static let names: [Int: String] = [
        100: "MEDIA_UNKNOWN", 101: "MEDIA_ABORTED", 102: "MEDIA_DECODE", 103: "MEDIA_NETWORK",
        104: "MEDIA_SRC_NOT_SUPPORTED", 110: "SOURCE_BUFFER_FAILURE",
        200: "MEDIAKEYS_UNKNOWN", 201: "MEDIAKEYS_NETWORK", 202: "MEDIAKEYS_UNSUPPORTED", 203: "MEDIAKEYS_WEBCRYPTO",
        300: "NETWORK_UNKNOWN", 301: "SEGMENT_NETWORK",
        311: "HLS_NETWORK_MASTER_PLAYLIST", 312: "HLS_NETWORK_PLAYLIST", 313: "HLS_NETWORK_NO_KEY_RESPONSE",
        314: "HLS_NETWORK_KEY_LOAD", 315: "HLS_NETWORK_INVALID_SEGMENT", 316: "HLS_SEGMENT_PARSING",
        321: "DASH_NETWORK", 322: "DASH_NO_INIT", 331: "SMOOTH_NETWORK", 332: "SMOOTH_NO_MEDIA_DATA",
        400: "MANIFEST_UNKNOWN", 411: "HLS_MANIFEST_MASTER", 412: "HLS_MANIFEST_PLAYLIST",
        420: "DASH_MANIFEST_UNKNOWN", 421: "DASH_MANIFEST_NO_PERIODS", 422: "DASH_MANIFEST_NO_MIMETYPE",
        423: "DASH_INVALID_SEGMENT_INFO", 431: "SMOOTH_MANIFEST",
        500: "SEGMENT_UNKNOWN", 600: "TEXT_UNKNOWN",
        900: "APP", 901: "BREAK_CLIP_LOADING_ERROR", 902: "BREAK_SEEK_INTERCEPTOR_ERROR", 903: "IMAGE_ERROR",
        904: "LOAD_INTERRUPTED", 905: "LOAD_FAILED", 906: "MEDIA_ERROR_MESSAGE", 999: "GENERIC",
    ]
}
