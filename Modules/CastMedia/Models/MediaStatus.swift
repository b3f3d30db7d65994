public import CastJSON
public import CastMediaMetadata

/// The state of a media session as the receiver reports it (one entry of MEDIA_STATUS `status`).
///
/// Receivers send a status after every command and on every change, to every connected sender.
/// `currentTime` is not re-sent while playing: use ``MediaPosition`` to extrapolate.
public struct MediaStatus: Sendable, Hashable, Codable {
    /// The media session id; commands must name the latest one.
    public var mediaSessionId: Int
    /// Playing, paused, buffering or idle.
    public var playerState: PlayerState
    /// Why the player is idle, when it is for a known reason.
    public var idleReason: IdleReason?
    /// The position in seconds when the status was made.
    public var currentTime: Double
    /// The playback rate (1 is normal speed).
    public var playbackRate: Double
    /// The commands the session accepts.
    public var supportedMediaCommands: SupportedMediaCommands
    /// The stream volume.
    public var volume: MediaVolume?
    /// The active track ids.
    public var activeTrackIds: [Int]?
    /// The media; absent in some statuses (end of queue, GET_STATUS with NO_METADATA).
    public var media: MediaInformation? {
        get { mediaBox?.media }
        set { mediaBox = newValue.map(MediaBox.init) }
    }
    /// ``media``, shared by the copies of this status and by the items and statuses that repeat it
    /// (see `MediaBox`).
    var mediaBox: MediaBox?
    /// The current queue item id.
    public var currentItemId: Int?
    /// The id of the item being loaded, while one loads.
    public var loadingItemId: Int?
    /// The id of the preloaded next item, once preloaded.
    public var preloadedItemId: Int?
    /// A window of the queue: previous (if any), current and next (if any) items.
    public var items: [QueueItem]?
    /// The repeat mode.
    public var repeatMode: RepeatMode?
    /// The queue description.
    public var queueData: QueueData?
    /// Application data.
    public var customData: CastCustomData?
    /// Ad break state, as sent.
    public var breakStatus: JSONValue?
    /// The seekable range of a live stream.
    public var liveSeekableRange: LiveSeekableRange?
    /// The video size and dynamic range.
    public var videoInfo: VideoInformation?
    /// The state CAF reports beside IDLE while loading.
    public var extendedStatus: ExtendedMediaStatus?

    /// Creates a status.
    public init(mediaSessionId: Int, playerState: PlayerState, idleReason: IdleReason? = nil, currentTime: Double = 0,
                playbackRate: Double = 1, supportedMediaCommands: SupportedMediaCommands = [], volume: MediaVolume? = nil,
                activeTrackIds: [Int]? = nil, media: MediaInformation? = nil, currentItemId: Int? = nil,
                loadingItemId: Int? = nil, preloadedItemId: Int? = nil, items: [QueueItem]? = nil,
                repeatMode: RepeatMode? = nil, queueData: QueueData? = nil, customData: CastCustomData? = nil,
                breakStatus: JSONValue? = nil, liveSeekableRange: LiveSeekableRange? = nil,
                videoInfo: VideoInformation? = nil, extendedStatus: ExtendedMediaStatus? = nil) {
        self.mediaSessionId = mediaSessionId
        self.playerState = playerState
        self.idleReason = idleReason
        self.currentTime = currentTime
        self.playbackRate = playbackRate
        self.supportedMediaCommands = supportedMediaCommands
        self.volume = volume
        self.activeTrackIds = activeTrackIds
        self.mediaBox = media.map(MediaBox.init)
        self.currentItemId = currentItemId
        self.loadingItemId = loadingItemId
        self.preloadedItemId = preloadedItemId
        self.items = items
        self.repeatMode = repeatMode
        self.queueData = queueData
        self.customData = customData
        self.breakStatus = breakStatus
        self.liveSeekableRange = liveSeekableRange
        self.videoInfo = videoInfo
        self.extendedStatus = extendedStatus
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case mediaSessionId, playerState, idleReason, currentTime, playbackRate, supportedMediaCommands, volume,
            activeTrackIds, media, currentItemId, loadingItemId, preloadedItemId, items, repeatMode, queueData,
            customData, breakStatus, liveSeekableRange, videoInfo, extendedStatus
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads a status; `mediaSessionId` is required, everything else is read tolerantly (a member of the wrong
    /// type reads as absent; for `items` and `activeTrackIds`, one unreadable element drops the list).
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or `mediaSessionId` is not an integer.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "MediaStatus")
        mediaSessionId = try reader.requiredInt(.mediaSessionId)
        playerState = reader.enumeration(.playerState) ?? .unknown
        idleReason = reader.enumeration(.idleReason)
        currentTime = reader.double(.currentTime) ?? 0
        playbackRate = reader.double(.playbackRate) ?? 1
        supportedMediaCommands = reader.int(.supportedMediaCommands).map(SupportedMediaCommands.init(rawValue:)) ?? []
        volume = reader.model(.volume, MediaVolume.init(json:))
        activeTrackIds = reader.ints(.activeTrackIds)
        mediaBox = reader.model(.media, MediaInformation.init(json:)).map(MediaBox.init)
        currentItemId = reader.int(.currentItemId)
        loadingItemId = reader.int(.loadingItemId)
        preloadedItemId = reader.int(.preloadedItemId)
        items = reader.models(.items, QueueItem.init(json:))
        repeatMode = reader.enumeration(.repeatMode)
        queueData = reader.model(.queueData, QueueData.init(json:))
        customData = reader[.customData].map(CastCustomData.init)
        breakStatus = reader[.breakStatus]
        liveSeekableRange = reader.model(.liveSeekableRange, LiveSeekableRange.init(json:))
        videoInfo = reader.model(.videoInfo, VideoInformation.init(json:))
        extendedStatus = reader.model(.extendedStatus, ExtendedMediaStatus.init(json:))
    }

