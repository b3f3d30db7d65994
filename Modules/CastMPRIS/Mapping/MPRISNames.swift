/// The names the MPRIS 2.2 specification and the D-Bus specification fix.
enum MPRISNames {
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let busNamePrefix = "org.mpris.MediaPlayer2."

    static let root = "org.mpris.MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let trackList = "org.mpris.MediaPlayer2.TrackList"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"

    /// "No track" (MPRIS 2.2): the current track when there is none, and never a valid argument.
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    /// Where this player's track ids live (players must not use paths under `/org/mpris`).
    static let trackPathPrefix = "/org/castor/Track/"
}

/// The D-Bus errors MPRIS calls for.
struct MPRISBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error name, e.g. `org.freedesktop.DBus.Error.InvalidArgs`.
    var name: String
    /// A human-readable explanation.
    var message: String

    var description: String { "\(name): \(message)" }

    static func invalidArgs(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message) }
    static func notSupported(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.NotSupported", message: message) }
    static func unknownMethod(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.UnknownMethod", message: message) }
    static func unknownInterface(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.UnknownInterface", message: message) }
    static func unknownProperty(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.UnknownProperty", message: message) }
    static func propertyReadOnly(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: message) }
    static func failed(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.Failed", message: message) }
    static func limitsExceeded(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message) }
    static func timeout(_ message: String) -> Self { Self(name: "org.freedesktop.DBus.Error.Timeout", message: message) }
}
