@_spi(Fuzzing) import CastXML
import Foundation

/// libFuzzer entry point for feeds: the bytes are parsed as XML by Castor and by libxml2 alone, which must
/// agree (`CastXMLFuzzing.compareWithLibXML2(_:)`), then as a podcast feed. A document whose root is `<rss>`
/// with a `<channel>` must give a feed, with at most one episode per `<item>`; anything else a typed error.
@_spi(Fuzzing) public func fuzzPodcastFeed(_ bytes: UnsafeRawBufferPointer) {
    let data = Data(bytes)
    let document = CastXMLFuzzing.compareWithLibXML2(data)
    let feed = Result { () throws(PodcastFeedError) in try PodcastFeed(parsing: data) }
    guard let document else {
        if case .success(let parsed) = feed { fatalError("a feed came out of a document Castor rejects: \(parsed)") }
        return
    }
    let channel = document.root.matches("rss") ? document.root.child("channel", namespace: CastXMLElement.noNamespace) : nil
    switch (channel, feed) {
    case (let channel?, .success(let parsed)):
        let items = channel.children("item", namespace: CastXMLElement.noNamespace).count
        guard parsed.episodes.count <= items else { fatalError("\(parsed.episodes.count) episodes from \(items) items") }
        for episode in parsed.episodes {
            _ = episode.metadata(in: parsed)
            guard episode.enclosure.url.scheme != nil else { fatalError("an episode without a URL scheme: \(episode)") }
        }
    case (nil, .failure(let error)) where error.code == .notAFeed:
        break
    default:
        fatalError("document <\(document.root.name)> gave \(feed)")
    }
}
