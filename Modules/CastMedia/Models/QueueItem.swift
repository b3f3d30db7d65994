public import CastJSON
public import CastMediaMetadata

/// One item of a media queue (`GCKMediaQueueItem`, the `QueueItem` object).
///
/// The receiver assigns ``itemId``; it must be absent when loading or inserting items.
public struct QueueItem: Sendable, Hashable, Codable {
    /// The id the receiver gave the item, unique for the life of the queue.
    public var itemId: Int?
    /// What to play.
    public var media: MediaInformation? {
        get { mediaBox?.media }
        set { mediaBox = newValue.map(MediaBox.init) }
    }
    /// ``media``, shared by the copies of this item and with the status that repeats it (see `MediaBox`).
    var mediaBox: MediaBox?
    /// Whether to play the item automatically when it becomes current (default true).
    public var autoplay: Bool?
    /// Where to start, in seconds.
    public var startTime: Double?
    /// How long to play, in seconds.
    public var playbackDuration: Double?
    /// How many seconds before the end of the previous item to start loading this one.
    public var preloadTime: Double?
    /// The tracks to activate.
    public var activeTrackIds: [Int]?
    /// Application data.
    public var customData: CastCustomData?
    /// The position in the queue, as some receivers report it (`orderId`).
    public var orderId: Int?
    /// Every other member, kept for round trips.
    public var additionalFields: [String: JSONValue]

    /// Creates an item.
    public init(itemId: Int? = nil, media: MediaInformation?, autoplay: Bool? = true, startTime: Double? = nil,
                playbackDuration: Double? = nil, preloadTime: Double? = nil, activeTrackIds: [Int]? = nil,
                customData: CastCustomData? = nil, orderId: Int? = nil, additionalFields: [String: JSONValue] = [:]) {
        self.itemId = itemId
        self.mediaBox = media.map(MediaBox.init)
        self.autoplay = autoplay
        self.startTime = startTime
        self.playbackDuration = playbackDuration
        self.preloadTime = preloadTime
        self.activeTrackIds = activeTrackIds
        self.customData = customData
        self.orderId = orderId
        self.additionalFields = additionalFields
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case itemId, media, autoplay, startTime, playbackDuration, preloadTime, activeTrackIds, customData, orderId
        static let table = JSONKeyTable(CodingKeys.self)
    }

    private static let knownKeys = Set(CodingKeys.table.names)

    /// Reads an item tolerantly: a member of the wrong type reads as absent; unknown members go to
    /// ``additionalFields``.
    /// - Throws: `JSONError` (`typeMismatch`) only when the value is not an object.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "QueueItem", keepingUnknown: true)
        itemId = reader.int(.itemId)
        mediaBox = reader.model(.media, MediaInformation.init(json:)).map(MediaBox.init)
        autoplay = reader.bool(.autoplay)
        startTime = reader.double(.startTime)
        playbackDuration = reader.double(.playbackDuration)
        preloadTime = reader.double(.preloadTime)
        activeTrackIds = reader.ints(.activeTrackIds)
        customData = reader[.customData].map(CastCustomData.init)
        orderId = reader.int(.orderId)
        additionalFields = reader.unknownMembers
    }

    /// Decodes an item (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the item with the wire names.
    public func encode(to encoder: any Encoder) throws {
        try encodeUnknown(additionalFields.filter { !Self.knownKeys.contains($0.key) }, to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(itemId, forKey: .itemId)
        try container.encodeIfPresent(media, forKey: .media)
        try container.encodeIfPresent(autoplay, forKey: .autoplay)
        try container.encodeIfPresent(startTime, forKey: .startTime)
        try container.encodeIfPresent(playbackDuration, forKey: .playbackDuration)
        try container.encodeIfPresent(preloadTime, forKey: .preloadTime)
        try container.encodeIfPresent(activeTrackIds, forKey: .activeTrackIds)
        try container.encodeIfPresent(customData, forKey: .customData)
        try container.encodeIfPresent(orderId, forKey: .orderId)
    }
}

/// A description of a whole queue, sent in LOAD and reported in MEDIA_STATUS (`queueData`).
public struct QueueData: Sendable, Hashable, Codable {
    /// The queue id.
    public var id: String?
    /// The queue name.
    public var name: String?
    /// The queue description.
    public var description: String?
    /// A deep-link entity.
    public var entity: String?
    /// The kind of queue.
    public var queueType: QueueType?
    /// The repeat mode.
    public var repeatMode: RepeatMode?
    /// Whether the queue is shuffled.
    public var shuffle: Bool?
    /// The items (in LOAD).
    public var items: [QueueItem]?
    /// The index of the first item to play.
    public var startIndex: Int?
    /// Where to start the first item, in seconds.
    public var startTime: Double?
    /// Metadata of the container (album, series…).
    public var containerMetadata: JSONValue?

    /// Creates queue data.
    public init(id: String? = nil, name: String? = nil, description: String? = nil, entity: String? = nil,
                queueType: QueueType? = nil, repeatMode: RepeatMode? = nil, shuffle: Bool? = nil,
                items: [QueueItem]? = nil, startIndex: Int? = nil, startTime: Double? = nil,
                containerMetadata: JSONValue? = nil) {
        self.id = id
        self.name = name
        self.description = description
        self.entity = entity
        self.queueType = queueType
        self.repeatMode = repeatMode
        self.shuffle = shuffle
        self.items = items
        self.startIndex = startIndex
        self.startTime = startTime
        self.containerMetadata = containerMetadata
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case id, name, description, entity, queueType, repeatMode, shuffle, items, startIndex, startTime, containerMetadata
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads queue data tolerantly: a member of the wrong type reads as absent (for `items`, one element that
    /// is not an object drops the list).
    /// - Throws: `JSONError` (`typeMismatch`) only when the value is not an object.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "QueueData")
        id = reader.string(.id)
        name = reader.string(.name)
        description = reader.string(.description)
        entity = reader.string(.entity)
        queueType = reader.enumeration(.queueType)
        repeatMode = reader.enumeration(.repeatMode)
        shuffle = reader.bool(.shuffle)
        items = reader.models(.items, QueueItem.init(json:))
        startIndex = reader.int(.startIndex)
        startTime = reader.double(.startTime)
        containerMetadata = reader[.containerMetadata]
    }

    /// Decodes queue data (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }
}

/// A stream volume (`{level, muted}`).
public struct MediaVolume: Sendable, Hashable, Codable {
    /// The level, 0–1.
    public var level: Double?
    /// Whether the stream is muted.
    public var muted: Bool?

    /// Creates a volume.
    public init(level: Double? = nil, muted: Bool? = nil) {
        self.level = level
        self.muted = muted
    }

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case level, muted
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads `{level?, muted?}`; `null` reads as absent.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or a member has the wrong type.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "MediaVolume")
        level = try reader.strictDouble(.level)
        muted = try reader.strictBool(.muted)
    }

    /// Decodes a volume (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }
}
