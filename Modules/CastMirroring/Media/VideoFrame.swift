/// A picture in I420 (YUV 4:2:0 planar): the luma plane, then the two chroma planes at half size.
public struct VideoFrame: Sendable {
    /// Width in pixels (even).
    public var width: Int
    /// Height in pixels (even).
    public var height: Int
    /// The planes, packed: Y (width × height), then U and V (each width/2 × height/2).
    public var i420: [UInt8]
    /// When it was captured, on the session's clock.
    public var captureTime: Duration

    /// The bytes an I420 picture of this size takes.
    public static func byteCount(width: Int, height: Int) -> Int { width * height + 2 * ((width / 2) * (height / 2)) }

    /// Creates a frame; `i420` must hold ``byteCount(width:height:)`` bytes.
    public init(width: Int, height: Int, i420: [UInt8], captureTime: Duration) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "I420 needs an even size")
        precondition(i420.count == Self.byteCount(width: width, height: height), "I420 of \(width)x\(height) needs \(Self.byteCount(width: width, height: height)) bytes")
        self.width = width
        self.height = height
        self.i420 = i420
        self.captureTime = captureTime
    }
}

/// Sound as 16-bit signed PCM, interleaved, at 48 kHz: what the audio encoder takes.
public struct AudioChunk: Sendable {
    /// The samples, interleaved by channel.
    public var samples: [Int16]
    /// The number of channels (1 or 2).
    public var channels: Int
    /// When its first sample was captured, on the session's clock.
    public var captureTime: Duration

    /// The sample rate of every chunk.
    public static let sampleRate = 48_000

    /// Creates a chunk.
    public init(samples: [Int16], channels: Int, captureTime: Duration) {
        self.samples = samples
        self.channels = max(1, channels)
        self.captureTime = captureTime
    }

    /// Samples per channel.
    public var frameCount: Int { samples.count / channels }
}
