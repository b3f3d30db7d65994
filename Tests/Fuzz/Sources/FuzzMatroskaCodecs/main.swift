@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as Matroska and WebM (Tracks, CodecPrivate, the first VP9 frame), for its codecs (the first two bytes choose how much the fetcher
/// saw): a bounded description or follow-up request, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMatroskaCodecsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzCodecProbe(.matroska, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
