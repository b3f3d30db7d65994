#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's file-descriptor table, as far as a server needs to know it to avoid running out.
package enum DescriptorTable {
    /// How many more descriptors this process can open: the numbers below its soft
    /// `RLIMIT_NOFILE` not in use. 0 when even the count cannot open its directory (the table is
    /// full); `nil` when it cannot tell (no `/proc/self/fd`, or no limit).
    ///
    /// Read again on every call, so a limit changed from outside (`prlimit`) counts at once. One
    /// directory scan, one descriptor for the time of the scan.
    package static func freeDescriptors() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
        #endif
        guard limit.rlim_cur <= rlim_t(Int32.max) else { return nil }  // also RLIM_INFINITY (all ones): no limit to keep to
        let soft = Int(limit.rlim_cur)
        guard let directory = opendir("/proc/self/fd") else {
            return errno == EMFILE || errno == ENFILE ? 0 : nil
        }
        defer { closedir(directory) }
        let scanning = dirfd(directory)
        var used = 0
        while let entry = readdir(directory) {
            let number = withUnsafeBytes(of: entry.pointee.d_name) { bytes -> Int? in
                var value = 0
                var digits = 0
                for byte in bytes {
                    if byte == 0 { break }
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 10 else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            guard let number, number != Int(scanning), number < soft else { continue }
            used += 1
        }
        // The scan's own descriptor is free again once it returns; the count leaves it out.
        return max(0, soft - used)
    }
}

/// Descriptors held open on `/dev/null` so they can be given back to the process when it runs
/// short: closing them is the one way to free descriptors that cannot fail. Loop-bound: used on
/// its server channel's event loop only.
package final class DescriptorSpares {
    private var held: [Int32] = []
    private let opener: () -> Int32

    /// - Parameter opener: opens one spare descriptor (`-1` when it cannot); `/dev/null` by default.
    package init(opener: @escaping () -> Int32 = openSpare) {
        self.opener = opener
    }

    /// How many are held.
    package var count: Int { held.count }

    /// Holds `count` spares (as many as can be opened, when fewer).
    package func hold(_ count: Int) {
        while held.count < count {
            let fd = opener()
            guard fd >= 0 else { return }
            held.append(fd)
        }
    }

    /// None: for listeners that leave the spares to another.
    package static var none: DescriptorSpares { DescriptorSpares(opener: { -1 }) }

    /// Closes every spare.
    package func release() {
        for fd in held { close(fd) }
        held.removeAll()
    }

    deinit { release() }
}

/// Opens `/dev/null` for reading, close-on-exec.
package func openSpare() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }
