#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A 64-bit NTP timestamp (32 bits of seconds since 1900, 32 bits of fraction), as RTCP sender
/// reports and receiver reference-time reports carry it.
public struct NTPTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The raw 64-bit value.
    public var rawValue: UInt64

    /// A timestamp from its wire value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Seconds between 1900-01-01 (NTP's epoch) and 1970-01-01 (Unix's).
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    /// The timestamp of an instant given as a duration since the Unix epoch.
    public init(sinceUnixEpoch duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let fraction = UInt64((Double(attoseconds) / 1e18) * 4_294_967_296.0)
        rawValue = (UInt64(max(0, seconds)) &+ Self.unixEpochOffset) << 32 | min(fraction, 0xFFFF_FFFF)
    }

    /// The instant as a duration since the Unix epoch.
    public var sinceUnixEpoch: Duration {
        let seconds = Int64(rawValue >> 32) - Int64(Self.unixEpochOffset)
        let fraction = Double(rawValue & 0xFFFF_FFFF) / 4_294_967_296.0
        return .seconds(seconds) + .nanoseconds(Int64((fraction * 1e9).rounded()))
    }

    /// The middle 32 bits: the id receivers quote back for a sender report (`last SR` in a report block).
    public var reportID: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// `0xe0732e5480000000`.
    public var description: String { "0x" + String(rawValue, radix: 16) }

    /// Orders by value.
    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Maps a local monotonic clock (a `Duration` since some origin) onto the NTP timeline, as each side
/// of a session does once at its start.
public struct NTPTimeline: Sendable, Hashable {
    /// The local instant that corresponds to ``wallClockAtOrigin``.
    public var localOrigin: Duration
    /// The wall-clock time since the Unix epoch at ``localOrigin``.
    public var wallClockAtOrigin: Duration

    /// A timeline on which `local` is the wall-clock time `wallClock` (since the Unix epoch).
    public init(local: Duration, wallClock: Duration) {
        localOrigin = local
        wallClockAtOrigin = wallClock
    }

    /// A timeline read from two clocks: the local one and the wall clock (since the Unix epoch).
    ///
    /// Reading one clock after the other is off by however long the thread waited between the reads (a
    /// preempted thread on a busy machine: milliseconds). The wall clock is read on both sides of the local
    /// clock, `tries` times, and the tightest pair is kept, the wall time taken halfway.
    public static func sampling(
        local: () -> Duration, wallClock: () -> Duration = NTPTimeline.systemWallClock, tries: Int = 5
    ) -> NTPTimeline {
        var best: (gap: Duration, timeline: NTPTimeline)?
        for _ in 0..<max(1, tries) {
            let before = wallClock()
            let instant = local()
            let after = wallClock()
            let gap = after - before
            if best == nil || gap < best!.gap {
                best = (gap, NTPTimeline(local: instant, wallClock: before + gap / 2))
            }
        }
        return best!.timeline
    }

    /// The system's wall clock (`CLOCK_REALTIME`), since the Unix epoch.
    public static func systemWallClock() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
    }

    /// The NTP timestamp of a local instant.
    public func ntp(at local: Duration) -> NTPTimestamp {
        NTPTimestamp(sinceUnixEpoch: wallClockAtOrigin + (local - localOrigin))
    }

    /// The local instant of an NTP timestamp.
    public func local(of timestamp: NTPTimestamp) -> Duration {
        timestamp.sinceUnixEpoch - wallClockAtOrigin + localOrigin
    }
}
