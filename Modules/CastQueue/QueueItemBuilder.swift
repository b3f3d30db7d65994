import CastJSON
public import CastMedia
public import CastMediaMetadata

/// Builds a `QueueItem` (CastMedia) step by step (`GCKMediaQueueItemBuilder`).
///
/// ```swift
/// var builder = QueueItemBuilder(media: media)
/// builder.autoplay = true
/// builder.preloadTime = 20
/// let item = builder.build()
/// ```
public struct QueueItemBuilder: Sendable {
    /// What to play.
    public var media: MediaInformation?
    /// Play automatically when the item becomes current (default true).
    public var autoplay: Bool = true
    /// How many seconds before the previous item ends to start loading this one.
    public var preloadTime: Double?
    /// Where to start, in seconds.
    public var startTime: Double?
    /// How long to play, in seconds.
    public var playbackDuration: Double?
    /// The tracks to activate.
    public var activeTrackIds: [Int]?
    /// Application data.
    public var customData: CastCustomData?

    /// Creates a builder, optionally from media.
    public init(media: MediaInformation? = nil) {
        self.media = media
    }

    /// Creates a builder holding an existing item's values (its id is dropped: the receiver assigns ids).
    public init(item: QueueItem) {
        media = item.media
        autoplay = item.autoplay ?? true
        preloadTime = item.preloadTime
        startTime = item.startTime
        playbackDuration = item.playbackDuration
        activeTrackIds = item.activeTrackIds
        customData = item.customData
    }

    /// The item.
    public func build() -> QueueItem {
        QueueItem(media: media, autoplay: autoplay, startTime: startTime, playbackDuration: playbackDuration,
                  preloadTime: preloadTime, activeTrackIds: activeTrackIds, customData: customData)
    }
}
