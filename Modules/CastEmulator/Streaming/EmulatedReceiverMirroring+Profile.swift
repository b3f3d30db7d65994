public import CastDeviceProfiles
public import CastStreaming

extension EmulatedReceiverMirroring {
    /// The video codecs a device of this profile takes in a mirroring session: VP8 and H.264, which every
    /// device with a screen decodes, then VP9, HEVC and AV1 where the profile decodes them (an Ultra or a
    /// Google TV takes VP9; a Chromecast of the 3rd generation does not). An audio-only device takes none:
    /// it mirrors sound alone (app `85CDB22F`). The `CastDeviceProfile.any` profile takes all five.
    public static func videoCodecs(for profile: CastDeviceProfile) -> [StreamingCodec] {
        let order: [(MediaCodec, StreamingCodec)] = [(.vp8, .vp8), (.h264, .h264), (.vp9, .vp9), (.hevc, .hevc), (.av1, .av1)]
        if profile.acceptsEverything { return order.map(\.1) }
        guard profile.hasVideoOutput else { return [] }
        return order.compactMap { media, streaming in
            let decoded: VideoCapability? = profile.capability(for: media)
            return decoded != nil ? streaming : nil
        }
    }

    /// Mirroring settings for a device of this profile: its codecs (``videoCodecs(for:)``), and the
    /// largest picture and highest rate its decoders of those codecs reach (1920×1080 at 30 fps when the
    /// profile lists no sizes). Ports, recording and limits are the defaults; set them afterwards.
    public init(profile: CastDeviceProfile) {
        self.init(videoCodecs: Self.videoCodecs(for: profile))
        let modes = videoCodecs.flatMap { codec -> [VideoMode] in
            guard let media = Self.mediaCodec(codec), let capability: VideoCapability = profile.capability(for: media) else { return [] }
            return capability.modes
        }
        if let largest = modes.max(by: { $0.width * $0.height < $1.width * $1.height }) {
            maximumWidth = max(largest.width, largest.height)
            maximumHeight = min(largest.width, largest.height)
            maximumFrameRate = modes.map(\.frameRate).max() ?? maximumFrameRate
        }
    }

    private static func mediaCodec(_ codec: StreamingCodec) -> MediaCodec? {
        switch codec {
        case .vp8: .vp8
        case .vp9: .vp9
        case .h264: .h264
        case .hevc: .hevc
        case .av1: .av1
        default: nil
        }
    }
}
