public import CastStreaming

/// How a mirroring session encodes and how long it waits.
public struct CastMirroringOptions: Sendable {
    /// The video codec offered (VP8 or VP9; the device's ANSWER decides).
    public var videoCodec: StreamingCodec
    /// The highest video bit rate, in bits per second.
    public var maximumVideoBitRate: Int
    /// The lowest video bit rate the rate control goes down to.
    public var minimumVideoBitRate: Int
    /// The video bit rate to start with.
    public var initialVideoBitRate: Int
    /// The audio bit rate, in bits per second.
    public var audioBitRate: Int
    /// The target playout delay: how far behind the source the device plays.
    public var targetDelay: Duration
    /// How long the mirroring app may take to launch.
    public var launchTimeout: Duration
    /// How long the device may take to ANSWER the OFFER.
    public var answerTimeout: Duration
    /// How long the device may stay without sending RTCP before the session ends.
    public var receiverSilenceTimeout: Duration
    /// How long a source may go without a frame before the session ends.
    public var captureStallTimeout: Duration

    /// Options with the defaults of a LAN: VP8, up to 5 Mbit/s of video, Opus at 128 kbit/s, 400 ms
    /// target delay, 10 s to launch and to answer, 5 s of silence or stall.
    public init(
        videoCodec: StreamingCodec = .vp8, maximumVideoBitRate: Int = 5_000_000, minimumVideoBitRate: Int = 300_000,
        initialVideoBitRate: Int = 2_000_000, audioBitRate: Int = 128_000, targetDelay: Duration = .milliseconds(400),
        launchTimeout: Duration = .seconds(10), answerTimeout: Duration = .seconds(10), receiverSilenceTimeout: Duration = .seconds(5),
        captureStallTimeout: Duration = .seconds(5)
    ) {
        self.videoCodec = videoCodec
        self.maximumVideoBitRate = maximumVideoBitRate
        self.minimumVideoBitRate = minimumVideoBitRate
        self.initialVideoBitRate = initialVideoBitRate
        self.audioBitRate = audioBitRate
        self.targetDelay = targetDelay
        self.launchTimeout = launchTimeout
        self.answerTimeout = answerTimeout
        self.receiverSilenceTimeout = receiverSilenceTimeout
        self.captureStallTimeout = captureStallTimeout
    }
}

/// What a mirroring session did, stream by stream.
public struct CastMirroringStatistics: Sendable, CustomStringConvertible {
    /// The video stream's sender, when video was negotiated.
    public var video: StreamSender.Statistics?
    /// The audio stream's sender, when audio was negotiated.
    public var audio: StreamSender.Statistics?
    /// Pictures the source produced.
    public var framesCaptured = 0
    /// Pictures the encoder skipped because it was still busy with an earlier one.
    public var framesSkippedByEncoder = 0
    /// The video bit rate now, in bits per second.
    public var videoBitRate: Int?

    /// `video: frames …; audio: frames …; captured 240 (skipped 0); 2000 kbit/s`.
    public var description: String {
        var parts: [String] = []
        if let video { parts.append("video: \(video)") }
        if let audio { parts.append("audio: \(audio)") }
        parts.append("captured \(framesCaptured) (skipped \(framesSkippedByEncoder))")
        if let videoBitRate { parts.append("\(videoBitRate / 1000) kbit/s") }
        return parts.joined(separator: "; ")
    }
}
