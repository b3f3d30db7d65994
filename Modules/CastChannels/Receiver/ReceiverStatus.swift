public import CastJSON

/// The platform's state, from a `RECEIVER_STATUS` message.
///
/// Decoding is tolerant the way real devices need: `applications` is absent on idle audio
/// devices, and unknown fields are kept in ``raw``.
public struct ReceiverStatus: Sendable, Hashable {
    /// A running receiver application.
    public struct Application: Sendable, Hashable {
        /// The app id, such as `CC1AD845` for the Default Media Receiver.
        public var appId: String
        /// The display name.
        public var displayName: String
        /// The app instance's session id (used by STOP).
        public var sessionId: String
        /// The app's endpoint id for virtual connections.
        public var transportId: String
        /// The namespaces the app speaks.
        public var namespaces: [String]
        /// The app's status text.
        public var statusText: String?
        /// Whether this is the idle screen (Backdrop) rather than a real app.
        public var isIdleScreen: Bool
        /// The app's icon URL, if any.
        public var iconUrl: String?
        /// The app type (`WEB`, `ANDROID_TV`, ...), if reported.
        public var appType: String?
        /// The universal app id, if reported.
        public var universalAppId: String?

        /// Creates an application description.
        public init(
            appId: String, displayName: String, sessionId: String, transportId: String, namespaces: [String],
            statusText: String? = nil, isIdleScreen: Bool = false, iconUrl: String? = nil, appType: String? = nil,
            universalAppId: String? = nil
        ) {
            self.appId = appId
            self.displayName = displayName
            self.sessionId = sessionId
            self.transportId = transportId
            self.namespaces = namespaces
            self.statusText = statusText
            self.isIdleScreen = isIdleScreen
            self.iconUrl = iconUrl
            self.appType = appType
            self.universalAppId = universalAppId
        }

        /// Whether the app lists `namespace`.
        public func supports(_ namespace: CastNamespace) -> Bool { namespaces.contains(namespace.rawValue) }
    }

    /// The device volume.
    public struct Volume: Sendable, Hashable {
        /// How the volume may be changed.
        public struct ControlType: RawRepresentable, Sendable, Hashable {
            /// The receiver's text.
            public var rawValue: String
            /// Creates a control type from the receiver's text (unknown values are kept).
            public init(rawValue: String) { self.rawValue = rawValue }
            /// Device attenuation.
            public static let attenuation = ControlType(rawValue: "attenuation")
            /// Master volume (speakers, TVs).
            public static let master = ControlType(rawValue: "master")
            /// The volume cannot be changed.
            public static let fixed = ControlType(rawValue: "fixed")
        }
        /// Level from 0 to 1.
        public var level: Double?
        /// Whether the device is muted.
        public var muted: Bool?
        /// How the volume may be changed.
        public var controlType: ControlType?
        /// The step a volume button moves by.
        public var stepInterval: Double?

        /// Creates a volume.
        public init(level: Double? = nil, muted: Bool? = nil, controlType: ControlType? = nil, stepInterval: Double? = nil) {
            self.level = level
            self.muted = muted
            self.controlType = controlType
            self.stepInterval = stepInterval
        }
    }

    /// The running applications (empty when idle on audio devices).
    public var applications: [Application]
    /// The device volume.
    public var volume: Volume
    /// Whether the device is the active input of its display, if reported.
    public var isActiveInput: Bool?
    /// Whether the display is in stand-by, if reported.
    public var isStandBy: Bool?
    /// The whole `status` object as received (parsed when first asked for, when the status was
    /// read from the message's bytes).
    public var raw: JSONValue {
        get { rawStatus.value }
        set { rawStatus = RawStatus(tree: newValue) }
    }
    private var rawStatus: RawStatus
    /// Whether ``raw`` is a tree already (for tests of the lazy parse).
    var rawIsParsed: Bool { rawStatus.isParsed }

    /// The first application that is not the idle screen.
    public var runningApp: Application? { applications.first { !$0.isIdleScreen } }

    /// The application with `appId`, if running.
    public func application(withId appId: String) -> Application? { applications.first { $0.appId == appId } }

    /// Decodes the `status` object of a RECEIVER_STATUS message.
    /// - Throws: ``CastChannelError`` `.malformedReply` when `status` is not an object or an
    ///   application lacks its ids.
    public init(status: JSONValue) throws(CastChannelError) {
        guard case .object = status else {
            throw CastChannelError(code: .malformedReply, message: "RECEIVER_STATUS has no status object", reply: status)
        }
        rawStatus = RawStatus(tree: status)
        var applications: [Application] = []
        for entry in status["applications"]?.arrayValue ?? [] {
            guard let appId = entry["appId"]?.stringValue, let transportId = entry["transportId"]?.stringValue else {
                throw CastChannelError(code: .malformedReply, message: "Application without appId or transportId", reply: status)
            }
            let namespaces = (entry["namespaces"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue ?? $0.stringValue }
            applications.append(
                Application(
                    appId: appId,
                    displayName: entry["displayName"]?.stringValue ?? appId,
                    sessionId: entry["sessionId"]?.stringValue ?? transportId,
                    transportId: transportId,
                    namespaces: namespaces,
                    statusText: entry["statusText"]?.stringValue,
                    isIdleScreen: entry["isIdleScreen"]?.boolValue ?? false,
                    iconUrl: entry["iconUrl"]?.stringValue,
                    appType: entry["appType"]?.stringValue,
                    universalAppId: entry["universalAppId"]?.stringValue))
        }
        self.applications = applications
        let volume = status["volume"]
        self.volume = Volume(
            level: volume?["level"]?.doubleValue,
            muted: volume?["muted"]?.boolValue,
            controlType: volume?["controlType"]?.stringValue.map(Volume.ControlType.init(rawValue:)),
            stepInterval: volume?["stepInterval"]?.doubleValue)
        isActiveInput = status["isActiveInput"]?.boolValue
        isStandBy = status["isStandBy"]?.boolValue
    }

    /// A status read from a message's bytes (see `ReceiverStatus+Reading.swift`), its `raw` parsed when first asked for.
    init(applications: [Application], volume: Volume, isActiveInput: Bool?, isStandBy: Bool?, messageText: String) {
        self.applications = applications
        self.volume = volume
        self.isActiveInput = isActiveInput
        self.isStandBy = isStandBy
        rawStatus = RawStatus(messageText: messageText)
    }

    /// Whether two statuses have the same fields and the same `raw` object.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.applications == rhs.applications && lhs.volume == rhs.volume && lhs.isActiveInput == rhs.isActiveInput
            && lhs.isStandBy == rhs.isStandBy && (lhs.rawStatus === rhs.rawStatus || lhs.raw == rhs.raw)
    }

    /// Hashes the decoded fields (equal statuses have equal fields).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(applications)
        hasher.combine(volume)
        hasher.combine(isActiveInput)
        hasher.combine(isStandBy)
    }

    /// Decodes a whole RECEIVER_STATUS message payload.
    public init(message: JSONValue) throws(CastChannelError) {
        guard let status = message["status"] else {
            throw CastChannelError(code: .malformedReply, message: "RECEIVER_STATUS without status", reply: message)
        }
        try self.init(status: status)
    }
}

/// Well-known receiver application ids.
public enum CastAppID {
    /// The Default Media Receiver.
    public static let defaultMediaReceiver = "CC1AD845"
    /// The Default Media Receiver as audio-only devices report it.
    public static let defaultMediaReceiverAudio = "705D30C6"
    /// The idle screen of video devices.
    public static let backdrop = "E8C28D3C"
}
