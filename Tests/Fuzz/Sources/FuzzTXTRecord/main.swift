@_spi(Fuzzing) import CastDiscoveryCore

/// Parses arbitrary bytes as an mDNS TXT record of a Cast device: a device or a typed error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTXTRecordEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastDiscoveryFuzzing.fuzzTXT(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
