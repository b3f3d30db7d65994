public import CastStreaming

extension CastMirroringOptions {
    /// The video a mirroring OFFER describes: the picture size and rate of its source.
    public struct OfferedVideo: Sendable, Hashable {
        /// The picture width.
        public var width: Int
        /// The picture height.
        public var height: Int
        /// Frames per second.
        public var frameRate: Int

        /// The picture size and rate of a source.
        public init(width: Int, height: Int, frameRate: Int) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
        }
    }

    /// The OFFER a mirroring session sends for these options: audio first (index 0, Opus at 48 kHz, payload
    /// type 127), then video (payload type 96, 90 kHz), each with its own random SSRC, AES key and IV mask,
    /// and every field Open Screen's sender writes (checked against an OFFER captured from `cast-sender`).
    /// - Parameters:
    ///   - video: the video stream's size and rate; `nil` for sound alone.
    ///   - audioChannels: the audio stream's channels; `nil` for pictures alone.
    ///   - random: where SSRCs and keys come from.
    public func offer(
        video: OfferedVideo?, audioChannels: Int?, using random: inout some RandomNumberGenerator
    ) -> StreamingOffer {
        var streams: [OfferedStream] = []
        func key() -> [UInt8] { (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) } }
        let delay = Int(targetDelay.components.seconds * 1000 + targetDelay.components.attoseconds / 1_000_000_000_000_000)
        if let audioChannels {
            let ssrc = UInt32.random(in: 1...50_000, using: &random)
            streams.append(OfferedStream(
                index: 0, codec: .opus, payloadType: 127, ssrc: ssrc, targetDelay: delay, aesKey: key(), aesIvMask: key(),
                timeBase: AudioChunk.sampleRate, channels: audioChannels, bitRate: audioBitRate, receiverRtcpEventLog: true))
        }
        if let video {
            // Video SSRCs are drawn apart from audio's, so the two never collide.
            let ssrc = UInt32.random(in: 50_001...100_000, using: &random)
            streams.append(OfferedStream(
                index: streams.count, codec: videoCodec, payloadType: 96, ssrc: ssrc, targetDelay: delay, aesKey: key(),
                aesIvMask: key(), timeBase: 90_000, channels: 1, bitRate: maximumVideoBitRate,
                maxFrameRate: Double(video.frameRate),
                resolutions: [OfferedStream.Resolution(width: video.width, height: video.height)], receiverRtcpEventLog: true))
        }
        return StreamingOffer(mode: .mirroring, streams: streams)
    }
}
