public import CastChannels
import CastJSON
import Synchronization

/// The multizone namespace (`urn:x-cast:com.google.cast.multizone`): the members of a speaker
/// group and their volume. A platform-channel plugin built only on the public plugin API.
///
/// Add it to a connection to a group (or to any device: a single device reports no members).
/// It asks for the status as soon as it connects and follows DEVICE_ADDED, DEVICE_UPDATED and
/// DEVICE_REMOVED broadcasts.
/// ```swift
/// let multizone = CastMultizoneChannel()
/// try await connection.add(multizone)
/// let members = try await multizone.refresh()
/// try await multizone.setVolume(0.3, ofMember: members[0].id)   // when the receiver supports it
/// for await event in multizone.events { ... }
/// ```
///
/// Messages:
/// - `GET_STATUS` → `MULTIZONE_STATUS {status: {devices: [member], isMultichannel}}`;
/// - broadcasts `DEVICE_ADDED {device}`, `DEVICE_UPDATED {device}`, `DEVICE_REMOVED {deviceId}`;
/// - `SET_DEVICE_VOLUME {deviceId, volume: {level} | {muted}}` → `DEVICE_UPDATED` or `MULTIZONE_STATUS`,
///   or `INVALID_REQUEST` with reason `INVALID_COMMAND` on receivers that don't implement it
///   (reported as ``CastMultizoneError/Code/unsupported``).
public final class CastMultizoneChannel: CastChannelPlugin {
    /// The multizone namespace.
    public let namespace = CastNamespace.multizone
    /// A platform channel: it talks to `receiver-0`.
    public let endpoint = CastChannelEndpoint.platform
    /// The deadline of each request; `nil` uses the connection's request timeout.
    public let timeout: Duration?

    private let link = CastChannelLink(notConnectedMessage: "The multizone channel is not connected")
    private let model = Mutex(CastMultizoneState())
    private let broadcaster = CastBroadcaster<CastMultizoneEvent>()

    /// Creates the channel.
    /// - Parameter timeout: the deadline of each request (`nil`: the connection's request timeout).
    public init(timeout: Duration? = nil) {
        self.timeout = timeout
    }

    deinit {
        broadcaster.finish()
    }

    /// The group's members now (empty until the first status).
    public var members: [CastMultizoneMember] { model.withLock { $0.members } }

    /// Whether the channel is connected.
    public var isConnected: Bool { link.isConnected }

    /// Every change from now on; each call gives an independent sequence (bounded: a reader that
    /// stops reading keeps the newest `CastBroadcaster.defaultBufferLimit` (CastChannels) events).
    public var events: AsyncStream<CastMultizoneEvent> { broadcaster.subscribe() }

    // MARK: Commands

    /// Asks for the group's status (GET_STATUS) and returns its members.
    /// - Throws: ``CastMultizoneError``.
    @discardableResult
    public func refresh() async throws(CastMultizoneError) -> [CastMultizoneMember] {
        let reply = try await request(["type": "GET_STATUS"])
        guard reply.type == "MULTIZONE_STATUS" else {
            throw CastMultizoneError(code: .malformedMessage, message: "Expected MULTIZONE_STATUS, got \(reply.type ?? "no type")")
        }
        // The plugin also receives the reply; apply it here so the caller sees the members at once.
        if let json = reply.json { try apply(json) }
        return members
    }

    /// Sets a member's volume level (SET_DEVICE_VOLUME), clamped to 0...1.
    /// - Throws: ``CastMultizoneError`` `.unknownMember`, `.unsupported` (the receiver does not implement it), ...
    public func setVolume(_ level: Double, ofMember id: String) async throws(CastMultizoneError) {
        let clamped = level.isNaN ? 0 : min(1, max(0, level))
        try await setDeviceVolume(id: id, volume: ["level": .number(clamped)])
    }

    /// Mutes or unmutes a member (SET_DEVICE_VOLUME).
    /// - Throws: ``CastMultizoneError`` `.unknownMember`, `.unsupported`, ...
    public func setMuted(_ muted: Bool, ofMember id: String) async throws(CastMultizoneError) {
        try await setDeviceVolume(id: id, volume: ["muted": .bool(muted)])
    }

    private func setDeviceVolume(id: String, volume: JSONValue) async throws(CastMultizoneError) {
        guard members.contains(where: { $0.id == id }) else {
            throw CastMultizoneError(code: .unknownMember, message: "The group has no member \(id)")
        }
        let reply = try await request(["type": "SET_DEVICE_VOLUME", "deviceId": .string(id), "volume": volume])
        if let json = reply.json { try apply(json) }
    }

    private func request(_ json: JSONValue) async throws(CastMultizoneError) -> CastChannelMessage {
        let reply: CastChannelMessage
        do {
            reply = try await link.request(json, timeout: timeout)
        } catch where error.code == .notConnected {
            throw CastMultizoneError(code: .notConnected, message: error.message)
        } catch {
            throw CastMultizoneError(code: .channel, message: "\(json["type"]?.stringValue ?? "request"): \(error.message)", cause: error)
        }
        let reason = reply.json?["reason"]?.stringValue
        switch reply.type {
        case "INVALID_REQUEST" where reason == "INVALID_COMMAND":
            throw CastMultizoneError(code: .unsupported, message: "The receiver does not implement \(json["type"]?.stringValue ?? "this command")", reason: reason)
        case "INVALID_REQUEST", "ERROR":
            throw CastMultizoneError(code: .rejected, message: "The receiver rejected \(json["type"]?.stringValue ?? "the request")", reason: reason)
        default:
            return reply
        }
    }

    // MARK: Plugin

    /// Records the context and asks for the status.
    public func channelDidConnect(_ context: CastChannelContext) async {
        link.connect(context)
        _ = try? await refresh()
    }

    /// Forgets the context and the members.
    public func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        link.disconnect(reason: reason)
        let hadMembers = model.withLock { model in
            defer { model.reset() }
            return !model.members.isEmpty
        }
        if hadMembers { publish([.status([])]) }
    }

    /// Applies statuses and member broadcasts.
    public func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        guard let json = message.json else { return }
        try? apply(json)
    }

    private func apply(_ json: JSONValue) throws(CastMultizoneError) {
        let events = try model.withLock { model throws(CastMultizoneError) in
            var updated = model
            let events = try updated.apply(json)
            model = updated
            return events
        }
        publish(events)
    }

    private func publish(_ events: [CastMultizoneEvent]) {
        for event in events { broadcaster.yield(event) }
    }
}
