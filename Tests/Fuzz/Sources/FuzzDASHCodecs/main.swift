@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as a DASH manifest (the codecs, size and rate of each representation), for its codecs (the first two bytes choose how much the fetcher
/// saw): a bounded description or follow-up request, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDASHCodecsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzCodecProbe(.dash, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
