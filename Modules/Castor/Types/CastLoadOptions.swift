public import CastQueue

/// Parameters for a load or a resume: one value for both.
public struct CastLoadOptions: Sendable, Hashable, Codable {
    /// The index of the item to start with (never negative).
    public var index: Int { didSet { index = max(0, index) } }
    /// Where to start the item; `nil` means the default position (the start, or the live edge).
    public var time: Duration?
    /// Whether to play once loaded.
    public var shouldPlay: Bool
    /// The playback speed, clamped to 0.5...2.
    public var playbackSpeed: Double { didSet { playbackSpeed = Self.clampSpeed(playbackSpeed) } }
    /// The repeat mode.
    public var repeatMode: CastRepeatMode
    /// The tracks to turn on with the start item, by track id, sent with the load so the receiver
    /// starts with them (`nil`: the receiver's choice, then the player's language preferences; `[]`:
    /// none). A ``CastResumeState`` from a receiver's queue holds the ids that were on: its assets
    /// keep their tracks and ids, so the same tracks come back; its languages apply to later items.
    public var activeTrackIds: [Int]? = nil

    /// Creates options.
    public init(index: Int = 0, time: Duration? = nil, shouldPlay: Bool = true, playbackSpeed: Double = 1,
                repeatMode: CastRepeatMode = .off) {
        self.index = max(0, index)
        self.time = time
        self.shouldPlay = shouldPlay
        self.playbackSpeed = Self.clampSpeed(playbackSpeed)
        self.repeatMode = repeatMode
    }

    static func clampSpeed(_ speed: Double) -> Double { speed.isNaN ? 1 : min(2, max(0.5, speed)) }

    private enum CodingKeys: String, CodingKey { case index, timeSeconds, shouldPlay, playbackSpeed, repeatMode, activeTrackIds }

    /// Decodes options (time in seconds).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let seconds = try container.decodeIfPresent(Double.self, forKey: .timeSeconds)
        self.init(
            index: try container.decodeIfPresent(Int.self, forKey: .index) ?? 0,
            time: seconds.map(Duration.seconds),
            shouldPlay: try container.decodeIfPresent(Bool.self, forKey: .shouldPlay) ?? true,
            playbackSpeed: try container.decodeIfPresent(Double.self, forKey: .playbackSpeed) ?? 1,
            repeatMode: CastRepeatMode(rawValue: try container.decodeIfPresent(String.self, forKey: .repeatMode) ?? "off") ?? .off)
        activeTrackIds = try container.decodeIfPresent([Int].self, forKey: .activeTrackIds)
    }

    /// Encodes options (time in seconds).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encodeIfPresent(time.map(CastReconnectPolicy.seconds), forKey: .timeSeconds)
        try container.encode(shouldPlay, forKey: .shouldPlay)
        try container.encode(playbackSpeed, forKey: .playbackSpeed)
        try container.encode(repeatMode.rawValue, forKey: .repeatMode)
        try container.encodeIfPresent(activeTrackIds, forKey: .activeTrackIds)
    }
}
