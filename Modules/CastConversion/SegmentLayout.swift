/// Where the segments of a converted stream start and end, fixed before any is made.
///
/// An HLS VOD playlist lists every segment from the start, so a device knows the whole duration and can seek
/// anywhere; the converter then makes whichever segment is asked for, restarting ffmpeg there when needed. For
/// that to join up, a segment must be the same whichever run made it: its bounds are fixed here. Converted video
/// gets key frames forced at the bounds; copied video is cut at its own key frames (``keyframes(_:duration:target:leading:)``),
/// the first at or after each target length.
///
/// The first segments are shorter (``defaultLeading``), so that playback starts after a second of media is made
/// rather than a whole segment.
public struct SegmentLayout: Sendable, Hashable {
    /// The start of each segment, in seconds; the first is 0, ascending.
    public let starts: [Double]
    /// The total duration in seconds (the end of the last segment).
    public let duration: Double

    /// The lengths of the first segments before the target length applies.
    public static let defaultLeading: [Double] = [1, 2]
    /// The most segments a layout holds (two days at one a second).
    public static let maximumSegments = 172_800
    /// A last segment shorter than this joins the one before it.
    static let shortestLastSegment = 0.5

    /// A layout from its starts.
    /// - Precondition: `starts` is not empty, begins at 0 and ascends, and every start is below `duration`.
    public init(starts: [Double], duration: Double) {
        precondition(!starts.isEmpty && starts[0] == 0, "a layout starts at 0")
        self.starts = starts
        self.duration = duration
    }

    /// The number of segments.
    public var count: Int { starts.count }

    /// Where segment `index` starts.
    public func start(of index: Int) -> Double { starts[index] }

    /// Where segment `index` ends.
    public func end(of index: Int) -> Double { index + 1 < starts.count ? starts[index + 1] : duration }

    /// How long segment `index` is.
    public func length(of index: Int) -> Double { end(of: index) - start(of: index) }

    /// The segment playing at `time` (the first before 0, the last after the end).
    public func segment(containing time: Double) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The playlist's `EXT-X-TARGETDURATION`: the longest segment rounded to the nearest second (RFC 8216
    /// §4.3.3.1 compares each `EXTINF` rounded so), at least 1.
    public var targetDuration: Int {
        max(1, Int((starts.indices.map(length(of:)).max() ?? 1).rounded()))
    }

    /// Segments of `target` seconds after the `leading` ones (for converted video, whose key frames are forced
    /// at the starts, and for audio).
    /// - Throws: ``ConversionError/Code/invalidOptions`` for a duration that is not positive or too long.
    public static func regular(duration: Double, target: Double, leading: [Double] = defaultLeading) throws(ConversionError)
        -> SegmentLayout {
        try check(duration: duration, target: target)
        var starts: [Double] = [0]
        var next = 0.0
        var index = 0
        while true {
            next += index < leading.count ? leading[index] : target
            index += 1
            guard next < duration - shortestLastSegment else { break }
            starts.append(next)
        }
        return SegmentLayout(starts: starts, duration: duration)
    }

    /// Segments cut at key frames: each starts at the first key frame at least the segment's length after the
    /// previous start (for copied video, which can only be cut there).
    /// - Parameters:
    ///   - keyframes: the key frames' times in seconds, ascending (from ``MediaProbe/keyframeTimes(of:stream:input:)``).
    ///   - duration: the source's duration in seconds.
    ///   - target: the segments' length after the leading ones, in seconds.
    ///   - leading: the lengths of the first segments.
    /// - Throws: ``ConversionError/Code/invalidOptions`` for a duration that is not positive or too long.
    public static func keyframes(_ keyframes: [Double], duration: Double, target: Double, leading: [Double] = defaultLeading)
        throws(ConversionError) -> SegmentLayout {
        try check(duration: duration, target: target)
        var starts: [Double] = [0]
        var index = 0
        for time in keyframes where time < duration - shortestLastSegment && time > 0 {
            let length = index < leading.count ? leading[index] : target
            if time >= starts[starts.count - 1] + length - 0.001 {
                starts.append(time)
                index += 1
                if starts.count >= maximumSegments { break }
            }
        }
        return SegmentLayout(starts: starts, duration: duration)
    }

    private static func check(duration: Double, target: Double) throws(ConversionError) {
        guard duration.isFinite, duration > 0 else {
            throw ConversionError(code: .invalidOptions, message: "a converted stream needs the source's duration (ffprobe gave none)")
        }
        guard target.isFinite, target >= 1 else {
            throw ConversionError(code: .invalidOptions, message: "segments must be at least 1 s long")
        }
        guard duration / target < Double(maximumSegments) else {
            throw ConversionError(code: .invalidOptions, message: "the source is too long for \(target) s segments")
        }
    }
}
