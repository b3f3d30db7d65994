@_spi(Fuzzing) import CastConversion

/// Reads arbitrary bytes as ffprobe's JSON report, plans the result for every device preset and builds each HLS
/// plan's playlists and ffmpeg arguments (see `CastConversionFuzzing.checkReport`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFFprobeReport(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastConversionFuzzing.checkReport(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
