import CastMedia
import Foundation

/// Decodes arbitrary bytes as a MEDIA_STATUS message: a typed error or a value, never a crash;
/// whatever decodes must encode and decode again to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaStatus(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard let message = try? JSONDecoder().decode(MediaStatusMessage.self, from: data) else { return 0 }
    guard let encoded = try? JSONEncoder().encode(message) else { fatalError("a decoded status did not encode") }
    guard let again = try? JSONDecoder().decode(MediaStatusMessage.self, from: encoded) else {
        fatalError("a re-encoded status did not decode: \(String(decoding: encoded, as: UTF8.self))")
    }
    _ = again.status.count
    return 0
}
