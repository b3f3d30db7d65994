import CastMediaMetadata
import CastXML
import Foundation

/// A podcast: an RSS 2.0 feed with iTunes extensions, read into values Cast can play.
///
/// Parsing goes through the safe XML wrapper: no network, no DTD, no entities, bounded size and depth.
///
/// ```swift
/// let feed = try PodcastFeed(parsing: data)
/// let metadata = feed.episodes[0].metadata(in: feed)
/// ```
public struct PodcastFeed: Sendable, Hashable {
    /// The channel title.
    public var title: String
    /// The channel description, if any.
    public var description: String?
    /// The author (`itunes:author`), if any.
    public var author: String?
    /// The web page of the podcast (`link`), if any.
    public var link: URL?
    /// The channel artwork: `itunes:image` `href`, else the RSS `image` `url`.
    public var artwork: URL?
    /// The episodes, in feed order.
    public var episodes: [PodcastEpisode]

    /// Creates a feed.
    public init(title: String, description: String? = nil, author: String? = nil, link: URL? = nil,
                artwork: URL? = nil, episodes: [PodcastEpisode] = []) {
        self.title = title
        self.description = description
        self.author = author
        self.link = link
        self.artwork = artwork
        self.episodes = episodes
    }
}

/// One episode of a ``PodcastFeed``.
public struct PodcastEpisode: Sendable, Hashable {
    /// The title.
    public var title: String
    /// The `guid`, if any.
    public var guid: String?
    /// The media file.
    public var enclosure: PodcastEnclosure
    /// The duration in seconds (`itunes:duration`), if given.
    public var duration: Double?
    /// The publication date (`pubDate`), if given and valid.
    public var publicationDate: Date?
    /// The summary (`description` or `itunes:summary`), if any.
    public var summary: String?
    /// The episode artwork (`itunes:image`), if any.
    public var artwork: URL?
    /// The season number (`itunes:season`), if any.
    public var season: Int?
    /// The episode number (`itunes:episode`), if any.
    public var episodeNumber: Int?

    /// Creates an episode.
    public init(title: String, guid: String? = nil, enclosure: PodcastEnclosure, duration: Double? = nil,
                publicationDate: Date? = nil, summary: String? = nil, artwork: URL? = nil,
                season: Int? = nil, episodeNumber: Int? = nil) {
        self.title = title
        self.guid = guid
        self.enclosure = enclosure
        self.duration = duration
        self.publicationDate = publicationDate
        self.summary = summary
        self.artwork = artwork
        self.season = season
        self.episodeNumber = episodeNumber
    }
}

/// The media file of an episode (`enclosure`).
public struct PodcastEnclosure: Sendable, Hashable {
    /// The file URL.
    public var url: URL
    /// The MIME type (`type`), such as `audio/mpeg`.
    public var type: String
    /// The size in bytes (`length`), if given.
    public var length: Int?

    /// Creates an enclosure.
    public init(url: URL, type: String, length: Int? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}

/// Why a feed could not be read.
public struct PodcastFeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable { case invalidXML, notAFeed }
        private let base: Base
        /// The document is not acceptable XML (see ``PodcastFeedError/xmlError``).
        public static let invalidXML = Code(base: .invalidXML)
        /// The XML is not an RSS feed with a channel.
        public static let notAFeed = Code(base: .notAFeed)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The XML error, for ``Code/invalidXML``.
    public var xmlError: CastXMLError?

