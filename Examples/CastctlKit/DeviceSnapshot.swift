import Castor
import Foundation

/// What a device was doing, as castctl saves it before an announcement or for `castctl save`:
/// the media app, what it played (queue, item, position, rate, repeat, tracks) and the volume.
public struct DeviceSnapshot: Sendable, Hashable, Codable {
    /// A volume level and mute state.
    public struct Volume: Sendable, Hashable, Codable {
        /// The level, 0...1 (`nil` when the device did not say).
        public var level: Double?
        /// Whether it was muted (`nil` when the device did not say).
        public var muted: Bool?

        /// Creates a volume.
        public init(level: Double?, muted: Bool?) {
            self.level = level
            self.muted = muted
        }
    }

    /// The volume of one member of a speaker group.
    public struct MemberVolume: Sendable, Hashable, Codable {
        /// The member's device id.
        public var id: String
        /// The member's name.
        public var name: String
        /// Its volume.
        public var volume: Volume

        /// Creates a member's volume.
        public init(id: String, name: String, volume: Volume) {
            self.id = id
            self.name = name
            self.volume = volume
        }
    }

    /// The receiver app that held the media session, if one ran.
    public var appId: String?
    /// What played or was paused (`nil`: nothing, or the media had ended).
    public var playback: CastResumeState?
    /// The device's volume (for a group, the group's).
    public var volume: Volume?
    /// The volume of each member, for a speaker group.
    public var members: [MemberVolume]

    /// Creates a snapshot.
    public init(appId: String?, playback: CastResumeState?, volume: Volume?, members: [MemberVolume] = []) {
        self.appId = appId
        self.playback = playback
        self.volume = volume
        self.members = members
    }

    /// One line: `item 2 of 3 at 0:00:30 ×1.5, tracks 1, volume 30 %`.
    public var summary: String {
        var parts: [String] = []
        if let playback {
            let index = playback.options.index
            let title = playback.assets.indices.contains(index) ? playback.assets[index].metadata?.title : nil
            var text = "item \(index + 1) of \(playback.assets.count)" + (title.map { " “\($0)”" } ?? "")
            text += " at " + Self.clock(playback.options.time.map(Self.seconds) ?? 0)
            if playback.options.playbackSpeed != 1 { text += " ×\(Self.number(playback.options.playbackSpeed))" }
            if !playback.options.shouldPlay { text += " (paused)" }
            if let tracks = playback.options.activeTrackIds, !tracks.isEmpty {
                text += ", tracks " + tracks.map(String.init).joined(separator: ",")
            }
            parts.append(text)
        } else {
            parts.append("nothing playing")
        }
        if let level = volume?.level {
            parts.append("volume \(Int((level * 100).rounded())) %" + (volume?.muted == true ? " (muted)" : ""))
        }
        if !members.isEmpty { parts.append("\(members.count) group members") }
        return parts.joined(separator: ", ")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded(.down))
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A ``DeviceSnapshot`` in a file: what `castctl save FILE` writes and `castctl restore FILE` reads.
///
/// JSON: `{"format": "castctl-state", "version": 1, "savedAt": "2026-…Z", "device": "…", "appId": …,
/// "playback": {assets, options, languages}, "volume": {level, muted}, "members": […]}`.
public struct SavedStateFile: Sendable, Hashable, Codable {
    /// The `format` every file carries.
    public static let formatName = "castctl-state"
    /// The version this castctl writes; it reads this one and older.
    public static let currentVersion = 1
    /// The largest file read (a queue of thousands of items with metadata fits easily).
    public static let maximumBytes = 32 * 1024 * 1024

    /// Always ``formatName``.
    public var format: String
    /// The version of the format.
    public var version: Int
    /// When it was saved.
    public var savedAt: Date
    /// The device it was saved from, as castctl described it.
    public var device: String
    /// What was saved.
    public var snapshot: DeviceSnapshot

    /// Creates a file's content.
    public init(snapshot: DeviceSnapshot, device: String, savedAt: Date = Date()) {
        format = Self.formatName
        version = Self.currentVersion
        self.savedAt = savedAt
        self.device = device
        self.snapshot = snapshot
    }

    private enum CodingKeys: String, CodingKey { case format, version, savedAt, device, appId, playback, volume, members }

    /// Decodes a file, refusing another format or a newer version.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(String.self, forKey: .format)
        guard format == Self.formatName else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "format is “\(format)”, not \(Self.formatName)")
        }
        version = try container.decode(Int.self, forKey: .version)
        guard (1...Self.currentVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container, debugDescription: "version \(version) (this castctl reads up to \(Self.currentVersion))")
        }
        savedAt = try container.decode(Date.self, forKey: .savedAt)
        device = try container.decodeIfPresent(String.self, forKey: .device) ?? ""
        snapshot = DeviceSnapshot(
            appId: try container.decodeIfPresent(String.self, forKey: .appId),
            playback: try container.decodeIfPresent(CastResumeState.self, forKey: .playback),
            volume: try container.decodeIfPresent(DeviceSnapshot.Volume.self, forKey: .volume),
            members: try container.decodeIfPresent([DeviceSnapshot.MemberVolume].self, forKey: .members) ?? [])
    }

    /// Encodes the file.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(version, forKey: .version)
        try container.encode(savedAt, forKey: .savedAt)
        try container.encode(device, forKey: .device)
        try container.encodeIfPresent(snapshot.appId, forKey: .appId)
        try container.encodeIfPresent(snapshot.playback, forKey: .playback)
        try container.encodeIfPresent(snapshot.volume, forKey: .volume)
        try container.encode(snapshot.members, forKey: .members)
    }

    /// The file's bytes: pretty-printed JSON with sorted keys and a final newline.
    public func encoded() throws(CastctlError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return try encoder.encode(self) + Data("\n".utf8)
        } catch {
            throw CastctlError(code: .malformedState, message: "cannot encode the state: \(error)")
        }
    }

    /// Decodes a file's bytes.
    /// - Parameter file: the file's name, for error messages.
    /// - Throws: ``CastctlError`` `.malformedState`.
    public init(decoding data: Data, file: String) throws(CastctlError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            self = try decoder.decode(Self.self, from: data)
        } catch let error as DecodingError {
            throw CastctlError(code: .malformedState, message: "not a castctl saved state: \(Self.describe(error))", file: file)
        } catch {
            throw CastctlError(code: .malformedState, message: "not a castctl saved state: \(error)", file: file)
        }
        guard snapshot.playback != nil else {
            throw CastctlError(code: .malformedState, message: "the saved state holds no playback", file: file)
        }
    }

    /// Writes the file atomically (`-` writes to standard output).
    public func write(to path: String) throws(CastctlError) {
        let data = try encoded()
        if path == "-" {
            FileHandle.standardOutput.write(data)
            return
        }
        try AtomicFile.write(data, to: path)
    }

    /// Reads a file (`-` reads standard input), at most ``maximumBytes``.
    public static func read(from path: String) throws(CastctlError) -> SavedStateFile {
        let name = path == "-" ? "standard input" : path
        guard let data = try BoundedFile.read(path == "-" ? "/dev/stdin" : path, limit: maximumBytes, what: "saved state") else {
            throw CastctlError(code: .unreadableFile, message: "no such file", file: name)
        }
        return try SavedStateFile(decoding: data, file: name)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            let what: String
            switch error {
            case .keyNotFound(let key, _): what = "\(key.stringValue) is missing"
            default: what = context.debugDescription
            }
            return path.isEmpty ? what : "\(path): \(what)"
        @unknown default:
            return "\(error)"
        }
    }
}
