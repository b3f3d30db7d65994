@_spi(Fuzzing) import CastTLS

/// Parses and verifies arbitrary bytes as a CRL bundle, a certificate chain (PEM or DER), and both together:
/// it must never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCertificatePathEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzCertificatePath(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
