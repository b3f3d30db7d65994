import CastJSON
import CastMetadata

/// One item of a media queue (`GCKMediaQueueItem`, the `QueueItem` object).
///
/// The receiver assigns ``itemId``; it must be absent when loading or inserting items.
public struct QueueItem: Sendable, Hashable, Codable {
    /// The id the receiver gave the item, unique for the life of the queue.
    public var itemId: Int?
    /// What to play.
    public var media: MediaInformation?
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
        self.media = media
        self.autoplay = autoplay
        self.startTime = startTime
        self.playbackDuration = playbackDuration
        self.preloadTime = preloadTime
        self.activeTrackIds = activeTrackIds
        self.customData = customData
        self.orderId = orderId
        self.additionalFields = additionalFields
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case itemId, media, autoplay, startTime, playbackDuration, preloadTime, activeTrackIds, customData, orderId
    }

    private static let knownKeys = Set(CodingKeys.allCases.map(\.rawValue))

    /// Decodes an item tolerantly.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        itemId = container.lenient(Int.self, .itemId)
        media = container.lenient(MediaInformation.self, .media)
        autoplay = container.lenient(Bool.self, .autoplay)
        startTime = container.lenient(Double.self, .startTime)
        playbackDuration = container.lenient(Double.self, .playbackDuration)
        preloadTime = container.lenient(Double.self, .preloadTime)
        activeTrackIds = container.lenient([Int].self, .activeTrackIds)
        customData = container.lenient(CastCustomData.self, .customData)
        orderId = container.lenient(Int.self, .orderId)
        additionalFields = unknownMembers(from: decoder, known: Self.knownKeys)
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

    private enum CodingKeys: String, CodingKey {
        case id, name, description, entity, queueType, repeatMode, shuffle, items, startIndex, startTime, containerMetadata
    }

    /// Decodes queue data tolerantly.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = container.lenient(String.self, .id)
        name = container.lenient(String.self, .name)
        description = container.lenient(String.self, .description)
        entity = container.lenient(String.self, .entity)
        queueType = container.lenient(QueueType.self, .queueType)
        repeatMode = container.lenient(RepeatMode.self, .repeatMode)
        shuffle = container.lenient(Bool.self, .shuffle)
        items = container.lenient([QueueItem].self, .items)
        startIndex = container.lenient(Int.self, .startIndex)
        startTime = container.lenient(Double.self, .startTime)
        containerMetadata = container.lenient(JSONValue.self, .containerMetadata)
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
}
