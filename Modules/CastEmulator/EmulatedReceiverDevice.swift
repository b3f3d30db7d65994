import Foundation
import CastJSON

/// What kind of Cast device the receiver pretends to be.
///
/// The kind decides the idle screen (video devices run the Backdrop app when idle, audio devices and
/// groups run nothing), which Default Media Receiver variant can be launched, the `ca` capability bits
/// of the TXT record, and whether the multizone namespace reports members.
public struct EmulatedReceiverDeviceKind: Sendable, Hashable {
    private enum Base: Sendable, Hashable { case video, audio, group([EmulatedReceiverGroupMember]) }
    private let base: Base

    /// A video device (Chromecast, Google TV): video and audio out, Backdrop when idle.
    public static let video = EmulatedReceiverDeviceKind(base: .video)
    /// An audio-only device (Chromecast Audio, a smart speaker): no idle app, the audio DMR variant.
    public static let audio = EmulatedReceiverDeviceKind(base: .audio)
    /// An audio group led by this device; the multizone namespace reports `members`.
    public static func group(members: [EmulatedReceiverGroupMember]) -> EmulatedReceiverDeviceKind {
        EmulatedReceiverDeviceKind(base: .group(members))
    }

    /// Whether the device has a video output.
    public var hasVideoOutput: Bool { base == .video }
    /// Whether the device is an audio group.
    public var isGroup: Bool {
        if case .group = base { return true }
        return false
    }
    /// The members of a group; empty for a single device.
    public var members: [EmulatedReceiverGroupMember] {
        if case .group(let members) = base { return members }
        return []
    }

    /// The `ca` capability bitmask: bit 0 video out, bit 2 audio out, bit 5 multizone group,
    /// plus bit 11 (seen on every current device) as real devices report it.
    public var capabilityBits: Int {
        switch base {
        case .video: 4101   // 4096 | audio out | video out, as a Chromecast reports
        case .audio: 2052   // 2048 | audio out
        case .group: 2084   // 2048 | multizone group | audio out
        }
    }
}

/// A speaker in an emulated audio group, as the multizone namespace reports it.
public struct EmulatedReceiverGroupMember: Sendable, Hashable {
    /// The member's device id (its mDNS `id` with dashes).
    public var id: UUID
    /// The member's friendly name.
    public var name: String
    /// The member's `ca` capability bits (4 = audio out).
    public var capabilities: Int
    /// The member's volume level, 0…1.
    public var volumeLevel: Double
    /// Whether the member is muted.
    public var isMuted: Bool

    /// Creates a member.
    public init(id: UUID = UUID(), name: String, capabilities: Int = 4, volumeLevel: Double = 0.5, isMuted: Bool = false) {
        self.id = id
        self.name = name
        self.capabilities = capabilities
        self.volumeLevel = volumeLevel
        self.isMuted = isMuted
    }

    /// The JSON object of `MULTIZONE_STATUS.devices[]` and `DEVICE_UPDATED.device`.
    var json: JSONValue {
        [
            "deviceId": .string(id.uuidString.lowercased()), "name": .string(name),
            "capabilities": JSONValue(capabilities),
            "volume": ["level": JSONValue(volumeLevel), "muted": JSONValue(isMuted)],
        ]
    }
}

/// How the device's volume can be controlled (`volume.controlType` of RECEIVER_STATUS).
public struct EmulatedReceiverVolumeControl: Sendable, Hashable {
    /// The wire value.
    public let rawValue: String
    private init(rawValue: String) { self.rawValue = rawValue }
    /// Device volume attenuation (Chromecast).
    public static let attenuation = EmulatedReceiverVolumeControl(rawValue: "attenuation")
    /// The device controls its speakers' master volume (TVs, speakers).
    public static let master = EmulatedReceiverVolumeControl(rawValue: "master")
    /// The volume cannot be changed (level changes are ignored; mute still works).
    public static let fixed = EmulatedReceiverVolumeControl(rawValue: "fixed")
}
