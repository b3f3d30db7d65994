import Foundation

/// A source of image bytes by URL, caching as it sees fit (`GCKUIImageCache`).
public protocol CastImageCache: Sendable {
    /// The bytes of the image at `url`, fetched or from the cache.
    func imageData(for url: URL) async throws -> Data
}

/// Fetches the bytes at a URL; injected into ``DiskImageCache`` so tests and apps choose the network stack.
public typealias CastImageFetcher = @Sendable (URL) async throws -> Data

/// Why an image could not be supplied.
public struct CastImageCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable { case unsupportedURL, fetchFailed, storageFailed }
        private let base: Base
        /// The URL is not `http`, `https` or `file`.
        public static let unsupportedURL = Code(base: .unsupportedURL)
        /// The fetcher failed.
        public static let fetchFailed = Code(base: .fetchFailed)
        /// The cache directory could not be created or written.
        public static let storageFailed = Code(base: .storageFailed)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// Errors compare by code and message.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    /// Hashes code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}

/// An image cache on disk, bounded in size, evicting the least recently used images first.
///
/// By default it lives in `$XDG_CACHE_HOME/castor/images` (or `~/.cache/castor/images`). Images are
/// fetched with the injected ``CastImageFetcher`` (a bounded ``CastDownloader`` by default); concurrent
/// requests for the same URL share one fetch. An image larger than the whole budget is returned but
/// not stored.
public actor DiskImageCache: CastImageCache {
    /// Where the files are.
    public nonisolated let directory: URL
    /// The most bytes the cache keeps on disk.
    public nonisolated let maxBytes: Int

    private let fetcher: CastImageFetcher
    private var entries: [String: Entry] = [:]
    private var totalBytes = 0
    private var accessCounter: UInt64 = 0
    private var inFlight: [String: Task<Data, any Error>] = [:]
    private var loaded = false

    private struct Entry {
        var size: Int
        var lastAccess: UInt64
    }

    /// The default directory: `$XDG_CACHE_HOME/castor/images`, else `~/.cache/castor/images`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent("castor", isDirectory: true).appendingPathComponent("images", isDirectory: true)
    }

    /// Creates a cache.
    /// - Parameters:
    ///   - directory: where to store images (created when needed).
    ///   - maxBytes: the size budget (default 50 MiB).
    ///   - fetcher: how to download an image (default: a bounded ``CastDownloader``, `http`/`https` only).
    public init(directory: URL = DiskImageCache.defaultDirectory, maxBytes: Int = 50 * 1024 * 1024,
                fetcher: @escaping CastImageFetcher = DiskImageCache.urlSessionFetcher) {
        self.directory = directory
        self.maxBytes = max(0, maxBytes)
        self.fetcher = fetcher
    }

    /// Downloads with a ``CastDownloader`` under ``CastDownloadLimits/image`` (32 MiB counted while
    /// reading, 60 s, a minimum rate); refuses anything but `http` and `https`, redirects included.
    public static let urlSessionFetcher: CastImageFetcher = { url in
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CastImageCacheError(code: .unsupportedURL, message: "Only http and https images are fetched, not \(url)")
        }
        do throws(CastDownloadError) {
            return try await CastDownloader(limits: .image).data(from: url)
        } catch {
            throw CastImageCacheError(code: .fetchFailed, message: error.message, cause: error)
        }
    }

    /// The bytes of the image, from disk when cached, else fetched and stored.
    public func imageData(for url: URL) async throws -> Data {
        try loadIndexIfNeeded()
        let key = Self.key(for: url)
        if entries[key] != nil, let data = try? Data(contentsOf: file(for: key)) {
            touch(key)
            return data
        }
        if let task = inFlight[key] { return try await task.value }
        let fetcher = self.fetcher
        let task = Task<Data, any Error> {
            do {
                return try await fetcher(url)
            } catch let error as CastImageCacheError {
                throw error
            } catch {
                throw CastImageCacheError(code: .fetchFailed, message: "Could not fetch \(url): \(error)", cause: error)
            }
        }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        let data = try await task.value
        try store(data, key: key)
        return data
    }

    /// Whether the image at `url` is on disk.
    public func contains(_ url: URL) throws -> Bool {
        try loadIndexIfNeeded()
        return entries[Self.key(for: url)] != nil
    }

    /// The bytes the cache holds on disk now.
    public func currentSize() throws -> Int {
        try loadIndexIfNeeded()
        return totalBytes
    }

    /// Deletes every cached image.
    public func removeAll() throws {
        try loadIndexIfNeeded()
        for key in entries.keys { try? FileManager.default.removeItem(at: file(for: key)) }
        entries = [:]
        totalBytes = 0
    }

    // MARK: - Storage

    private func file(for key: String) -> URL {
        directory.appendingPathComponent(key + ".img", isDirectory: false)
    }

    private func touch(_ key: String) {
        accessCounter += 1
        entries[key]?.lastAccess = accessCounter
        // Persist the order for the next process: the modification date orders files at start-up.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file(for: key).path)
    }

    private func store(_ data: Data, key: String) throws {
        guard data.count <= maxBytes else { return }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file(for: key), options: .atomic)
        } catch {
            throw CastImageCacheError(code: .storageFailed, message: "Could not write to \(directory.path)", cause: error)
        }
        if let previous = entries[key] { totalBytes -= previous.size }
        accessCounter += 1
        entries[key] = Entry(size: data.count, lastAccess: accessCounter)
        totalBytes += data.count
        evict()
    }

    private func evict() {
        guard totalBytes > maxBytes else { return }
        let ordered = entries.sorted { $0.value.lastAccess < $1.value.lastAccess }
        for (key, entry) in ordered where totalBytes > maxBytes {
            try? FileManager.default.removeItem(at: file(for: key))
            entries[key] = nil
            totalBytes -= entry.size
        }
    }

    /// Reads the directory once: sizes, and the access order from modification dates.
    private func loadIndexIfNeeded() throws {
        guard !loaded else { return }
        loaded = true
        let manager = FileManager.default
        guard manager.fileExists(atPath: directory.path) else { return }
        let files = (try? manager.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey])) ?? []
        var found: [(key: String, size: Int, date: Date)] = []
        for file in files where file.pathExtension == "img" {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
            found.append((file.deletingPathExtension().lastPathComponent, values?.fileSize ?? 0,
                          values?.contentModificationDate ?? .distantPast))
        }
        for item in found.sorted(by: { $0.date < $1.date }) {
            accessCounter += 1
            entries[item.key] = Entry(size: item.size, lastAccess: accessCounter)
            totalBytes += item.size
        }
        evict()
    }

    /// A file name for a URL: two independent 64-bit FNV-1a hashes, hex.
    static func key(for url: URL) -> String {
        let bytes = Array(url.absoluteString.utf8)
        func fnv(_ basis: UInt64) -> UInt64 {
            var hash = basis
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            return hash
        }
        let first = fnv(0xcbf2_9ce4_8422_2325)
        let second = fnv(0x84222325_cbf29ce4 ^ UInt64(bytes.count))
        return hex(first) + hex(second)
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
