@_spi(Fuzzing) import CastTLS

/// Parses and verifies arbitrary bytes as a device-authentication reply: it must never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthResponseEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzAuthResponse(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
