/// Why discovery found nothing (or less than expected), with what to do about it.
///
/// Browsers report these as ``DeviceBrowserEvent/diagnostic(_:)`` events and keep the ones in
/// effect in ``DeviceBrowser/diagnostics``; ``DeviceBrowser/discover(timeout:clock:)``
/// gathers them into a ``DiscoveryReport``.
public struct DiscoveryDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        /// avahi-daemon is not running (its D-Bus name is not on the system bus).
        public static let avahiDaemonNotRunning = Code("avahi-daemon-not-running")
        /// The D-Bus system bus socket cannot be reached.
        public static let dbusUnreachable = Code("dbus-unreachable")
        /// avahi-daemon reported a failure (see the message).
        public static let avahiFailure = Code("avahi-failure")
        /// No interface is up with multicast enabled (only loopback, or everything down).
        public static let noMulticastInterface = Code("no-multicast-interface")
        /// The interface the browser was restricted to does not exist or is down.
        public static let interfaceUnavailable = Code("interface-unavailable")
        /// Nothing answered within the timeout.
        public static let noAnswer = Code("no-answer")
        /// A known host refused the connection on its Cast port.
        public static let hostRefused = Code("host-refused")
        /// A known host did not answer (timeout, unreachable network).
        public static let hostUnreachable = Code("host-unreachable")
        /// A known host answered but not like a Cast device (TLS or protocol failure).
        public static let probeFailed = Code("probe-failed")
        /// A service advertised a malformed TXT record; it was skipped.
        public static let malformedRecord = Code("malformed-record")
        /// A DIAL device answered with an unusable description; it was skipped.
        public static let malformedDescription = Code("malformed-description")
        /// The SSDP socket could not be opened or the search could not be sent.
        public static let ssdpFailure = Code("ssdp-failure")
        /// The name.
        public var description: String { rawValue }
        /// Encodes the name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        /// Decodes a name.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
    }

    /// The kind of problem.
    public var code: Code
    /// What happened, in a sentence.
    public var message: String
    /// The exact command or step that fixes it, when there is one.
    public var fix: String?
    /// What it is about: a host, a service name, an interface.
    public var subject: String?
    /// The browser that noticed it.
    public var source: DiscoverySource

    /// Creates a diagnostic.
    public init(code: Code, message: String, fix: String? = nil, subject: String? = nil, source: DiscoverySource) {
        self.code = code
        self.message = message
        self.fix = fix
        self.subject = subject
        self.source = source
    }

    /// The message followed by the fix: `avahi-daemon is not running. Fix: sudo systemctl start avahi-daemon`.
    public var explanation: String {
        guard let fix else { return message }
        return "\(message) Fix: \(fix)"
    }

    /// `[mdns] avahi-daemon-not-running: …`.
    public var description: String { "[\(source)] \(code): \(explanation)" }
}
