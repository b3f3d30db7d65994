@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as MP4 and QuickTime (moov, trak, stsd and the configuration boxes), for its codecs (the first two bytes choose how much the fetcher
/// saw): a bounded description or follow-up request, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP4CodecsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzCodecProbe(.mp4, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
