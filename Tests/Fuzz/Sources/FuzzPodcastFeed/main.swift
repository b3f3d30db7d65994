import CastMetadata
import Foundation

/// Parses arbitrary bytes as a podcast feed through the safe libxml2 wrapper: a feed or a typed
/// error, never a crash, a network access or an entity expansion.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPodcastFeed(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let feed = try? PodcastFeed(parsing: data) {
        for episode in feed.episodes { _ = episode.metadata(in: feed) }
    }
    return 0
}
