@_spi(Fuzzing) import CastConversion

/// Reads arbitrary bytes as ffprobe's key frame lines and ffmpeg's progress lines, and lays segments out at the key
/// frames (see `CastConversionFuzzing.checkKeyframes`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyframeLines(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    CastConversionFuzzing.checkKeyframes(Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
