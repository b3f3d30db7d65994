@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as an MPEG-2 transport stream (PAT, PMT, the first PES of each stream), for its codecs (the first two bytes choose how much the fetcher
/// saw): a bounded description or follow-up request, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPEGTSCodecsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzCodecProbe(.mpegts, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
