import Foundation
import CastStreaming

/// Where mirrored pictures come from: a screen, a file, a test pattern.
///
/// A source produces frames at its rate, each stamped with its capture time on the clock it is given
/// (time since the session started), until it ends or the task reading it is cancelled.
public protocol VideoSource: Sendable {
    /// The picture width (even).
    var width: Int { get }
    /// The picture height (even).
    var height: Int { get }
    /// Frames per second.
    var frameRate: Int { get }
    /// The frames, from now on, each with its capture time on `clock`.
    func frames(clock: CaptureClock) -> AsyncThrowingStream<VideoFrame, any Error>
}

/// Where mirrored sound comes from: the desktop's sound, a file, a test tone.
public protocol AudioSource: Sendable {
    /// Channels (1 or 2).
    var channels: Int { get }
    /// The sound, in chunks of a few milliseconds at 48 kHz, each with its capture time on `clock`.
    func chunks(clock: CaptureClock) -> AsyncThrowingStream<AudioChunk, any Error>
}

/// A moving test pattern, for trying mirroring without a screen: colour bars that slide, and every
/// second a white flash (its first frame is where a latency measurement starts).
public struct TestPatternSource: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Int

    /// A pattern of `width`×`height` (rounded down to even) at `frameRate`.
    public init(width: Int = 640, height: Int = 360, frameRate: Int = 30) {
        self.width = max(2, width & ~1)
        self.height = max(2, height & ~1)
        self.frameRate = max(1, frameRate)
    }

    /// Whether frame `index` is a flash (the first frame of each second).
    public func isFlash(_ index: Int) -> Bool { index % frameRate == 0 }

    /// The picture of frame `index`.
    public func picture(_ index: Int) -> [UInt8] {
        let lumaCount = width * height
        let chromaWidth = width / 2, chromaHeight = height / 2
        var i420 = [UInt8](repeating: 128, count: VideoFrame.byteCount(width: width, height: height))
        if isFlash(index) {
            i420.withUnsafeMutableBufferPointer { _ = memset($0.baseAddress!, 235, lumaCount) }
            return i420
        }
        // Each plane's row is a window into the pattern's row written twice, so a slide is a copy
        // from a moved start (4 luma pixels a frame).
        let shift = (index * 4) % width
        i420.withUnsafeMutableBufferPointer { planes in
            let base = planes.baseAddress!
            rows.y.withUnsafeBufferPointer { row in
                for y in 0..<height { memcpy(base + y * width, row.baseAddress! + shift, width) }
            }
            rows.u.withUnsafeBufferPointer { row in
                for y in 0..<chromaHeight { memcpy(base + lumaCount + y * chromaWidth, row.baseAddress! + shift / 2, chromaWidth) }
            }
            rows.v.withUnsafeBufferPointer { row in
                let offset = lumaCount + chromaWidth * chromaHeight
                for y in 0..<chromaHeight { memcpy(base + offset + y * chromaWidth, row.baseAddress! + shift / 2, chromaWidth) }
            }
        }
        return i420
    }

    /// One row of each plane of the bars, twice over.
    private var rows: (y: [UInt8], u: [UInt8], v: [UInt8]) {
        // Eight bars (Y, U, V of the classic colours).
        let bars: [(UInt8, UInt8, UInt8)] = [(235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
                                             (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128)]
        let barWidth = max(1, width / bars.count)
        var y = [UInt8](repeating: 0, count: 2 * width)
        var u = [UInt8](repeating: 0, count: width), v = [UInt8](repeating: 0, count: width)
        for x in 0..<(2 * width) {
            let bar = bars[min(bars.count - 1, (x % width) / barWidth)]
            y[x] = bar.0
            if x % 2 == 0 {
                u[x / 2] = bar.1
                v[x / 2] = bar.2
            }
        }
        return (y, u, v)
    }

    public func frames(clock: CaptureClock) -> AsyncThrowingStream<VideoFrame, any Error> {
        let source = self
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(2)) { continuation in
            let task = Task {
                let start = clock.now
                var index = 0
                while !Task.isCancelled {
                    let due = start + Duration.nanoseconds(Int64(index) * 1_000_000_000 / Int64(source.frameRate))
                    do { try await clock.sleep(until: due) } catch { break }
                    continuation.yield(VideoFrame(width: source.width, height: source.height, i420: source.picture(index), captureTime: due))
                    index += 1
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A test tone at 48 kHz: a continuous sine, or short beeps once a second (where a latency
/// measurement starts).
public struct ToneSource: AudioSource {
    /// Continuous or beeping.
    public enum Pattern: Sendable, Hashable {
        /// The tone without a break.
        case continuous
        /// A beep of the given length at the start of every second, silence between.
        case beeps(length: Duration)
    }

    public let channels: Int
    /// The tone's frequency, in hertz.
    public let frequency: Double
    /// Continuous or beeping.
    public let pattern: Pattern
    /// How much sound each chunk holds.
    public static let chunkDuration = Duration.milliseconds(10)

    /// A tone (1 kHz, stereo, continuous by default).
    public init(frequency: Double = 1_000, channels: Int = 2, pattern: Pattern = .continuous) {
        self.frequency = frequency
        self.channels = max(1, min(2, channels))
        self.pattern = pattern
    }

    /// The samples of chunk `index` (10 ms each).
    public func samples(_ index: Int) -> [Int16] {
        let perChunk = AudioChunk.sampleRate / 100
        var samples = [Int16](repeating: 0, count: perChunk * channels)
        for n in 0..<perChunk {
            let sample = index * perChunk + n
            if case .beeps(let length) = pattern {
                let inSecond = sample % AudioChunk.sampleRate
                let beep = Int(Double(length.components.seconds) * 48_000 + Double(length.components.attoseconds) / 1e18 * 48_000)
                if inSecond >= beep { continue }
            }
            let value = Int16(16_000 * sin(2 * Double.pi * frequency * Double(sample) / Double(AudioChunk.sampleRate)))
            for channel in 0..<channels { samples[n * channels + channel] = value }
        }
        return samples
    }

    public func chunks(clock: CaptureClock) -> AsyncThrowingStream<AudioChunk, any Error> {
        let source = self
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(8)) { continuation in
            let task = Task {
                let start = clock.now
                var index = 0
                while !Task.isCancelled {
                    let due = start + Self.chunkDuration * index
                    do { try await clock.sleep(until: due) } catch { break }
                    continuation.yield(AudioChunk(samples: source.samples(index), channels: source.channels, captureTime: due))
                    index += 1
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
