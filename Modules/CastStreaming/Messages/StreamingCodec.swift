/// A codec of a Cast Streaming stream, as OFFER's `codecName` names it.
public struct StreamingCodec: Sendable, Hashable, CustomStringConvertible {
    /// The wire name (`vp8`, `vp9`, `h264`, `hevc`, `av1`, `opus`, `aac`).
    public let name: String
    /// Whether the codec carries pictures (else sound).
    public let isVideo: Bool

    private init(_ name: String, isVideo: Bool) {
        self.name = name
        self.isVideo = isVideo
    }

    /// VP8.
    public static let vp8 = StreamingCodec("vp8", isVideo: true)
    /// VP9.
    public static let vp9 = StreamingCodec("vp9", isVideo: true)
    /// H.264.
    public static let h264 = StreamingCodec("h264", isVideo: true)
    /// HEVC (OFFERs say `hevc`, not `h265`).
    public static let hevc = StreamingCodec("hevc", isVideo: true)
    /// AV1.
    public static let av1 = StreamingCodec("av1", isVideo: true)
    /// Opus.
    public static let opus = StreamingCodec("opus", isVideo: false)
    /// AAC.
    public static let aac = StreamingCodec("aac", isVideo: false)

    /// Every codec Cast Streaming names.
    public static let all: [StreamingCodec] = [.vp8, .vp9, .h264, .hevc, .av1, .opus, .aac]

    /// The codec with this wire name, ignoring case; `nil` for a name Cast Streaming does not know.
    public init?(name: String) {
        guard let codec = Self.all.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = codec
    }

    /// The RTP payload type Open Screen's sender uses for the codec (VP8 and VP9 share 100, H.264 and
    /// HEVC 101); receivers take any valid type.
    public var payloadType: UInt8 {
        switch name {
        case "opus": 96
        case "aac": 97
        case "vp8", "vp9": 100
        case "h264", "hevc": 101
        case "av1": 104
        default: isVideo ? 102 : 99
        }
    }

    /// The RTP payload types a Cast Streaming packet may carry: the audio range 96…99, the video range
    /// 100…104, and 127 (the audio type some Android TV receivers require).
    public static func isValidPayloadType(_ type: UInt8) -> Bool { (96...104).contains(type) || type == 127 }

    /// The name.
    public var description: String { name }
}

/// Whether a session mirrors a screen (encoded frames) or remotes media (the receiver plays the
/// sender's media stream under RPC control).
public enum StreamingMode: String, Sendable, Hashable {
    /// Screen, tab or desktop mirroring.
    case mirroring
    /// Media remoting.
    case remoting
}
