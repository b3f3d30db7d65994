@_spi(Fuzzing) import CastMediaServer

/// Parses arbitrary bytes as M3U and PLS playlists (see `CastMediaServerFuzzing.checkPlaylist`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylist(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastMediaServerFuzzing.checkPlaylist(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
