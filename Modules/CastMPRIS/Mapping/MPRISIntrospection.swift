/// The introspection data of `/org/mpris/MediaPlayer2`: the three MPRIS interfaces as the MPRIS 2.2
/// specification defines them (the optional `Fullscreen`/`CanSetFullscreen` are not implemented), plus
/// the standard Properties, Introspectable and Peer interfaces.
enum MPRISIntrospection {
    static func xml(hasTrackList: Bool) -> String {
        var interfaces = [standard, root, player]
        if hasTrackList { interfaces.append(trackList) }
        return """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>
            \(interfaces.joined(separator: "\n"))
            </node>

            """
    }

    private static let standard = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>
        """

    private static let root = """
          <interface name="org.mpris.MediaPlayer2">
            <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="DesktopEntry" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
        """

    private static let player = """
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek">
              <arg name="Offset" type="x" direction="in"/>
            </method>
            <method name="SetPosition">
              <arg name="TrackId" type="o" direction="in"/>
              <arg name="Position" type="x" direction="in"/>
            </method>
            <method name="OpenUri">
              <arg name="Uri" type="s" direction="in"/>
            </method>
            <signal name="Seeked">
              <arg name="Position" type="x"/>
            </signal>
            <property name="PlaybackStatus" type="s" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="LoopStatus" type="s" access="readwrite">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="Rate" type="d" access="readwrite">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="Shuffle" type="b" access="readwrite">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="Metadata" type="a{sv}" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="Volume" type="d" access="readwrite">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="Position" type="x" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
            </property>
            <property name="MinimumRate" type="d" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="MaximumRate" type="d" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="CanGoNext" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="CanGoPrevious" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="CanPlay" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="CanPause" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="CanSeek" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
            <property name="CanControl" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
            </property>
          </interface>
        """

    private static let trackList = """
          <interface name="org.mpris.MediaPlayer2.TrackList">
            <method name="GetTracksMetadata">
              <arg name="TrackIds" type="ao" direction="in"/>
              <arg name="Metadata" type="aa{sv}" direction="out"/>
            </method>
            <method name="AddTrack">
              <arg name="Uri" type="s" direction="in"/>
              <arg name="AfterTrack" type="o" direction="in"/>
              <arg name="SetAsCurrent" type="b" direction="in"/>
            </method>
            <method name="RemoveTrack">
              <arg name="TrackId" type="o" direction="in"/>
            </method>
            <method name="GoTo">
              <arg name="TrackId" type="o" direction="in"/>
            </method>
            <signal name="TrackListReplaced">
              <arg name="Tracks" type="ao"/>
              <arg name="CurrentTrack" type="o"/>
            </signal>
            <signal name="TrackAdded">
              <arg name="Metadata" type="a{sv}"/>
              <arg name="AfterTrack" type="o"/>
            </signal>
            <signal name="TrackRemoved">
              <arg name="TrackId" type="o"/>
            </signal>
            <signal name="TrackMetadataChanged">
              <arg name="TrackId" type="o"/>
              <arg name="Metadata" type="a{sv}"/>
            </signal>
            <property name="Tracks" type="ao" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="invalidates"/>
            </property>
            <property name="CanEditTracks" type="b" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>
            </property>
          </interface>
        """
}
