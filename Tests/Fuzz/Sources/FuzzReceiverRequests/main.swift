@_spi(Fuzzing) import CastEmulator

/// Runs arbitrary bytes as a script of sender messages against the emulated receiver's state machine; every
/// reply must be a well-formed CastMessage with JSON Foundation reads (see `EmulatedReceiverFuzzing.run`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceiverRequests(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.run(script: Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
