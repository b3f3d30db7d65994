import CastIntents
import CastMediaMetadata
import CastPodcast
import Foundation

/// A subscribed podcast show and its episodes, as read from its feed.
public struct Show: Sendable, Hashable, Codable {
    /// The show's identifier: a slug of its title when first subscribed (`swift-by-night`), kept
    /// across refreshes. It is the group identifier of the show's donations.
    public var id: String
    /// The title.
    public var title: String
    /// The author, if the feed names one.
    public var author: String?
    /// The artwork URL, if any.
    public var artwork: String?
    /// Where the feed is read from: a path or a `file://`, `http://` or `https://` URL.
    public var source: String
    /// The episodes, in feed order.
    public var episodes: [Episode]

    /// Creates a show.
    public init(id: String, title: String, author: String? = nil, artwork: String? = nil, source: String, episodes: [Episode]) {
        self.id = id
        self.title = title
        self.author = author
        self.artwork = artwork
        self.source = source
        self.episodes = episodes
    }
}

/// A podcast episode.
public struct Episode: Sendable, Hashable, Codable {
    /// `<show id>/<8 hex digits>`: the show's id and a hash of the episode's `guid` (else its
    /// enclosure URL), stable across refreshes.
    public var id: String
    /// The title.
    public var title: String
    /// The feed's `guid`, if any.
    public var guid: String?
    /// The enclosure URL.
    public var url: String
    /// The enclosure's MIME type.
    public var mimeType: String
    /// The duration in seconds, if the feed gives it.
    public var duration: Double?
    /// The publication date, if any.
    public var published: Date?
    /// The episode's own artwork, if any.
    public var artwork: String?

    /// Creates an episode.
    public init(id: String, title: String, guid: String? = nil, url: String, mimeType: String, duration: Double? = nil,
                published: Date? = nil, artwork: String? = nil) {
        self.id = id
        self.title = title
        self.guid = guid
        self.url = url
        self.mimeType = mimeType
        self.duration = duration
        self.published = published
        self.artwork = artwork
    }
}

/// What `library.json` holds: the shows and the stored playback positions.
struct Catalog: Sendable, Codable, Equatable {
    static let currentVersion = 1
    var version = Catalog.currentVersion
    var shows: [Show] = []
    /// Where the user stopped, in seconds, by episode id.
    var positions: [String: Double] = [:]

    func show(matching text: String) -> Show? {
        shows.first { $0.id == text } ?? shows.first { $0.title.caseInsensitiveCompare(text) == .orderedSame }
    }

    func episode(matching text: String) -> (Show, Episode)? {
        for show in shows { if let episode = show.episodes.first(where: { $0.id == text }) { return (show, episode) } }
        for show in shows {
            if let episode = show.episodes.first(where: { $0.title.caseInsensitiveCompare(text) == .orderedSame }) { return (show, episode) }
        }
        return nil
    }

    func episode(withURL url: String) -> (Show, Episode)? {
        for show in shows { if let episode = show.episodes.first(where: { $0.url == url }) { return (show, episode) } }
        return nil
    }

    /// A new show id: the title's slug, made unique.
    func newShowId(title: String) -> String {
        let slug = Self.slug(title)
        let taken = Set(shows.map(\.id))
        var candidate = slug
        var counter = 2
        while taken.contains(candidate) {
            candidate = "\(slug)-\(counter)"
            counter += 1
        }
        return candidate
    }

    static func slug(_ text: String) -> String {
        var result = ""
        var pendingDash = false
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if pendingDash, !result.isEmpty { result.append("-") }
                result.unicodeScalars.append(scalar)
                pendingDash = false
            } else {
                pendingDash = true
            }
            if result.count >= 48 { break }
        }
        return result.isEmpty ? "show" : result
    }

    /// FNV-1a, 32 bits, as 8 hex digits: short, stable episode keys.
    static func hash(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}

// MARK: Media items

extension Show {
    /// The show as a media container.
    public func mediaItem() throws(CastIntentsError) -> MediaItem {
        try MediaItem(identifier: id, title: Self.itemTitle(title), type: .podcastShow,
                      artworkURL: artwork.flatMap(Self.artworkURL))
    }

    /// The feed this show was read from, rebuilt for Cast metadata.
    var feed: PodcastFeed {
        PodcastFeed(title: title, author: author, artwork: artwork.flatMap(URL.init(string:)))
    }

    /// A title a media item accepts: blank becomes `nil`, over-long titles are cut.
    static func itemTitle(_ title: String) -> String? {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines).filter { $0 != "\u{0}" }
        if trimmed.isEmpty { return nil }
        return trimmed.count > MediaItem.maximumTitleLength ? String(trimmed.prefix(MediaItem.maximumTitleLength)) : trimmed
    }

    static func artworkURL(_ text: String) -> URL? {
        guard let url = URL(string: text), url.scheme?.isEmpty == false, text.utf8.count <= 8_192 else { return nil }
        return url
    }
}

extension Episode {
    /// The episode as a media item of its show.
    public func mediaItem(in show: Show) throws(CastIntentsError) -> MediaItem {
        let kind: MediaItemType = mimeType.lowercased().hasPrefix("video/") ? .videoPodcastEpisode : .podcastEpisode
        return try MediaItem(identifier: id, title: Show.itemTitle(title), type: kind,
                             artworkURL: (artwork ?? show.artwork).flatMap(Show.artworkURL), containerIdentifier: show.id)
    }

    /// The episode as read from a feed, for its Cast metadata.
    var podcastEpisode: PodcastEpisode? {
        guard let enclosure = URL(string: url) else { return nil }
        return PodcastEpisode(title: title, guid: guid, enclosure: PodcastEnclosure(url: enclosure, type: mimeType),
                              duration: duration, publicationDate: published, artwork: artwork.flatMap(URL.init(string:)))
    }
}
