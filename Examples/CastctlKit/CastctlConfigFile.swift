import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where castctl's settings live, and how they are read and changed.
///
/// The file is `$XDG_CONFIG_HOME/castor/castctl.conf`, else `~/.config/castor/castctl.conf`. A
/// missing file is an empty configuration. A change is made under an exclusive lock on the folder
/// (two castctl processes never lose each other's change), written to a temporary file that is
/// flushed to disk and renamed over the old one: a crash leaves the old file or the new one, never
/// half of either. A malformed file is never rewritten.
public struct CastctlConfigFile: Sendable {
    /// The file's path.
    public let path: String

    /// The file at `path`.
    public init(path: String) { self.path = path }

    /// The file of the current user, from `XDG_CONFIG_HOME` or `HOME`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> CastctlConfigFile {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return CastctlConfigFile(path: xdg + "/castor/castctl.conf")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return CastctlConfigFile(path: home + "/.config/castor/castctl.conf")
    }

    /// Reads the configuration (empty when the file does not exist).
    /// - Throws: ``CastctlError`` `.malformedConfiguration` (with the line), `.unreadableFile`.
    public func read() throws(CastctlError) -> CastctlConfiguration {
        guard let text = try BoundedFile.readText(path, limit: CastctlConfiguration.maximumBytes, what: "configuration") else {
            return CastctlConfiguration()
        }
        return try CastctlConfiguration(parsing: text, file: path)
    }

    /// Reads, changes and writes the configuration under the folder's lock; writes only when the
    /// change changed something, and returns what `change` returned.
    /// - Throws: what `change` throws, and ``CastctlError`` from reading or writing; the file is then unchanged.
    public func update<T>(_ change: (inout CastctlConfiguration) throws(CastctlError) -> T) throws(CastctlError) -> T {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CastctlError(code: .unwritableFile, message: "cannot create the folder: \(error.localizedDescription)", file: directory)
        }
        let lock = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0 else {
            throw CastctlError(code: .unwritableFile, message: "cannot open the folder: \(String(cString: strerror(errno)))", file: directory)
        }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw CastctlError(code: .unwritableFile, message: "cannot lock the folder: \(String(cString: strerror(errno)))", file: directory)
            }
        }
        defer { flock(lock, LOCK_UN) }
        var configuration = try read()
        let before = configuration
        let result = try change(&configuration)
        if configuration != before { try AtomicFile.write(Data(configuration.text.utf8), to: path) }
        return result
    }
}

/// Reading files with a size limit enforced while reading.
enum BoundedFile {
    /// The file's bytes, or `nil` when it does not exist.
    /// - Throws: ``CastctlError`` `.unreadableFile` when it cannot be read or is larger than `limit`.
    static func read(_ path: String, limit: Int, what: String) throws(CastctlError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw CastctlError(code: .unreadableFile, message: "cannot read the \(what): \(String(cString: strerror(errno)))", file: path)
        }
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CastctlError(code: .unreadableFile, message: "cannot read the \(what): \(String(cString: strerror(errno)))", file: path)
            }
            if count == 0 { return data }
            guard data.count + count <= limit else {
                throw CastctlError(code: .unreadableFile, message: "the \(what) is larger than \(limit / 1024) KiB", file: path)
            }
            data.append(contentsOf: chunk[..<count])
        }
    }

    /// The file's text (UTF-8), or `nil` when it does not exist.
    static func readText(_ path: String, limit: Int, what: String) throws(CastctlError) -> String? {
        guard let data = try read(path, limit: limit, what: what) else { return nil }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CastctlError(code: .unreadableFile, message: "the \(what) is not UTF-8 text", file: path)
        }
        return text
    }
}

/// Replacing a file all at once.
enum AtomicFile {
    /// Writes `data` to a new file beside `path`, flushes it to disk, renames it over `path` and
    /// flushes the folder; keeps the old file's permissions (0644, less the umask, for a new one).
    /// - Throws: ``CastctlError`` `.unwritableFile`; `path` is then as it was.
    static func write(_ data: Data, to path: String) throws(CastctlError) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var template = Array("\(directory.isEmpty ? "." : directory)/.\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw CastctlError(code: .unwritableFile, message: "cannot create a file beside it: \(String(cString: strerror(errno)))", file: path)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: String?
        var existing = stat()
        if stat(path, &existing) == 0 {
            fchmod(descriptor, existing.st_mode & 0o7777)
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o644 & ~mask)
        }
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw CastctlError(code: .unwritableFile, message: "cannot write it: \(failure)", file: path)
        }
        let folder = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