    /// Decodes a status (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the status with the wire names, absent members left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mediaSessionId, forKey: .mediaSessionId)
        try container.encode(playerState, forKey: .playerState)
        try container.encodeIfPresent(idleReason, forKey: .idleReason)
        try container.encode(currentTime, forKey: .currentTime)
        try container.encode(playbackRate, forKey: .playbackRate)
        try container.encode(supportedMediaCommands, forKey: .supportedMediaCommands)
        try container.encodeIfPresent(volume, forKey: .volume)
        try container.encodeIfPresent(activeTrackIds, forKey: .activeTrackIds)
        try container.encodeIfPresent(media, forKey: .media)
        try container.encodeIfPresent(currentItemId, forKey: .currentItemId)
        try container.encodeIfPresent(loadingItemId, forKey: .loadingItemId)
        try container.encodeIfPresent(preloadedItemId, forKey: .preloadedItemId)
        try container.encodeIfPresent(items, forKey: .items)
        try container.encodeIfPresent(repeatMode, forKey: .repeatMode)
        try container.encodeIfPresent(queueData, forKey: .queueData)
        try container.encodeIfPresent(customData, forKey: .customData)
        try container.encodeIfPresent(breakStatus, forKey: .breakStatus)
        try container.encodeIfPresent(liveSeekableRange, forKey: .liveSeekableRange)
        try container.encodeIfPresent(videoInfo, forKey: .videoInfo)
        try container.encodeIfPresent(extendedStatus, forKey: .extendedStatus)
    }

    /// Whether the player is loading: IDLE with an extended LOADING status, or a loading item.
    public var isLoading: Bool {
        extendedStatus?.playerState == .loading || playerState == .loading
    }
}

/// The seekable window of a live stream (`liveSeekableRange`).
public struct LiveSeekableRange: Sendable, Hashable, Codable {
    /// The start, in seconds.
    public var start: Double?
    /// The end, in seconds.
    public var end: Double?
    /// Whether the window moves with time.
    public var isMovingWindow: Bool?
    /// Whether the live event is over.
    public var isLiveDone: Bool?

    /// Creates a range.
    public init(start: Double? = nil, end: Double? = nil, isMovingWindow: Bool? = nil, isLiveDone: Bool? = nil) {
        self.start = start
        self.end = end
        self.isMovingWindow = isMovingWindow
        self.isLiveDone = isLiveDone
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case start, end, isMovingWindow, isLiveDone
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads `{start?, end?, isMovingWindow?, isLiveDone?}`; `null` reads as absent.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or a member has the wrong type.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "LiveSeekableRange")
        start = try reader.strictDouble(.start)
        end = try reader.strictDouble(.end)
        isMovingWindow = try reader.strictBool(.isMovingWindow)
        isLiveDone = try reader.strictBool(.isLiveDone)
    }

    /// Decodes a range (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }
}

