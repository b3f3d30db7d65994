@_spi(Fuzzing) import CastMediaServer

/// Converts arbitrary bytes from SRT to WebVTT; the output must be valid WebVTT and convert to itself
/// (see `CastMediaServerFuzzing.checkSubtitles`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSubtitles(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastMediaServerFuzzing.checkSubtitles(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
