import Synchronization

/// A file or piece of data published by a ``MediaServer``.
public struct MediaRegistration: Sendable, Hashable {
    /// The unguessable token (128 random bits, 32 hex digits) that is the first path segment of the URL.
    public let token: String
    /// The file name, last segment of the URL (percent-encoded there).
    public let name: String
    /// The content type served.
    public let contentType: String
    /// The absolute URL to hand to a receiver, such as `http://192.168.1.20:40123/3f9c…/movie.mp4`.
    public let url: String
    /// The URL's path, `/<token>/<escaped name>`.
    public var path: String { "/\(token)/\(RequestTarget.percentEncode(name))" }
}

/// The registered resources, by token.
final class Registry: Sendable {
    enum Source: Sendable {
        /// A file opened anew for each request (so a replaced file is served with its new validators).
        case file(path: String)
        /// Bytes in memory with fixed validators.
        case data(bytes: [UInt8], entityTag: String, lastModified: Int64)
        /// Resources made on request by a provider, under any name below the token.
        case provider(any MediaResourceProvider)
    }

    struct Entry: Sendable {
        var registration: MediaRegistration
        var source: Source
    }

    private let entries = Mutex<[String: Entry]>([:])

    func add(_ entry: Entry) { entries.withLock { $0[entry.registration.token] = entry } }

    @discardableResult
    func remove(token: String) -> Bool { entries.withLock { $0.removeValue(forKey: token) != nil } }

    func removeAll() { entries.withLock { $0.removeAll() } }

    func entry(token: String, name: String) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            if case .provider = entry.source { return entry }
            return entry.registration.name == name ? entry : nil
        }
    }

    var all: [MediaRegistration] { entries.withLock { $0.values.map(\.registration) } }
}