    /// Creates an error.
    public init(code: Code, message: String, xmlError: CastXMLError? = nil) {
        self.code = code
        self.message = message
        self.xmlError = xmlError
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

extension PodcastFeed {
    /// The iTunes podcast namespace.
    public static let itunesNamespace = "http://www.itunes.com/dtds/podcast-1.0.dtd"

    /// Parses an RSS feed. Items without a usable enclosure are skipped (they cannot be cast).
    ///
    /// The XML limits (`CastXMLParseOptions`: size, depth, attributes per element, elements, text
    /// length and a time limit on `clock`) are enforced while the feed is read: a hostile feed fails
    /// with ``PodcastFeedError/Code/invalidXML`` and the limit it passed in ``PodcastFeedError/xmlError``.
    /// - Throws: ``PodcastFeedError``.
    public init(
        parsing data: Data, options: CastXMLParseOptions = .default, clock: some Clock<Duration> = ContinuousClock()
    ) throws(PodcastFeedError) {
        let document: CastXMLDocument
        do {
            document = try CastXMLDocument(parsing: data, options: options, clock: clock)
        } catch {
            throw PodcastFeedError(code: .invalidXML, message: "The feed is not acceptable XML: \(error)", xmlError: error)
        }
        guard document.root.matches("rss"), let channel = document.root.child("channel", namespace: CastXMLElement.noNamespace) else {
            throw PodcastFeedError(code: .notAFeed, message: "The document is not an RSS feed (root <\(document.root.name)>, expected <rss><channel>)")
        }
        let itunes = Self.itunesNamespace
        func plain(_ element: CastXMLElement, _ name: String) -> String? {
            element.child(name, namespace: CastXMLElement.noNamespace).map(\.trimmedText).flatMap { $0.isEmpty ? nil : $0 }
        }
        func itunesText(_ element: CastXMLElement, _ name: String) -> String? {
            element.child(name, namespace: itunes).map(\.trimmedText).flatMap { $0.isEmpty ? nil : $0 }
        }
        func itunesImage(_ element: CastXMLElement) -> URL? {
            element.child("image", namespace: itunes)?.attribute("href").flatMap { URL(string: $0.trimmingCharacters(in: .whitespaces)) }
        }

        title = plain(channel, "title") ?? itunesText(channel, "title") ?? ""
        description = plain(channel, "description") ?? itunesText(channel, "summary")
        author = itunesText(channel, "author")
        link = plain(channel, "link").flatMap(URL.init(string:))
        artwork = itunesImage(channel)
            ?? channel.child("image", namespace: CastXMLElement.noNamespace).flatMap { plain($0, "url") }.flatMap(URL.init(string:))
        episodes = channel.children("item", namespace: CastXMLElement.noNamespace).compactMap { item in
            guard let enclosure = item.child("enclosure", namespace: CastXMLElement.noNamespace),
                let urlText = enclosure.attribute("url")?.trimmingCharacters(in: .whitespaces),
                let url = URL(string: urlText), url.scheme != nil
            else { return nil }
            let type = enclosure.attribute("type")?.trimmingCharacters(in: .whitespaces)
            return PodcastEpisode(
                title: plain(item, "title") ?? itunesText(item, "title") ?? "",
                guid: plain(item, "guid"),
                enclosure: PodcastEnclosure(
                    url: url, type: (type?.isEmpty == false ? type : nil) ?? "audio/mpeg",
                    length: enclosure.attribute("length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }),
                duration: itunesText(item, "duration").flatMap(Self.parseDuration),
                publicationDate: plain(item, "pubDate").flatMap(RFC822Date.parse),
                summary: plain(item, "description") ?? itunesText(item, "summary"),
                artwork: itunesImage(item),
                season: itunesText(item, "season").flatMap { Int($0) },
                episodeNumber: itunesText(item, "episode").flatMap { Int($0) })
        }
    }

    /// Parses an RSS feed with the default XML limits and the time limit given (for example what is left
    /// of the budget its download had).
    /// - Throws: ``PodcastFeedError``.
    public init(parsing data: Data, timeLimit: Duration, clock: some Clock<Duration> = ContinuousClock()) throws(PodcastFeedError) {
        var options = CastXMLParseOptions.default
        options.timeLimit = timeLimit
        try self.init(parsing: data, options: options, clock: clock)
    }

    /// Reads `itunes:duration`: `H:MM:SS`, `MM:SS` or a number of seconds (fractions allowed).
    public static func parseDuration(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard let value = isLast ? Double(part) : Double(Int(part) ?? -1), value >= 0, value.isFinite else { return nil }
            if parts.count > 1, index > 0, value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }
}

extension PodcastEpisode {
    /// Cast metadata for this episode.
    ///
    /// Audio episodes use `CastMetadataType.musicTrack` (title, artist = the feed's author, album = the feed's
    /// title) so receivers show the artwork; video episodes use `CastMetadataType.generic` with the feed's
    /// title as subtitle. The artwork is the episode's, else the feed's; the release date is the publication date.
    public func metadata(in feed: PodcastFeed) -> CastMetadata {
        let isAudio = enclosure.type.lowercased().hasPrefix("audio/")
        var metadata = CastMetadata(title: title, metadataType: isAudio ? .musicTrack : .generic,
                                    image: CastImage(url: artwork ?? feed.artwork))
        if isAudio {
            metadata.artist = feed.author
            metadata.albumName = feed.title
        } else {
            metadata.subtitle = feed.title
        }
        if let publicationDate {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            metadata.releaseDate = formatter.string(from: publicationDate)
        }
        return metadata
    }
}
