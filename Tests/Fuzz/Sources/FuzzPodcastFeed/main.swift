@_spi(Fuzzing) import CastPodcast

/// Parses arbitrary bytes as XML through the safe libxml2 wrapper and through libxml2 alone (they must
/// agree), then as a podcast feed: a feed or a typed error, never a crash, a network access or an entity expansion.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPodcastFeedEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzPodcastFeed(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
