public import CastJSON

/// One speaker of a multizone (speaker group) device, as the multizone namespace reports it.
///
/// Wire shape (`MULTIZONE_STATUS.status.devices[]`, `DEVICE_ADDED.device`, `DEVICE_UPDATED.device`):
/// `{"deviceId": "…", "name": "Kitchen", "capabilities": 4, "volume": {"level": 0.5, "muted": false}}`.
public struct CastMultizoneMember: Sendable, Hashable, Identifiable {
    /// The member's device id (`deviceId`).
    public var id: String
    /// The member's friendly name.
    public var name: String
    /// The member's capability bitmask (`capabilities`), if reported.
    public var capabilities: Int?
    /// The member's volume level in 0...1, if reported.
    public var volumeLevel: Double?
    /// Whether the member is muted, if reported.
    public var isMuted: Bool?

    /// Creates a member.
    public init(id: String, name: String, capabilities: Int? = nil, volumeLevel: Double? = nil, isMuted: Bool? = nil) {
        self.id = id
        self.name = name
        self.capabilities = capabilities
        self.volumeLevel = volumeLevel
        self.isMuted = isMuted
    }

    /// Reads a member from its JSON object.
    /// - Throws: ``CastMultizoneError`` `.malformedMessage` when `deviceId` is missing or not a string.
    public init(json: JSONValue) throws(CastMultizoneError) {
        guard let id = json["deviceId"]?.stringValue, !id.isEmpty else {
            throw CastMultizoneError(code: .malformedMessage, message: "A multizone device has no deviceId: \(json.serialized())")
        }
        self.id = id
        name = json["name"]?.stringValue ?? ""
        capabilities = json["capabilities"]?.intValue
        let level = json["volume"]?["level"]?.doubleValue
        volumeLevel = level.map { min(1, max(0, $0)) }
        isMuted = json["volume"]?["muted"]?.boolValue
    }
}
