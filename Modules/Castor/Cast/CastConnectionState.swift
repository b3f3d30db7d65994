/// The state of the connection to the current device (replaces `GCKConnectionState`).
public enum CastConnectionState: Sendable, Hashable {
    /// No session.
    case disconnected
    /// Connecting, launching or joining the receiver app.
    case connecting
    /// The session is up.
    case connected
    /// The connection dropped; attempt `attempt` of the reconnect policy is under way.
    case reconnecting(attempt: Int)
    /// Ending the session.
    case disconnecting
}

/// What a program needs to rejoin a session later (for example after a restart): the device and
/// the receiver's session id. `Codable`, to be saved.
public struct CastSessionInfo: Sendable, Hashable, Codable {
    /// The device's id.
    public var deviceId: String
    /// The receiver app's session id.
    public var sessionId: String
    /// The receiver app's id.
    public var appId: String

    /// Creates session info.
    public init(deviceId: String, sessionId: String, appId: String) {
        self.deviceId = deviceId
        self.sessionId = sessionId
        self.appId = appId
    }
}
