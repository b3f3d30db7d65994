import Foundation

/// The platform's namespaces, as the one `String` each that decoders hand out for them.
///
/// A frame decoder that meets one of these names (CastTLS's `RecentWireStrings`) returns the constant here
/// instead of a new string, and the modules that compare against the names (the connection's routing,
/// the emulated receiver's engine) use these constants too. Equal strings that share their storage
/// compare equal at once, by their bits; equal strings made apart are compared byte by byte, and the
/// platform's names share their first 27 bytes (`urn:x-cast:com.google.cast.`). The emulated receiver
/// compared a media command's namespace with about eight of them (callgrind, `seek-work --side
/// receiver`: string comparisons 1 664 instructions per SEEK before, 674 after, with the receiver's
/// length-first test).
package enum CastWireStrings {
    /// Virtual connections: CONNECT and CLOSE.
    package static let connection = "urn:x-cast:com.google.cast.tp.connection"
    /// Keep-alive PING and PONG.
    package static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    /// Device authentication.
    package static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    /// The platform's receiver.
    package static let receiver = "urn:x-cast:com.google.cast.receiver"
    /// Media playback.
    package static let media = "urn:x-cast:com.google.cast.media"
    /// Speaker groups.
    package static let multizone = "urn:x-cast:com.google.cast.multizone"

    /// Every name above, with its UTF-8.
    private static let names: [(bytes: [UInt8], string: String)] = [connection, heartbeat, deviceAuth, receiver, media, multizone]
        .map { (Array($0.utf8), $0) }

    /// The constant whose UTF-8 is `field`, if there is one.
    package static func known(_ field: UnsafeRawBufferPointer) -> String? {
        guard let start = field.baseAddress else { return nil }
        for name in names where name.bytes.count == field.count {
            if name.bytes.withUnsafeBytes({ memcmp($0.baseAddress!, start, field.count) == 0 }) { return name.string }
        }
        return nil
    }
}
