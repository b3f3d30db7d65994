/// A frame's number within one stream: 0 for the first frame, counting up without wrapping.
///
/// The wire carries only its low 8 bits (RTP packets, Cast feedback) or low 32 bits (the encryption
/// nonce); the full value is recovered from a nearby known frame (``expanded(_:near:)``).
public struct FrameID: Sendable, Hashable, Comparable, CustomStringConvertible, Strideable {
    /// The frame number; `-1` is ``leader``, the frame before the first.
    public var value: Int64

    /// A frame number.
    public init(_ value: Int64) { self.value = value }

    /// The first frame of a stream.
    public static let first = FrameID(0)
    /// The virtual frame before the first (nothing received yet).
    public static let leader = FrameID(-1)

    /// The low 8 bits, as RTP packets and Cast feedback carry them.
    public var low8: UInt8 { UInt8(truncatingIfNeeded: value) }
    /// The low 32 bits, as the encryption nonce carries them.
    public var low32: UInt32 { UInt32(truncatingIfNeeded: value) }

    /// The frame whose low 8 bits are `truncated`, closest to `reference` (within -128…+127 of it).
    public static func expanded(_ truncated: UInt8, near reference: FrameID) -> FrameID {
        let delta = Int64(Int8(bitPattern: truncated &- reference.low8))
        return FrameID(reference.value + delta)
    }

    /// The frame whose low 8 bits are `truncated`, at or below `maximum` and above `maximum - 256`.
    public static func expanded(_ truncated: UInt8, atOrBelow maximum: FrameID) -> FrameID {
        let delta = Int64(maximum.low8 &- truncated)
        return FrameID(maximum.value - delta)
    }

    /// The frame whose low 8 bits are `truncated`, above `minimum` and at most `minimum + 256`.
    public static func expanded(_ truncated: UInt8, above minimum: FrameID) -> FrameID {
        var delta = Int64(truncated &- minimum.low8)
        if delta == 0 { delta = 256 }
        return FrameID(minimum.value + delta)
    }

    /// `frame 42`.
    public var description: String { value < 0 ? "leader" : "frame \(value)" }

    /// Orders by number.
    public static func < (lhs: FrameID, rhs: FrameID) -> Bool { lhs.value < rhs.value }
    /// The number of frames from `self` to `other`.
    public func distance(to other: FrameID) -> Int64 { other.value - value }
    /// The frame `n` after this one.
    public func advanced(by n: Int64) -> FrameID { FrameID(value + n) }
}

/// Recovers 64-bit RTP timestamps from the 32 bits the wire carries, relative to the last one seen.
struct RTPTimestampExpander: Sendable {
    private(set) var last: Int64?

    /// The timestamp nearest the last one expanded whose low 32 bits are `truncated`.
    mutating func expand(_ truncated: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(truncated)
            return Int64(truncated)
        }
        let delta = Int64(Int32(bitPattern: truncated &- UInt32(truncatingIfNeeded: last)))
        let value = last + delta
        self.last = value
        return value
    }

    /// The timestamp nearest the last one expanded, without remembering it.
    func peek(_ truncated: UInt32) -> Int64 {
        guard let last else { return Int64(truncated) }
        return last + Int64(Int32(bitPattern: truncated &- UInt32(truncatingIfNeeded: last)))
    }
}
