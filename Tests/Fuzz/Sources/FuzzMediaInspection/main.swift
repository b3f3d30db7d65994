@_spi(Fuzzing) import CastEmulator

/// Runs the receiver's whole inspection of a fetched resource (duration, codecs, seeking, the
/// decision of every preset) over arbitrary bytes; the first three bytes choose the prefix, the
/// response's type and flags. It must finish within its request budget, never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaInspectionEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzMediaInspection(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
