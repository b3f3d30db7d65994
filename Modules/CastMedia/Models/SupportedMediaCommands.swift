public import CastJSON
import CastMediaMetadata

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

    /// Reads the integer (a whole-number double such as `15.0` is accepted).
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not a number that is exactly an `Int`.
    public init(json: JSONValue) throws(JSONError) {
        guard let value = json.exactInt else {
            throw JSONError(
                code: .typeMismatch, message: "supportedMediaCommands must be an integer bitmask, not \(json.shortDescription)")
        }
        rawValue = value
    }

    /// Decodes the integer (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
