#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the server needs to know about a file: identity for the ETag, size, modification time.
struct FileFacts: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64
    var isRegularFile: Bool
    var isDirectory: Bool

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int64(info.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtimespec.tv_nsec)
        #else
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
        #endif
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A strong entity tag from inode, size and modification time: it changes whenever the file is replaced or written.
    var entityTag: String {
        "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(String(modifiedSeconds, radix: 16))"
            + ".\(String(modifiedNanoseconds, radix: 16))\""
    }
}

/// Thin blocking wrappers over POSIX file calls, returning typed errors.
enum FileSystem {
    static func errnoError(_ call: String) -> SystemCallError {
        let code = errno
        return SystemCallError(call: call, errorNumber: code, reason: String(cString: strerror(code)))
    }

    /// `stat(2)` (follows symbolic links).
    static func facts(atPath path: String) throws(MediaServerError) -> FileFacts {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = errnoError("stat")
            let code: MediaServerError.Code = error.errorNumber == ENOENT || error.errorNumber == ENOTDIR ? .fileNotFound : .fileUnreadable
            throw MediaServerError(code: code, message: "Cannot access \(path)", cause: error)
        }
        return FileFacts(info)
    }

    /// `fstat(2)` of an open descriptor.
    static func facts(descriptor: CInt) throws(MediaServerError) -> FileFacts {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw MediaServerError(code: .fileUnreadable, message: "Cannot stat an open file", cause: errnoError("fstat"))
        }
        return FileFacts(info)
    }

    /// The canonical absolute path (symbolic links, `.` and `..` resolved).
    static func canonicalPath(_ path: String) throws(MediaServerError) -> String {
        guard let resolved = realpath(path, nil) else {
            let error = errnoError("realpath")
            let code: MediaServerError.Code = error.errorNumber == ENOENT || error.errorNumber == ENOTDIR ? .fileNotFound : .fileUnreadable
            throw MediaServerError(code: code, message: "Cannot resolve \(path)", cause: error)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Up to `count` bytes from the start of a file.
    static func leadingBytes(ofFileAt path: String, count: Int) throws(MediaServerError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw MediaServerError(code: .fileUnreadable, message: "Cannot open \(path)", cause: errnoError("open"))
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got < 0 {
                if errno == EINTR { continue }
                throw MediaServerError(code: .fileUnreadable, message: "Cannot read \(path)", cause: errnoError("read"))
            }
            if got == 0 { break }
            filled += got
        }
        return Array(buffer.prefix(filled))
    }

    /// The whole content of a (small) file.
    static func contents(ofFileAt path: String, limit: Int = 64 << 20) throws(MediaServerError) -> [UInt8] {
        let facts = try facts(atPath: path)
        guard facts.isRegularFile else {
            throw MediaServerError(code: .notARegularFile, message: "\(path) is not a regular file")
        }
        guard facts.size <= Int64(limit) else {
            throw MediaServerError(code: .fileUnreadable, message: "\(path) is larger than \(limit) bytes")
        }
        return try leadingBytes(ofFileAt: path, count: Int(facts.size))
    }

    /// The names in a directory, without `.` and `..`.
    static func directoryEntries(_ path: String) throws(MediaServerError) -> [String] {
        guard let directory = opendir(path) else {
            let error = errnoError("opendir")
            let code: MediaServerError.Code = error.errorNumber == ENOENT ? .fileNotFound : .fileUnreadable
            throw MediaServerError(code: code, message: "Cannot list \(path)", cause: error)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// Pure path arithmetic on `/`-separated paths.
enum PathText {
    /// The last component.
    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Everything before the last component (`"."` when there is none, `"/"` for a root entry).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `base` joined with `relative` and normalized, unless `relative` is absolute.
    static func resolve(_ relative: String, against base: String) -> String {
        normalize(relative.hasPrefix("/") ? relative : base + "/" + relative)
    }

    /// Collapses `//`, `.` and `..` (never above the root for absolute paths).
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                if let last = parts.last, last != ".." { parts.removeLast() } else if !absolute { parts.append(part) }
                continue
            }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
