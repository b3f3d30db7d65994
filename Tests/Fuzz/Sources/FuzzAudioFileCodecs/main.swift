@_spi(Fuzzing) import CastEmulator

/// Reads arbitrary bytes as an audio file for its codecs: FLAC `STREAMINFO`, WAV `fmt `, the Ogg
/// identification headers, the AVI container, ADTS and MPEG audio frame headers. The probe picks the
/// format by its magic bytes, so this one target reaches all of them (the seeds hold one of each).
/// The first two bytes choose how much the fetcher saw; never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioFileCodecsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    EmulatedReceiverFuzzing.fuzzCodecProbe(.adts, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
