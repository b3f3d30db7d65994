/// The commands a media session accepts now (`supportedMediaCommands` bitmask).
public struct SupportedMediaCommands: OptionSet, Sendable, Hashable, Codable {
    /// The bitmask.
    public var rawValue: Int
    /// Creates a set from the bitmask (unknown bits are kept).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: pause.
    public static let pause = SupportedMediaCommands(rawValue: 1)
    /// 2: seek.
    public static let seek = SupportedMediaCommands(rawValue: 2)
    /// 4: stream volume.
    public static let streamVolume = SupportedMediaCommands(rawValue: 4)
    /// 8: stream mute.
    public static let streamMute = SupportedMediaCommands(rawValue: 8)
    /// 16: skip forward (legacy).
    public static let skipForward = SupportedMediaCommands(rawValue: 16)
    /// 32: skip backward (legacy).
    public static let skipBackward = SupportedMediaCommands(rawValue: 32)
    /// 64: next queue item.
    public static let queueNext = SupportedMediaCommands(rawValue: 64)
    /// 128: previous queue item.
    public static let queuePrevious = SupportedMediaCommands(rawValue: 128)
    /// 256: shuffle the queue.
    public static let queueShuffle = SupportedMediaCommands(rawValue: 256)
    /// 512: skip an ad.
    public static let skipAd = SupportedMediaCommands(rawValue: 512)
    /// 1024: repeat the whole queue.
    public static let queueRepeatAll = SupportedMediaCommands(rawValue: 1024)
    /// 2048: repeat one item.
    public static let queueRepeatOne = SupportedMediaCommands(rawValue: 2048)
    /// 3072: both repeat modes.
    public static let queueRepeat: SupportedMediaCommands = [.queueRepeatAll, .queueRepeatOne]
    /// 4096: edit tracks.
    public static let editTracks = SupportedMediaCommands(rawValue: 4096)
    /// 8192: change the playback rate.
    public static let playbackRate = SupportedMediaCommands(rawValue: 8192)
    /// 12303: pause, seek, volume, mute, edit tracks, playback rate.
    public static let allBasicMedia = SupportedMediaCommands(rawValue: 12303)
    /// 16384: like.
    public static let like = SupportedMediaCommands(rawValue: 16384)
    /// 32768: dislike.
    public static let dislike = SupportedMediaCommands(rawValue: 32768)
    /// 65536: follow.
    public static let follow = SupportedMediaCommands(rawValue: 65536)
    /// 131072: unfollow.
    public static let unfollow = SupportedMediaCommands(rawValue: 131072)
    /// 262144: stream transfer.
    public static let streamTransfer = SupportedMediaCommands(rawValue: 262144)

    /// Decodes the integer (a whole-number double is accepted).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) {
            rawValue = value
        } else {
            let value = try container.decode(Double.self)
            guard value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "supportedMediaCommands \(value) is not an integer bitmask")
            }
            rawValue = Int(value)
        }
    }

    /// Encodes the integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
