@_spi(Fuzzing) import CastConversion

/// Splits arbitrary bytes as a self-initializing fragmented-MP4 segment (see `CastConversionFuzzing.checkFragmentedMP4`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFragmentedMP4(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastConversionFuzzing.checkFragmentedMP4(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
