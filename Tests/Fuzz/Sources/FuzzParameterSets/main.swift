@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as H.264 and HEVC sequence parameter sets and as the configuration records
/// containers carry (avcC, hvcC, av1C, vpcC, VP9 features and frame headers, AAC AudioSpecificConfig,
/// dac3, dec3, dOps, FLAC STREAMINFO, esds): sane sizes or nothing, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParameterSetsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzParameterSets(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
