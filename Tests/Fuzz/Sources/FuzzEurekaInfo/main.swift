@_spi(Fuzzing) import CastEmulator

/// Answers arbitrary bytes as the request target of a GET /setup/eureka_info: 200, 404 or 414, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEurekaInfoEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzEurekaTarget(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
