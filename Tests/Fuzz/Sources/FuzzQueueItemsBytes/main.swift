@_spi(Fuzzing) import CastMedia

/// Reads arbitrary bytes as a QUEUE_ITEMS message's items from the bytes (pull reader) and through
/// the `JSONValue` tree; traps unless both give the same items or both find the bytes malformed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueueItemsBytes(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastMediaFuzzing.compareQueueItemsDecoders(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
