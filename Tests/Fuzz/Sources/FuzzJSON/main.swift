@_spi(Fuzzing) import CastJSON

/// Parses arbitrary bytes as JSON with Castor's parser and with Foundation's JSONSerialization; they must
/// agree on acceptance and on the value, and what Castor writes must read back the same (see `fuzzJSON`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzJSON(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
