#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The calendar time for `Date` and `Last-Modified` headers (not a timer, so not injected).
enum WallClock {
    static func secondsSinceEpoch() -> Int64 { Int64(time(nil)) }
}
