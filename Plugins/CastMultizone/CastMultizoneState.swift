public import CastJSON

/// A change of a group's members, published on ``CastMultizoneChannel/events``.
public enum CastMultizoneEvent: Sendable, Hashable {
    /// A full MULTIZONE_STATUS arrived; the complete member list.
    case status([CastMultizoneMember])
    /// A member joined the group (DEVICE_ADDED).
    case added(CastMultizoneMember)
    /// A member changed, typically its volume (DEVICE_UPDATED).
    case updated(CastMultizoneMember)
    /// A member left the group (DEVICE_REMOVED), by id.
    case removed(id: String)
}

/// The group's members as a pure state machine: feed it multizone messages, it keeps the
/// members in order and says what changed. ``CastMultizoneChannel`` drives it.
public struct CastMultizoneState: Sendable, Hashable {
    /// The members, in the order the receiver reported them (new members at the end).
    public private(set) var members: [CastMultizoneMember] = []
    /// Whether the group is multichannel (stereo pair), when reported.
    public private(set) var isMultichannel: Bool?
    /// Whether a MULTIZONE_STATUS was applied since the start or the last reset.
    public private(set) var hasStatus = false

    /// An empty state.
    public init() {}

    /// Applies one message of the multizone namespace.
    /// - Returns: the events it caused (none for messages that change nothing or are not multizone messages).
    /// - Throws: ``CastMultizoneError`` `.malformedMessage`; the state is unchanged then.
    public mutating func apply(_ json: JSONValue) throws(CastMultizoneError) -> [CastMultizoneEvent] {
        switch json["type"]?.stringValue {
        case "MULTIZONE_STATUS":
            guard let devices = json["status"]?["devices"]?.arrayValue else {
                throw CastMultizoneError(code: .malformedMessage, message: "MULTIZONE_STATUS without status.devices")
            }
            var parsed: [CastMultizoneMember] = []
            for device in devices { parsed.append(try CastMultizoneMember(json: device)) }
            let multichannel = json["status"]?["isMultichannel"]?.boolValue
            // The same status twice (a reply also delivered as a message) changes nothing.
            if hasStatus, parsed == members, multichannel == isMultichannel { return [] }
            members = parsed
            isMultichannel = multichannel
            hasStatus = true
            return [.status(parsed)]
        case "DEVICE_ADDED", "DEVICE_UPDATED":
            guard let device = json["device"] else {
                throw CastMultizoneError(code: .malformedMessage, message: "\(json["type"]?.stringValue ?? "") without device")
            }
            let member = try CastMultizoneMember(json: device)
            if let index = members.firstIndex(where: { $0.id == member.id }) {
                guard members[index] != member else { return [] }
                members[index] = member
                return [.updated(member)]
            }
            members.append(member)
            return [.added(member)]
        case "DEVICE_REMOVED":
            guard let id = json["deviceId"]?.stringValue ?? json["device"]?["deviceId"]?.stringValue else {
                throw CastMultizoneError(code: .malformedMessage, message: "DEVICE_REMOVED without deviceId")
            }
            guard let index = members.firstIndex(where: { $0.id == id }) else { return [] }
            members.remove(at: index)
            return [.removed(id: id)]
        default:
            return []
        }
    }

    /// Forgets every member (the channel disconnected).
    public mutating func reset() {
        members = []
        isMultichannel = nil
        hasStatus = false
    }
}
