internal import COpus
import CastStreaming

/// An Opus encoder (libopus) at 48 kHz taking 10 ms of sound at a time, as Cast Streaming's audio
/// streams carry it.
///
/// Not thread-safe: one caller at a time (the session's encoding queue).
public final class OpusEncoder: @unchecked Sendable {
    /// Channels (1 or 2).
    public let channels: Int
    /// Samples per channel in each frame: 10 ms at 48 kHz.
    public static let frameSamples = 480
    private let encoder: OpaquePointer
    private var pending: [Int16] = []
    private var pendingStart: Duration?

    /// Sets up an encoder.
    /// - Throws: `StreamingError` `.encoderFailed` when libopus refuses the settings.
    public init(channels: Int, bitRate: Int) throws(StreamingError) {
        self.channels = max(1, min(2, channels))
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(48_000, Int32(self.channels), Int32(castor_opus_application_audio()), &error),
            error == castor_opus_ok()
        else { throw StreamingError(code: .encoderFailed, message: "libopus could not start an encoder (error \(error))") }
        self.encoder = encoder
        _ = castor_opus_set_bitrate(encoder, Int32(bitRate))
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Changes the target bit rate.
    public func setBitRate(_ bitRate: Int) { _ = castor_opus_set_bitrate(encoder, Int32(bitRate)) }

    /// Encodes what 10 ms frames the chunk completes (sound left over waits for the next chunk).
    /// - Throws: `StreamingError` `.encoderFailed` when libopus refuses the sound.
    public func encode(_ chunk: AudioChunk) throws(StreamingError) -> [EncodedFrame] {
        var samples = chunk.samples
        if chunk.channels != channels {
            // Mono to stereo by doubling, stereo to mono by averaging.
            samples = chunk.channels == 1
                ? chunk.samples.flatMap { [$0, $0] }
                : stride(from: 0, to: chunk.samples.count - 1, by: 2).map { Int16((Int(chunk.samples[$0]) + Int(chunk.samples[$0 + 1])) / 2) }
        }
        if pending.isEmpty { pendingStart = chunk.captureTime }
        pending += samples
        let frameLength = Self.frameSamples * channels
        var frames: [EncodedFrame] = []
        var output = [UInt8](repeating: 0, count: 4000)
        while pending.count >= frameLength {
            let start = pendingStart ?? chunk.captureTime
            let bytes = pending.withUnsafeBufferPointer { pcm in
                output.withUnsafeMutableBufferPointer { out in
                    opus_encode(encoder, pcm.baseAddress!, Int32(Self.frameSamples), out.baseAddress!, Int32(out.count))
                }
            }
            guard bytes >= 0 else { throw StreamingError(code: .encoderFailed, message: "libopus could not encode (error \(bytes))") }
            frames.append(EncodedFrame(data: Array(output[0..<Int(bytes)]), isKeyFrame: true, captureTime: start))
            pending.removeFirst(frameLength)
            pendingStart = start + .milliseconds(10)
        }
        return frames
    }
}
