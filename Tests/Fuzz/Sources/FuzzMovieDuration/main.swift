@_spi(Fuzzing) import CastEmulator

/// Probes arbitrary bytes for a media duration (the first two bytes choose how much the fetcher saw):
/// a bounded result, never a crash or an unbounded follow-up request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMovieDurationEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzProbe(.mp4, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
