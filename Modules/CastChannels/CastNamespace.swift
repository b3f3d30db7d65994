internal import CastCore

/// The name of a Cast channel, such as `urn:x-cast:com.example.chat`.
///
/// Custom namespaces must start with `urn:x-cast:`. The `urn:x-cast:com.google.cast.` prefix
/// belongs to the platform: Castor's built-in channels use it through the static constants
/// below, and ``init(_:)`` refuses it.
public struct CastNamespace: Sendable, Hashable, CustomStringConvertible {
    /// The prefix every namespace starts with.
    public static let prefix = "urn:x-cast:"
    /// The prefix reserved for the platform's own namespaces.
    public static let reservedPrefix = "urn:x-cast:com.google.cast."
    /// The longest namespace accepted, in UTF-8 bytes.
    public static let maxLength = 128

    /// The namespace text.
    public let rawValue: String

    /// Validates a custom namespace.
    /// - Throws: ``CastChannelError`` `.invalidNamespace` when `raw` does not start with
    ///   `urn:x-cast:`, has nothing after it, is longer than ``maxLength``, contains whitespace or
    ///   control characters, or uses the reserved `urn:x-cast:com.google.cast.` prefix.
    public init(_ raw: String) throws(CastChannelError) {
        try Self.validate(raw)
        guard !raw.hasPrefix(Self.reservedPrefix) else {
            throw CastChannelError(code: .invalidNamespace, message: "'\(raw)' uses the reserved prefix \(Self.reservedPrefix)")
        }
        rawValue = raw
    }

    /// A built-in namespace; only Castor's own modules create these.
    package init(builtIn raw: String) {
        precondition(raw.hasPrefix(Self.reservedPrefix), "built-in namespaces use the reserved prefix")
        rawValue = raw
    }

    private static func validate(_ raw: String) throws(CastChannelError) {
        guard raw.hasPrefix(prefix), raw.utf8.count > prefix.utf8.count else {
            throw CastChannelError(code: .invalidNamespace, message: "'\(raw)' does not start with \(prefix) followed by a name")
        }
        guard raw.utf8.count <= maxLength else {
            throw CastChannelError(code: .invalidNamespace, message: "Namespace is \(raw.utf8.count) bytes; the limit is \(maxLength)")
        }
        guard !raw.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f }) else {
            throw CastChannelError(code: .invalidNamespace, message: "'\(raw)' contains whitespace or control characters")
        }
    }

    /// The namespace text.
    public var description: String { rawValue }

    /// Virtual connections: CONNECT and CLOSE.
    public static let connection = CastNamespace(builtIn: CastWireStrings.connection)
    /// Keep-alive PING and PONG.
    public static let heartbeat = CastNamespace(builtIn: CastWireStrings.heartbeat)
    /// Device authentication (binary payloads).
    public static let deviceAuth = CastNamespace(builtIn: CastWireStrings.deviceAuth)
    /// The platform: status, launching and stopping apps, device volume.
    public static let receiver = CastNamespace(builtIn: CastWireStrings.receiver)
    /// Media playback and queues.
    public static let media = CastNamespace(builtIn: CastWireStrings.media)
    /// Speaker groups.
    public static let multizone = CastNamespace(builtIn: CastWireStrings.multizone)
    /// Cast Streaming's session messages (OFFER, ANSWER) with the mirroring apps.
    public static let webrtc = CastNamespace(builtIn: "urn:x-cast:com.google.cast.webrtc")
    /// Cast Streaming's remoting RPC.
    public static let remoting = CastNamespace(builtIn: "urn:x-cast:com.google.cast.remoting")

    /// Whether this is a transport namespace (`urn:x-cast:com.google.cast.tp.`), which needs no virtual connection.
    public var isTransport: Bool { rawValue.hasPrefix("urn:x-cast:com.google.cast.tp.") }
}
