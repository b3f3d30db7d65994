public import CastCore

/// How a ``CastConnection`` behaves.
public struct CastConnectionConfiguration: Sendable {
    /// This sender's endpoint id (`sender-0`, as pychromecast uses).
    public var senderId: String
    /// The `userAgent` sent in CONNECT.
    public var userAgent: String
    /// The sender version reported in CONNECT's `senderInfo`.
    public var senderVersion: String
    /// How often to PING the receiver (Chrome: 5 s).
    public var heartbeatInterval: Duration
    /// How long the receiver may stay silent before it is declared dead (Chrome: 10 s).
    public var livenessTimeout: Duration
    /// The default deadline for an awaited request.
    public var requestTimeout: Duration
    /// The deadline for LAUNCH, which may take longer on real devices.
    public var launchTimeout: Duration
    /// Whether to check that the device is a genuine Cast device (device authentication), and
    /// what to do with the result: `.report` (default) exposes it and goes on, `.require` refuses
    /// an unverified device, `.off` skips the exchange.
    public var deviceAuthPolicy: CastDeviceAuthPolicy
    /// The roots a genuine device must chain to: the public Cast and Eureka roots by default.
    public var deviceAuthTrustStore: CastTrustStore
    /// How long to wait for the answer to the device-authentication challenge.
    public var deviceAuthTimeout: Duration
    /// How many received messages a channel plugin may have waiting, handed to it but not yet
    /// taken (its ``CastChannelPlugin/channel(_:didReceive:)`` has not returned for them). A plugin
    /// that falls this far behind has stopped reading: it is removed from the connection and told
    /// ``CastChannelDisconnectReason/overloaded``, so that it cannot hold the device's messages in
    /// memory without end.
    public var pluginBacklogLimit: Int

    /// Creates a configuration; every parameter has the recommended default.
    public init(
        senderId: String = "sender-0",
        userAgent: String = "Castor for Linux",
        senderVersion: String = "1.0",
        heartbeatInterval: Duration = .seconds(5),
        livenessTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(10),
        launchTimeout: Duration = .seconds(30),
        deviceAuthPolicy: CastDeviceAuthPolicy = .report,
        deviceAuthTrustStore: CastTrustStore = .cast,
        deviceAuthTimeout: Duration = .seconds(5),
        pluginBacklogLimit: Int = 1_000
    ) {
        self.senderId = senderId
        self.userAgent = userAgent
        self.senderVersion = senderVersion
        self.heartbeatInterval = heartbeatInterval
        self.livenessTimeout = livenessTimeout
        self.requestTimeout = requestTimeout
        self.launchTimeout = launchTimeout
        self.deviceAuthPolicy = deviceAuthPolicy
        self.deviceAuthTrustStore = deviceAuthTrustStore
        self.deviceAuthTimeout = deviceAuthTimeout
        self.pluginBacklogLimit = max(1, pluginBacklogLimit)
    }

    /// The defaults.
    public static let `default` = CastConnectionConfiguration()
}

/// Something that happened on a ``CastConnection``.
public enum CastConnectionEvent: Sendable {
    /// A RECEIVER_STATUS arrived (a reply or a broadcast).
    case receiverStatus(ReceiverStatus)
    /// An app's virtual connection closed (CLOSE from its transport, or it left the status).
    case appClosed(transportId: String)
    /// The device-authentication check finished (see ``CastConnectionConfiguration/deviceAuthPolicy``).
    case deviceAuthenticated(CastDeviceAuthStatus)
    /// The connection ended; `nil` when this side closed it.
    case closed(CastChannelError?)
}
