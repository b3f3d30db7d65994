@_spi(Fuzzing) import CastTLS

/// Reads arbitrary bytes as a DeviceAuthMessage with SwiftProtobuf, with the sender's authenticator and with the
/// emulated device's challenge handling, which must agree (see `fuzzDeviceAuthMessage`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceAuthMessageEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzDeviceAuthMessage(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
