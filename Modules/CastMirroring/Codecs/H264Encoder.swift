internal import COpenH264
import CastStreaming

/// An H.264 encoder (Cisco's OpenH264) set for real time: Constrained Baseline, which every Cast device
/// decodes, constant bit rate without skipped pictures, one slice, an IDR when asked for or every 10 s.
/// Each frame is one Annex B access unit with its start codes; an IDR carries its SPS and PPS.
///
/// Not thread-safe: one caller at a time (the session's encoding queue).
public final class H264Encoder: @unchecked Sendable {
    /// The picture width it was set up for.
    public let width: Int
    /// The picture height it was set up for.
    public let height: Int
    private let encoder: UnsafeMutablePointer<castor_h264>
    private let frameRate: Int
    private var frameIndex: Int64 = 0
    /// The target bit rate, in bits per second.
    public private(set) var bitRate: Int

    /// Sets up an encoder.
    /// - Throws: `StreamingError` `.encoderFailed` when OpenH264 refuses the settings (odd sizes included).
    public init(width: Int, height: Int, frameRate: Int, bitRate: Int) throws(StreamingError) {
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
            throw StreamingError(code: .encoderFailed, message: "H.264 pictures need an even width and height, not \(width)x\(height)")
        }
        self.width = width
        self.height = height
        self.frameRate = max(1, frameRate)
        self.bitRate = max(100_000, bitRate)
        // One thread up to 720p, as for libvpx: on two busy cores a second thread costs more than it saves.
        guard let encoder = castor_h264_create(Int32(width), Int32(height), Float(self.frameRate), Int32(self.bitRate),
                                               width * height > 1280 * 720 ? 2 : 1, UInt32(self.frameRate * 10)) else {
            throw StreamingError(code: .encoderFailed, message: "OpenH264 could not start an encoder for \(width)x\(height)")
        }
        self.encoder = encoder
    }

    deinit { castor_h264_destroy(encoder) }

    /// Changes the target bit rate.
    public func setBitRate(_ bitRate: Int) {
        let rate = max(100_000, bitRate)
        if castor_h264_set_bit_rate(encoder, Int32(rate)) == 0 { self.bitRate = rate }
    }

    /// Encodes a picture (of the size the encoder was set up for), an IDR when asked.
    /// - Throws: `StreamingError` `.encoderFailed` when OpenH264 refuses the picture.
    public func encode(_ frame: VideoFrame, keyFrame: Bool) throws(StreamingError) -> [EncodedFrame] {
        guard frame.width == width, frame.height == height else {
            throw StreamingError(code: .encoderFailed, message: "a \(frame.width)x\(frame.height) picture for a \(width)x\(height) encoder")
        }
        var picture = frame.i420
        var size = 0
        var key: Int32 = 0
        let milliseconds = frameIndex * 1000 / Int64(frameRate)
        let status = picture.withUnsafeMutableBufferPointer { pixels in
            castor_h264_encode(encoder, Int32(width), Int32(height), pixels.baseAddress, milliseconds, keyFrame ? 1 : 0, &size, &key)
        }
        frameIndex += 1
        guard status == 0 else {
            throw StreamingError(code: .encoderFailed, message: "OpenH264 could not encode a picture (error \(status))")
        }
        guard size > 0 else { return [] }
        let data = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            castor_h264_copy(encoder, buffer.baseAddress)
            count = size
        }
        return [EncodedFrame(data: data, isKeyFrame: key != 0, captureTime: frame.captureTime)]
    }
}
