/// One report of ffmpeg's `-progress` output (`key=value` lines, a block ending with `progress=continue` or
/// `progress=end`), read line by line.
///
/// Pure and bounded: unknown keys are ignored, values are read only when they fit their type.
public struct FFmpegProgress: Sendable, Hashable {
    /// How far the output has got, in seconds of media (`out_time_us`).
    public var outputTime: Double?
    /// The speed against real time (`speed=3.2x`).
    public var speed: Double?
    /// Frames made so far (`frame`).
    public var frames: Int?
    /// Whether this is the last block (`progress=end`).
    public var isEnd: Bool

    /// An empty report.
    public init(outputTime: Double? = nil, speed: Double? = nil, frames: Int? = nil, isEnd: Bool = false) {
        self.outputTime = outputTime
        self.speed = speed
        self.frames = frames
        self.isEnd = isEnd
    }

    /// Collects lines into blocks.
    public struct Reader: Sendable {
        private var current = FFmpegProgress()

        /// A reader with nothing read.
        public init() {}

        /// Reads one line; returns the finished block when the line ends one.
        public mutating func read(_ line: String) -> FFmpegProgress? {
            guard line.utf8.count <= 256, let equals = line.firstIndex(of: "=") else { return nil }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "out_time_us", "out_time_ms":
                // ffmpeg writes microseconds under both names.
                if let micro = Int64(value), micro >= 0 { current.outputTime = Double(micro) / 1_000_000 }
            case "speed":
                if let speed = Double(value.hasSuffix("x") ? String(value.dropLast()) : value), speed.isFinite, speed >= 0 {
                    current.speed = speed
                }
            case "frame":
                if let frames = Int(value), frames >= 0 { current.frames = frames }
            case "progress":
                var block = current
                block.isEnd = value == "end"
                current = FFmpegProgress()
                return block
            default:
                break
            }
            return nil
        }
    }
}

import Foundation
