@_spi(Fuzzing) import CastDIAL

/// Parses arbitrary bytes as a DIAL device description (hostile XML included): a description or a typed error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceDescriptionEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastDIALFuzzing.fuzzDeviceDescription(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
