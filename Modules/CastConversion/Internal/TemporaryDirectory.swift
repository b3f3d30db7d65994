#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The temporary directory of one conversion: `castor-conversion-<pid>-XXXXXX` under the system's (or a given)
/// temporary directory, made with `mkdtemp` (mode 0700). Directories left by a process that died without
/// removing them (a crash, `kill -9`) are swept when the next conversion starts.
enum TemporaryDirectory {
    static let prefix = "castor-conversion-"

    static func base(_ given: String?) -> String {
        let base = given ?? NSTemporaryDirectory()
        return base.hasSuffix("/") && base.count > 1 ? String(base.dropLast()) : base
    }

    static func make(in given: String?) throws(ConversionError) -> String {
        var template = Array("\(base(given))/\(prefix)\(getpid())-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw ConversionError(code: .fileSystem, message: "cannot make a temporary directory in \(base(given)): \(String(cString: strerror(errno)))")
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Removes `castor-conversion-<pid>-…` directories whose process is gone.
    static func sweepAbandoned(in given: String?) {
        let directory = base(given)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = Int32(rest.prefix { $0.isNumber }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            }
        }
    }
}
