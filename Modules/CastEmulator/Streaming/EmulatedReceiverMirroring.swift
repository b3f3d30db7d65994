public import CastStreaming

/// How the emulated device takes Cast Streaming: screen and tab mirroring (app `0F5096E8`) and audio
/// mirroring (`85CDB22F`), negotiated on `urn:x-cast:com.google.cast.webrtc` and received over UDP.
///
/// The defaults are a Chromecast's: VP8 and H.264 (VP9, HEVC and AV1 only when listed), Opus and
/// AAC, up to 1920×1080 at 30 fps. ``EmulatedReceiver`` records what arrives when ``recordDirectory``
/// is set.
public struct EmulatedReceiverMirroring: Sendable, Hashable {
    /// The video codecs the device decodes, in the order it prefers them when an OFFER has several.
    public var videoCodecs: [StreamingCodec]
    /// The audio codecs the device decodes, in preference order.
    public var audioCodecs: [StreamingCodec]
    /// The largest picture the device shows.
    public var maximumWidth: Int
    /// The tallest picture the device shows.
    public var maximumHeight: Int
    /// The highest frame rate the device shows.
    public var maximumFrameRate: Double
    /// The highest video bit rate the device takes, in bits per second.
    public var maximumVideoBitRate: Int
    /// The highest audio bit rate the device takes, in bits per second.
    public var maximumAudioBitRate: Int
    /// The UDP port to receive on; 0 picks a free one per session.
    public var port: Int
    /// The port the ANSWER names, when packets reach the device through a forwarder (a NAT, a test's
    /// lossy relay); `nil` names the bound port.
    public var advertisedPort: Int?
    /// How long a negotiated session may go without a packet before the device ends it (and stops the
    /// app, as a device that lost its sender does).
    public var idleTimeout: Duration
    /// The most datagrams a second the device reads from a session before it drops the sender as a flood.
    public var maximumPacketRate: Int
    /// Where each session's streams are written as playable files (`nil`: not recorded).
    public var recordDirectory: String?

    /// Creates mirroring settings; the defaults describe a Chromecast.
    public init(
        videoCodecs: [StreamingCodec] = [.vp8, .h264], audioCodecs: [StreamingCodec] = [.opus, .aac], maximumWidth: Int = 1920,
        maximumHeight: Int = 1080, maximumFrameRate: Double = 30, maximumVideoBitRate: Int = 10_000_000,
        maximumAudioBitRate: Int = 256_000, port: Int = 0, advertisedPort: Int? = nil, idleTimeout: Duration = .seconds(10),
        maximumPacketRate: Int = 20_000, recordDirectory: String? = nil
    ) {
        self.videoCodecs = videoCodecs
        self.audioCodecs = audioCodecs
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.maximumFrameRate = maximumFrameRate
        self.maximumVideoBitRate = maximumVideoBitRate
        self.maximumAudioBitRate = maximumAudioBitRate
        self.port = port
        self.advertisedPort = advertisedPort
        self.idleTimeout = idleTimeout
        self.maximumPacketRate = maximumPacketRate
        self.recordDirectory = recordDirectory
    }
}

/// What a mirroring session on the emulated device received, stream by stream.
public struct EmulatedReceiverMirroringSession: Sendable, Hashable, CustomStringConvertible {
    /// One negotiated stream.
    public struct Stream: Sendable, Hashable, CustomStringConvertible {
        /// The stream's index in the OFFER.
        public var index: Int
        /// Its codec.
        public var codec: StreamingCodec
        /// The sender's SSRC.
        public var ssrc: UInt32
        /// The target playout delay.
        public var targetDelay: Duration
        /// RTP ticks per second (90 000 for video, the sample rate for audio).
        public var timeBase: Int
        /// Audio channels (1 for video).
        public var channels: Int
        /// The RFC 6381 codec parameter the OFFER gave, if any.
        public var codecParameter: String?
        /// What the stream's receiver counted.
        public var statistics: StreamReceiverStatistics
        /// When the first frame played was captured, on the receiver's clock (lip sync across streams).
        public var firstCaptureTime: Duration?
        /// The file the stream is recorded to, when recording.
        public var recording: String?

        /// `video vp8 (ssrc 1234): frames 290 …`.
        public var description: String {
            "\(codec.isVideo ? "video" : "audio") \(codec) (ssrc \(ssrc)): \(statistics)"
        }
    }

    /// The session's number on this device (1 for the first).
    public var number: Int
    /// The app session it belongs to.
    public var appSessionId: String
    /// The mirroring app it runs in: `0F5096E8` (pictures and sound) or `85CDB22F` (sound alone).
    public var appId: String
    /// The sender endpoint that negotiated it.
    public var senderId: String
    /// The negotiated streams.
    public var streams: [Stream]
    /// Whether the session ended, and why.
    public var ended: String?
    /// Datagrams refused before reaching a stream (malformed, unknown SSRC, from another address).
    public var datagramsRefused: Int
    /// The OFFER the session was negotiated from, as the sender wrote it.
    public var offer: String?

    /// `session 1: video vp8 …; audio opus …`.
    public var description: String {
        "session \(number) (app \(appId))\(ended.map { " (ended: \($0))" } ?? ""): " + streams.map(\.description).joined(separator: "; ")
            + (datagramsRefused > 0 ? "; \(datagramsRefused) datagram(s) refused" : "")
    }
}
