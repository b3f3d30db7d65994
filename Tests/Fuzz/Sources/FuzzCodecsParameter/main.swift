import CastDeviceProfiles

/// Reads arbitrary text as an RFC 6381 codecs list and as a content type, and decides what every
/// preset does with what it read: bounded entries, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodecsParameterEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let codecs = CodecsParameter(text)
    precondition(codecs.entries.count <= CodecsParameter.maximumEntries)
    let typed = CodecsParameter(contentType: "video/mp4; codecs=" + text)
    let media = MediaDescription(container: .mp4, video: codecs.video + (typed?.video ?? []), audio: codecs.audio)
    for profile in CastDeviceProfile.presets { _ = profile.support(for: media, hdmiPassthrough: count % 2 == 0).description }
    return 0
}