/// The size and dynamic range of the video (`videoInfo`).
public struct VideoInformation: Sendable, Hashable, Codable {
    /// The dynamic range (`hdrType`).
    public struct HDRType: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Standard dynamic range.
        public static let sdr = HDRType(rawValue: "sdr")
        /// HDR.
        public static let hdr = HDRType(rawValue: "hdr")
        /// Dolby Vision.
        public static let dolbyVision = HDRType(rawValue: "dv")
    }

    /// The width in pixels.
    public var width: Int?
    /// The height in pixels.
    public var height: Int?
    /// The dynamic range.
    public var hdrType: HDRType?

    /// Creates video information.
    public init(width: Int? = nil, height: Int? = nil, hdrType: HDRType? = nil) {
        self.width = width
        self.height = height
        self.hdrType = hdrType
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case width, height, hdrType
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads `{width?, height?, hdrType?}`; `null` reads as absent.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or a member has the wrong type.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "VideoInformation")
        width = try reader.strictInt(.width)
        height = try reader.strictInt(.height)
        hdrType = try reader.strictString(.hdrType).map(HDRType.init(rawValue:))
    }

    /// Decodes video information (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }
}

/// The extended state CAF reports while a LOAD is in progress (`extendedStatus`).
public struct ExtendedMediaStatus: Sendable, Hashable, Codable {
    /// The extended state, such as LOADING.
    public var playerState: PlayerState
    /// The media being loaded.
    public var media: MediaInformation? {
        get { mediaBox?.media }
        set { mediaBox = newValue.map(MediaBox.init) }
    }
    /// ``media`` behind one reference (see `MediaBox`): an extended status is part of every copy of its status.
    var mediaBox: MediaBox?
    /// The media session id.
    public var mediaSessionId: Int?

    /// Creates an extended status.
    public init(playerState: PlayerState, media: MediaInformation? = nil, mediaSessionId: Int? = nil) {
        self.playerState = playerState
        self.mediaBox = media.map(MediaBox.init)
        self.mediaSessionId = mediaSessionId
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case playerState, media, mediaSessionId
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads `{playerState, media?, mediaSessionId?}`; `playerState` is required, `null` reads as absent.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object, `playerState` is not a string,
    ///   `media` is not an object or `mediaSessionId` is not an integer.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "ExtendedMediaStatus")
        guard let state = reader.string(.playerState) else { throw reader.mismatch(.playerState, expected: "a string") }
        playerState = PlayerState(rawValue: state)
        mediaBox = try reader[.media].map { value throws(JSONError) in MediaBox(try MediaInformation(json: value)) }
        mediaSessionId = try reader.strictInt(.mediaSessionId)
    }

    /// Decodes an extended status (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the extended status with the wire names, absent members left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(playerState, forKey: .playerState)
        try container.encodeIfPresent(media, forKey: .media)
        try container.encodeIfPresent(mediaSessionId, forKey: .mediaSessionId)
    }
}

/// A MEDIA_STATUS message: `{"type":"MEDIA_STATUS","requestId":n,"status":[…]}`.
public struct MediaStatusMessage: Sendable, Hashable, Codable {
    /// The request this status answers; 0 or absent for a broadcast.
    public var requestId: Int?
    /// Zero or one statuses; empty means no media session.
    public var status: [MediaStatus]

    /// Creates a message.
    public init(requestId: Int? = nil, status: [MediaStatus]) {
        self.requestId = requestId
        self.status = status
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case type, requestId, status
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads the message; a status entry that cannot be read (no `mediaSessionId`) is skipped, a `status`
    /// that is not an array reads as empty, a `requestId` that is not an integer as absent.
    /// - Throws: `JSONError` (`typeMismatch`) only when the value is not an object.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "MediaStatusMessage")
        requestId = reader.int(.requestId)
        status = reader.readableModels(.status, MediaStatus.init(json:))
    }

    /// Decodes the message (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the message with `type` MEDIA_STATUS.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("MEDIA_STATUS", forKey: .type)
        try container.encodeIfPresent(requestId, forKey: .requestId)
        try container.encode(status, forKey: .status)
    }

    /// The first status, when there is a media session.
    public var first: MediaStatus? { status.first }
}
