@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as an HLS playlist (master variants with CODECS, RESOLUTION and FRAME-RATE; a media playlist's segments), for its codecs (the first two bytes choose how much the fetcher
/// saw): a bounded description or follow-up request, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLSCodecsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzCodecProbe(.hls, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
