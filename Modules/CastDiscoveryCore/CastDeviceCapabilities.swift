/// What a device can do, decoded from the TXT key `ca` (a decimal 64-bit bitmask).
///
/// Bits 0–5 are documented by Chromium (`CastDeviceCapability`) and Open Screen; higher bits
/// are kept in ``rawValue`` untouched.
public struct CastDeviceCapabilities: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The bitmask as advertised.
    public let rawValue: UInt64
    /// Wraps a bitmask.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Bit 0: the device renders video (a TV or a Chromecast).
    public static let videoOut = Self(rawValue: 1 << 0)
    /// Bit 1: the device has a camera.
    public static let videoIn = Self(rawValue: 1 << 1)
    /// Bit 2: the device plays audio.
    public static let audioOut = Self(rawValue: 1 << 2)
    /// Bit 3: the device has a microphone.
    public static let audioIn = Self(rawValue: 1 << 3)
    /// Bit 4: developer mode is on.
    public static let devMode = Self(rawValue: 1 << 4)
    /// Bit 5: this service is a multizone (speaker) group hosted by its elected leader.
    public static let multizoneGroup = Self(rawValue: 1 << 5)

    /// Named flags, for display: `videoOut|audioOut`.
    public var description: String {
        let names: [(Self, String)] = [(.videoOut, "videoOut"), (.videoIn, "videoIn"), (.audioOut, "audioOut"),
                                       (.audioIn, "audioIn"), (.devMode, "devMode"), (.multizoneGroup, "multizoneGroup")]
        var parts = names.filter { contains($0.0) }.map(\.1)
        let unknown = rawValue & ~UInt64(0x3f)
        if unknown != 0 { parts.append("0x" + String(unknown, radix: 16)) }
        return parts.isEmpty ? "none" : parts.joined(separator: "|")
    }
}
