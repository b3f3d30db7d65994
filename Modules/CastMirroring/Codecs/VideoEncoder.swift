internal import CVPX
import CastStreaming

/// An encoded video or audio frame, before encryption.
public struct EncodedFrame: Sendable {
    /// The encoded bytes.
    public var data: [UInt8]
    /// Whether it decodes alone.
    public var isKeyFrame: Bool
    /// When the source captured it.
    public var captureTime: Duration

    /// Creates a frame.
    public init(data: [UInt8], isKeyFrame: Bool, captureTime: Duration) {
        self.data = data
        self.isKeyFrame = isKeyFrame
        self.captureTime = captureTime
    }
}

/// A VP8 or VP9 encoder (libvpx) set for real time: constant bit rate, no look-ahead, error
/// resilience, a key frame when asked for or every 10 s.
///
/// Not thread-safe: one caller at a time (the session's encoding queue).
public final class VPXEncoder: @unchecked Sendable {
    /// The codec.
    public let codec: StreamingCodec
    /// The picture width it was set up for.
    public let width: Int
    /// The picture height it was set up for.
    public let height: Int
    private var context = vpx_codec_ctx_t()
    private var configuration = vpx_codec_enc_cfg_t()
    private var frameIndex: Int64 = 0
    private let frameRate: Int

    /// Sets up an encoder.
    /// - Throws: `StreamingError` `.encoderFailed` when libvpx refuses the settings.
    public init(codec: StreamingCodec, width: Int, height: Int, frameRate: Int, bitRate: Int) throws(StreamingError) {
        guard codec == .vp8 || codec == .vp9 else {
            throw StreamingError(code: .encoderFailed, message: "libvpx encodes VP8 and VP9, not \(codec)")
        }
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = max(1, frameRate)
        let interface = codec == .vp8 ? castor_vpx_vp8() : castor_vpx_vp9()
        guard vpx_codec_enc_config_default(interface, &configuration, 0) == VPX_CODEC_OK else {
            throw StreamingError(code: .encoderFailed, message: "libvpx has no default \(codec) configuration")
        }
        configuration.g_w = UInt32(width)
        configuration.g_h = UInt32(height)
        configuration.g_timebase = vpx_rational(num: 1, den: Int32(self.frameRate))
        configuration.rc_target_bitrate = UInt32(max(100, bitRate / 1000))
        configuration.rc_end_usage = vpx_rc_mode(rawValue: UInt32(castor_vpx_cbr()))
        configuration.g_lag_in_frames = 0
        configuration.g_error_resilient = UInt32(VPX_ERROR_RESILIENT_DEFAULT)
        // One thread up to 720p: on a busy two-core machine a second libvpx thread cost more in waiting than
        // it saved (640x360 VP8: 17.6 ms a frame with two threads, 1.4 ms with one, under load).
        configuration.g_threads = width * height > 1280 * 720 ? 2 : 1
        configuration.kf_mode = vpx_kf_mode(rawValue: UInt32(castor_vpx_kf_auto()))
        configuration.kf_max_dist = UInt32(self.frameRate * 10)
        configuration.rc_min_quantizer = 4
        configuration.rc_max_quantizer = 56
        configuration.rc_undershoot_pct = 100
        configuration.rc_overshoot_pct = 15
        configuration.rc_buf_initial_sz = 500
        configuration.rc_buf_optimal_sz = 600
        configuration.rc_buf_sz = 1000
        guard castor_vpx_init(&context, interface, &configuration) == VPX_CODEC_OK else {
            throw StreamingError(code: .encoderFailed, message: "libvpx could not start a \(codec) encoder for \(width)x\(height)")
        }
        // Real-time speeds: VP8 12 of 16, VP9 9 (its fastest).
        _ = castor_vpx_control_int(&context, castor_vpx_cpuused_control(), codec == .vp8 ? 12 : 9)
        if codec == .vp9 { _ = castor_vpx_control_int(&context, castor_vpx_vp9_row_mt_control(), 1) }
    }

    deinit { vpx_codec_destroy(&context) }

    /// The target bit rate, in bits per second.
    public var bitRate: Int { Int(configuration.rc_target_bitrate) * 1000 }

    /// Changes the target bit rate.
    public func setBitRate(_ bitRate: Int) {
        configuration.rc_target_bitrate = UInt32(max(100, bitRate / 1000))
        _ = vpx_codec_enc_config_set(&context, &configuration)
    }

    /// Encodes a picture (of the size the encoder was set up for), a key frame when asked.
    /// - Throws: `StreamingError` `.encoderFailed` when libvpx refuses the picture.
    public func encode(_ frame: VideoFrame, keyFrame: Bool) throws(StreamingError) -> [EncodedFrame] {
        guard frame.width == width, frame.height == height else {
            throw StreamingError(code: .encoderFailed, message: "a \(frame.width)x\(frame.height) picture for a \(width)x\(height) encoder")
        }
        var picture = frame.i420
        let status = picture.withUnsafeMutableBufferPointer { pixels in
            castor_vpx_encode(&context, UInt32(width), UInt32(height), pixels.baseAddress, frameIndex, 1,
                              keyFrame ? castor_vpx_force_key_frame_flag() : 0)
        }
        frameIndex += 1
        guard status == VPX_CODEC_OK else {
            throw StreamingError(code: .encoderFailed, message: "libvpx could not encode a picture (error \(status.rawValue))")
        }
        var frames: [EncodedFrame] = []
        var iterator: vpx_codec_iter_t?
        var data: UnsafeRawPointer?
        var size = 0
        var key: Int32 = 0
        while castor_vpx_next_frame(&context, &iterator, &data, &size, &key) != 0, let data {
            frames.append(EncodedFrame(data: Array(UnsafeRawBufferPointer(start: data, count: size)), isKeyFrame: key != 0,
                                       captureTime: frame.captureTime))
        }
        return frames
    }
}
