public import CastMediaMetadata

/// How a ``CastMPRISPlayer`` presents a Cast session on the desktop.
public struct CastMPRISConfiguration: Sendable {
    /// The bus the player is published on.
    public enum Bus: Sendable, Hashable {
        /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`), where desktop
        /// media controls, `playerctl` and status bars look.
        case session
        /// A bus at an explicit D-Bus address, such as `unix:path=/run/user/1000/bus`.
        case address(String)
    }

    /// The bus to publish on; the session bus by default.
    public var bus: Bus
    /// The last element of the bus name `org.mpris.MediaPlayer2.castor.<instance>`; by default `d`
    /// followed by the first 8 hexadecimal digits of the device id (an element must not start with a
    /// digit). Only `A-Z a-z 0-9 _` are kept.
    public var instanceName: String?
    /// `Identity`, the name desktops show; the device's friendly name by default.
    public var identity: String?
    /// `DesktopEntry`: the basename of an installed `.desktop` file (icon and name in desktop
    /// controls), `nil` to leave it out. `castor` by default.
    public var desktopEntry: String?
    /// `CanControl`: whether desktop controls may control the device. When `false`, every `Can…`
    /// property is false, writing a property or calling a player method raises
    /// `org.freedesktop.DBus.Error.NotSupported`, and the player only shows what plays.
    public var allowsControl: Bool
    /// `CanQuit`: whether `Quit` ends the Cast session and stops the receiver app.
    public var allowsQuit: Bool
    /// Whether the `org.mpris.MediaPlayer2.TrackList` interface shows the receiver's queue.
    public var publishesTrackList: Bool
    /// The most queue items the track list shows, around the current one (the specification
    /// recommends a short list for context, not the whole queue).
    public var maxTracks: Int
    /// How `mpris:artUrl` is chosen among the metadata's images.
    public var imagePicker: any CastImagePicker
    /// The hints given to ``imagePicker`` (desktop controls draw art at about 256 px).
    public var imageHints: CastImageHints?
    /// The most method calls waiting or running at once; more are refused with
    /// `org.freedesktop.DBus.Error.LimitsExceeded`.
    public var maxPendingCalls: Int

    /// Creates a configuration; every parameter has a default.
    public init(bus: Bus = .session, instanceName: String? = nil, identity: String? = nil, desktopEntry: String? = "castor",
                allowsControl: Bool = true, allowsQuit: Bool = true, publishesTrackList: Bool = true, maxTracks: Int = 50,
                imagePicker: any CastImagePicker = ClosestSizeImagePicker(),
                imageHints: CastImageHints? = CastImageHints(type: .miniController, width: 256, height: 256),
                maxPendingCalls: Int = 64) {
        self.bus = bus
        self.instanceName = instanceName
        self.identity = identity
        self.desktopEntry = desktopEntry
        self.allowsControl = allowsControl
        self.allowsQuit = allowsQuit
        self.publishesTrackList = publishesTrackList
        self.maxTracks = max(0, maxTracks)
        self.imagePicker = imagePicker
        self.imageHints = imageHints
        self.maxPendingCalls = max(1, maxPendingCalls)
    }
}
