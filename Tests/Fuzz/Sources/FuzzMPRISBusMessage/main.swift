@_spi(Fuzzing) import CastMPRIS

/// A D-Bus message from the session bus into the MPRIS player: libdbus's reading against Castor's
/// reader and writer, and every answer of the MPRIS rules sendable and inside what the player allows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPRISBusMessageEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastMPRISFuzzing.fuzzBusMessage(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
