@_spi(Fuzzing) import CastMedia

/// Decodes arbitrary bytes as a MEDIA_STATUS message from the bytes (pull reader) and through the
/// `JSONValue` tree; traps unless both give the same message or both fail with the same error code.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaStatusBytes(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastMediaFuzzing.compareStatusDecoders(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
