import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `library.json` in the library directory: read, and changed under an exclusive lock
/// (`library.lock`, `flock`) so that two `audiocast` processes never lose each other's changes.
/// Writes are atomic (a temporary file renamed over the old one).
struct CatalogFile: Sendable {
    let url: URL
    let lockURL: URL

    init(directory: URL) {
        url = directory.appendingPathComponent("library.json")
        lockURL = directory.appendingPathComponent("library.lock")
    }

    func read() throws(AudioCastError) -> Catalog {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return Catalog() }
            throw AudioCastError(code: .storage, message: "Cannot read \(url.path): \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let catalog: Catalog
        do {
            catalog = try decoder.decode(Catalog.self, from: data)
        } catch {
            throw AudioCastError(code: .libraryCorrupt, message: "\(url.path) is not an AudioCast library: \(error)")
        }
        guard catalog.version <= Catalog.currentVersion else {
            throw AudioCastError(
                code: .libraryCorrupt, message: "\(url.path) was written by a newer AudioCast (version \(catalog.version)).")
        }
        return catalog
    }

    /// Reads, changes and writes the catalog while holding the lock.
    func update<T>(_ change: (inout Catalog) throws(AudioCastError) -> T) throws(AudioCastError) -> T {
        let descriptor = open(lockURL.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw AudioCastError(code: .storage, message: "Cannot open \(lockURL.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw AudioCastError(code: .storage, message: "Cannot lock \(lockURL.path): \(String(cString: strerror(errno)))")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        var catalog = try read()
        let before = catalog
        let result = try change(&catalog)
        if catalog != before { try write(catalog) }
        return result
    }

    private func write(_ catalog: Catalog) throws(AudioCastError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            try encoder.encode(catalog).write(to: url, options: .atomic)
        } catch {
            throw AudioCastError(code: .storage, message: "Cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
