@_spi(Fuzzing) import CastChannels

/// Reads arbitrary bytes as a RECEIVER_STATUS message from the bytes (pull reader) and through the
/// `JSONValue` tree; traps unless both give the same status or both refuse it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceiverStatusBytes(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastChannelsFuzzing.compareReceiverStatusDecoders(UnsafeBufferPointer(start: start, count: count))
    return 0
}
