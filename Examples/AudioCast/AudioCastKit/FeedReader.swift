import CastDownload
import CastMediaMetadata
import CastPodcast
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads podcast feeds from a path or a `file://`, `http://` or `https://` URL.
enum FeedReader {
    /// The most bytes a feed may have: 16 MiB.
    static let maximumSize = 16 << 20

    /// The limits of a feed download: 16 MiB counted while reading (after gzip), 60 s, at least 1 KiB every 10 s.
    static let downloadLimits = CastDownloadLimits(maximumBytes: maximumSize, deadline: .seconds(60))

    static func data(from source: String, clock: any Clock<Duration> = ContinuousClock()) async throws(AudioCastError) -> Data {
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard let url = URL(string: source) else {
                throw AudioCastError(code: .feedUnreadable, message: "'\(source)' is not a valid URL.")
            }
            do {
                return try await CastDownloader(limits: downloadLimits, clock: clock).data(from: url)
            } catch {
                throw AudioCastError(code: .feedUnreadable, message: "\(error.message).")
            }
        }
        let path: String
        if lower.hasPrefix("file://") {
            guard let url = URL(string: source), url.isFileURL else {
                throw AudioCastError(code: .feedUnreadable, message: "'\(source)' is not a valid file URL.")
            }
            path = url.path
        } else if let colon = source.firstIndex(of: ":"), !source[..<colon].contains("/"), source[..<colon].count > 1 {
            throw AudioCastError(
                code: .feedUnreadable, message: "Unsupported feed URL scheme '\(source[..<colon])'; use a path, file://, http:// or https://.")
        } else {
            path = source
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > maximumSize {
            throw AudioCastError(code: .feedUnreadable, message: "\(path) is larger than \(maximumSize) bytes.")
        }
        // Read at most one byte past the cap: a FIFO or a device reports no size and may never end.
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw AudioCastError(code: .feedUnreadable, message: "Cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else {
            throw AudioCastError(code: .feedUnreadable, message: "\(path) is larger than \(maximumSize) bytes.")
        }
        return data
    }

    /// Reads a feed and parses it, both within the download's deadline: the parse gets what the
    /// download left of it (and CastXML's structural limits refuse a hostile document long before).
    static func feed(from source: String, clock: some Clock<Duration> = ContinuousClock()) async throws(AudioCastError) -> PodcastFeed {
        let start = clock.now
        let data = try await data(from: source, clock: clock)
        let left = downloadLimits.deadline - start.duration(to: clock.now)
        return try parse(data, source: source, timeLimit: max(.zero, left), clock: clock)
    }

    /// Parses a feed's bytes, within `timeLimit` on `clock`.
    static func parse(
        _ data: Data, source: String, timeLimit: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) throws(AudioCastError) -> PodcastFeed {
        do {
            return try PodcastFeed(parsing: data, timeLimit: timeLimit, clock: clock)
        } catch {
            throw AudioCastError(code: .invalidFeed, message: "\(source): \(error)", cause: error)
        }
    }

    /// A parsed feed as a show (episodes without an enclosure are skipped by the parser).
    static func show(from feed: PodcastFeed, source: String, id: String) throws(AudioCastError) -> Show {
        guard !feed.episodes.isEmpty else {
            throw AudioCastError(code: .invalidFeed, message: "\(source) has no episode with a playable enclosure.")
        }
        var seen = Set<String>()
        var episodes: [Episode] = []
        for episode in feed.episodes {
            let key = "\(id)/\(Catalog.hash(episode.guid ?? episode.enclosure.url.absoluteString))"
            guard seen.insert(key).inserted else { continue }   // a repeated guid: keep the first
            episodes.append(Episode(
                id: key, title: episode.title.isEmpty ? episode.enclosure.url.lastPathComponent : episode.title,
                guid: episode.guid, url: episode.enclosure.url.absoluteString, mimeType: episode.enclosure.type,
                duration: episode.duration, published: episode.publicationDate, artwork: episode.artwork?.absoluteString))
        }
        let title = feed.title.trimmingCharacters(in: .whitespacesAndNewlines)
        return Show(id: id, title: title.isEmpty ? source : title, author: feed.author, artwork: feed.artwork?.absoluteString,
                    source: source, episodes: episodes)
    }
}
