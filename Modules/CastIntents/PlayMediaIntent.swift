/// A request to play media: the Linux counterpart of SiriKit's `INPlayMediaIntent`.
///
/// An intent names the items to play, the container they belong to, or both. An intent with
/// neither means "play something" (the resolver resumes the most recent donation); such an intent
/// can be handled but not donated or suggested (``CastIntentsError/Code/emptyIntent``).
public struct PlayMediaIntent: Sendable, Hashable, Codable {
    /// The most media items one intent may name: 1 000.
    public static let maximumItemCount = 1_000
    /// The accepted playback speeds: 0.25 to 4.0 (1.0 is normal speed).
    public static let playbackSpeedRange: ClosedRange<Double> = 0.25...4.0

    /// The items to play, in order.
    public let mediaItems: [MediaItem]
    /// The show, album or playlist the items belong to (or to play when ``mediaItems`` is empty).
    public let mediaContainer: MediaItem?
    /// Whether to shuffle; `nil` leaves it to the player (no shuffle).
    public let playShuffled: Bool?
    /// How to repeat; `nil` leaves it to the player (no repetition).
    public let repeatMode: PlaybackRepeatMode?
    /// Whether to resume where the user stopped rather than start over; `nil` means no.
    public let resumePlayback: Bool?
    /// The playback rate; `nil` means normal speed.
    public let playbackSpeed: Double?

    /// Creates an intent.
    /// - Throws: ``CastIntentsError/Code/tooManyItems``, ``CastIntentsError/Code/invalidPlaybackSpeed``,
    ///   ``CastIntentsError/Code/invalidRepeatMode``.
    public init(
        mediaItems: [MediaItem] = [], mediaContainer: MediaItem? = nil, playShuffled: Bool? = nil,
        repeatMode: PlaybackRepeatMode? = nil, resumePlayback: Bool? = nil, playbackSpeed: Double? = nil
    ) throws(CastIntentsError) {
        if mediaItems.count > Self.maximumItemCount {
            throw CastIntentsError(
                code: .tooManyItems,
                message: "The intent names \(mediaItems.count) media items; at most \(Self.maximumItemCount) are allowed.")
        }
        if let playbackSpeed, !(playbackSpeed.isFinite && Self.playbackSpeedRange.contains(playbackSpeed)) {
            throw CastIntentsError(
                code: .invalidPlaybackSpeed,
                message: "The playback speed \(playbackSpeed) is outside \(Self.playbackSpeedRange.lowerBound)...\(Self.playbackSpeedRange.upperBound).")
        }
        if let repeatMode { _ = try PlaybackRepeatMode(validating: repeatMode.rawValue) }
        self.mediaItems = mediaItems
        self.mediaContainer = mediaContainer
        self.playShuffled = playShuffled
        self.repeatMode = repeatMode
        self.resumePlayback = resumePlayback
        self.playbackSpeed = playbackSpeed
    }

    /// Whether the intent names no content at all.
    public var isEmpty: Bool { mediaItems.isEmpty && mediaContainer == nil }

    /// The item that stands for the intent: the first media item, or the container when there are
    /// no items. Stores count frequency and filter predictions by this item.
    public var primaryItem: MediaItem? { mediaItems.first ?? mediaContainer }

    /// The identifier of the container the intent plays from: the ``mediaContainer``'s identifier,
    /// or else the first media item's ``MediaItem/containerIdentifier``.
    public var containerIdentifier: String? {
        mediaContainer?.identifier ?? mediaItems.first?.containerIdentifier
    }

    /// Checks that the intent names content (as donations and suggestions must).
    /// - Throws: ``CastIntentsError/Code/emptyIntent``.
    public func validateHasContent() throws(CastIntentsError) {
        if isEmpty {
            throw CastIntentsError(code: .emptyIntent, message: "The intent names neither media items nor a container.")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case mediaItems, mediaContainer, playShuffled, repeatMode, resumePlayback, playbackSpeed
    }

    /// Decodes and validates an intent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                mediaItems: c.decodeIfPresent([MediaItem].self, forKey: .mediaItems) ?? [],
                mediaContainer: c.decodeIfPresent(MediaItem.self, forKey: .mediaContainer),
                playShuffled: c.decodeIfPresent(Bool.self, forKey: .playShuffled),
                repeatMode: c.decodeIfPresent(PlaybackRepeatMode.self, forKey: .repeatMode),
                resumePlayback: c.decodeIfPresent(Bool.self, forKey: .resumePlayback),
                playbackSpeed: c.decodeIfPresent(Double.self, forKey: .playbackSpeed))
        } catch let error as CastIntentsError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the intent; absent optional values are omitted.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !mediaItems.isEmpty { try c.encode(mediaItems, forKey: .mediaItems) }
        try c.encodeIfPresent(mediaContainer, forKey: .mediaContainer)
        try c.encodeIfPresent(playShuffled, forKey: .playShuffled)
        try c.encodeIfPresent(repeatMode, forKey: .repeatMode)
        try c.encodeIfPresent(resumePlayback, forKey: .resumePlayback)
        try c.encodeIfPresent(playbackSpeed, forKey: .playbackSpeed)
    }
}
