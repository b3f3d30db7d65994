public import CastJSON
import CastMediaMetadata

/// A string-valued enumeration of the Cast protocol that keeps values it does not know.
///
/// Each conforming type is a `RawRepresentable` struct with `static let` values, so a receiver sending a
/// new value never fails decoding: the value is kept and compares unequal to every known one.
public protocol CastStringEnumeration: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible
where RawValue == String {
    /// Creates a value from its wire string.
    init(rawValue: String)
}

extension CastStringEnumeration {
    /// The wire string.
    public var description: String { rawValue }

    /// Reads the wire string; any string is kept.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not a string.
    public init(json: JSONValue) throws(JSONError) {
        guard case .string(let text) = json else {
            throw JSONError(code: .typeMismatch, message: "\(Self.self) must be a string, not \(json.shortDescription)")
        }
        self.init(rawValue: text)
    }

    /// Decodes the wire string (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }
}

/// The state of a media player (`playerState`).
public struct PlayerState: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Nothing playing (see ``MediaStatus/idleReason``).
    public static let idle = PlayerState(rawValue: "IDLE")
    /// Playing.
    public static let playing = PlayerState(rawValue: "PLAYING")
    /// Paused.
    public static let paused = PlayerState(rawValue: "PAUSED")
    /// Waiting for data.
    public static let buffering = PlayerState(rawValue: "BUFFERING")
    /// Loading (reported by CAF in ``MediaStatus/extendedStatus``).
    public static let loading = PlayerState(rawValue: "LOADING")
    /// Unknown (sender-side placeholder).
    public static let unknown = PlayerState(rawValue: "UNKNOWN")
}

/// Why a player is idle (`idleReason`).
public struct IdleReason: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Stopped by a sender (STOP).
    public static let cancelled = IdleReason(rawValue: "CANCELLED")
    /// Replaced by another LOAD.
    public static let interrupted = IdleReason(rawValue: "INTERRUPTED")
    /// Played to the end.
    public static let finished = IdleReason(rawValue: "FINISHED")
    /// Failed.
    public static let error = IdleReason(rawValue: "ERROR")
    /// Completed (listed by some senders, not by CAF).
    public static let completed = IdleReason(rawValue: "COMPLETED")
}

/// How media is delivered (`streamType`). Lower-case values from older devices are read as upper-case.
public struct StreamType: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value; the known values are matched case-insensitively.
    public init(rawValue: String) {
        switch rawValue {
        case "BUFFERED", "LIVE", "NONE":
            self.rawValue = rawValue
        default:
            let upper = rawValue.uppercased()
            self.rawValue = ["BUFFERED", "LIVE", "NONE"].contains(upper) ? upper : rawValue
        }
    }
    /// On-demand media with a duration.
    public static let buffered = StreamType(rawValue: "BUFFERED")
    /// A live stream.
    public static let live = StreamType(rawValue: "LIVE")
    /// Neither (for example a photo).
    public static let none = StreamType(rawValue: "NONE")
}

/// The state to resume in after a seek (`resumeState`).
public struct ResumeState: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Play after seeking.
    public static let playbackStart = ResumeState(rawValue: "PLAYBACK_START")
    /// Pause after seeking.
    public static let playbackPause = ResumeState(rawValue: "PLAYBACK_PAUSE")
}

/// What happens at the end of a queue item (`repeatMode`).
public struct RepeatMode: CastStringEnumeration, CaseIterable {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Stop at the end of the queue (the default).
    public static let off = RepeatMode(rawValue: "REPEAT_OFF")
    /// Start over at the end of the queue.
    public static let all = RepeatMode(rawValue: "REPEAT_ALL")
    /// Repeat the current item.
    public static let single = RepeatMode(rawValue: "REPEAT_SINGLE")
    /// Shuffle and start over at the end of the queue.
    public static let allAndShuffle = RepeatMode(rawValue: "REPEAT_ALL_AND_SHUFFLE")
    /// The four known modes.
    public static let allCases: [RepeatMode] = [.off, .all, .single, .allAndShuffle]
}

/// The kind of a queue (`queueType`).
public struct QueueType: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An album.
    public static let album = QueueType(rawValue: "ALBUM")
    /// A playlist.
    public static let playlist = QueueType(rawValue: "PLAYLIST")
    /// An audiobook.
    public static let audiobook = QueueType(rawValue: "AUDIOBOOK")
    /// A radio station.
    public static let radioStation = QueueType(rawValue: "RADIO_STATION")
    /// A podcast series.
    public static let podcastSeries = QueueType(rawValue: "PODCAST_SERIES")
    /// A TV series.
    public static let tvSeries = QueueType(rawValue: "TV_SERIES")
    /// A video playlist.
    public static let videoPlaylist = QueueType(rawValue: "VIDEO_PLAYLIST")
    /// Live TV.
    public static let liveTV = QueueType(rawValue: "LIVE_TV")
    /// A movie.
    public static let movie = QueueType(rawValue: "MOVIE")
}

/// The segment format of HLS audio (`hlsSegmentFormat`).
public struct HLSSegmentFormat: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// AAC.
    public static let aac = HLSSegmentFormat(rawValue: "aac")
    /// AC-3.
    public static let ac3 = HLSSegmentFormat(rawValue: "ac3")
    /// E-AC-3.
    public static let eac3 = HLSSegmentFormat(rawValue: "e_ac3")
    /// Fragmented MP4.
    public static let fmp4 = HLSSegmentFormat(rawValue: "fmp4")
    /// MP3.
    public static let mp3 = HLSSegmentFormat(rawValue: "mp3")
    /// MPEG-2 transport stream.
    public static let ts = HLSSegmentFormat(rawValue: "ts")
    /// AAC in a transport stream.
    public static let tsAAC = HLSSegmentFormat(rawValue: "ts_aac")
}

/// The segment format of HLS video (`hlsVideoSegmentFormat`).
public struct HLSVideoSegmentFormat: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Fragmented MP4.
    public static let fmp4 = HLSVideoSegmentFormat(rawValue: "fmp4")
    /// MPEG-2 transport stream.
    public static let mpeg2TS = HLSVideoSegmentFormat(rawValue: "mpeg2_ts")
}

/// The broad kind of media (`mediaCategory`).
public struct MediaCategory: CastStringEnumeration {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Audio.
    public static let audio = MediaCategory(rawValue: "AUDIO")
    /// Video.
    public static let video = MediaCategory(rawValue: "VIDEO")
    /// An image.
    public static let image = MediaCategory(rawValue: "IMAGE")
}
