import CastDeviceProfiles
import CastTLS
import Foundation

/// Everything that describes an emulated Cast device and how strict and fast it is.
public struct EmulatedReceiverConfiguration: Sendable {
    /// The friendly name (`fn` in the TXT record, "Living Room TV").
    public var name: String
    /// The model name (`md`, "Chromecast"): by default the ``profile``'s model, or for the
    /// `CastDeviceProfile.any` profile one by device kind.
    public var model: String
    /// The device id (`id`, 32 hex digits on the wire).
    public var id: UUID
    /// Video device, audio device or group.
    public var kind: EmulatedReceiverDeviceKind
    /// The address to listen on; loopback by default.
    public var host: String
    /// The TCP port; 0 picks a free port (read it back from ``EmulatedReceiver/port``).
    public var port: Int
    /// The clock every timer runs on (heartbeat, playback, reply latency).
    public var clock: any Clock<Duration>
    /// How long the receiver waits before writing each reply, like a device on a LAN.
    ///
    /// Some senders (pychromecast) write to their TLS socket from two threads; an answer that
    /// arrives within microseconds can race their second write. A few milliseconds avoids that.
    public var replyLatency: Duration
    /// Heartbeat timings.
    public var heartbeat: EmulatedReceiverHeartbeat
    /// Content the device fails to play: LOAD of a matching URL (`contentUrl`, else `contentId`)
    /// fails with `LOAD_FAILED` and `detailedErrorCode` 104 (MEDIA_SRC_NOT_SUPPORTED).
    public var isBrokenContent: @Sendable (String) -> Bool
    /// Custom apps senders can launch, besides the built-in ones.
    public var apps: [EmulatedReceiverApp]
    /// The device volume at start, 0…1.
    public var volumeLevel: Double
    /// How the device volume is controlled.
    public var volumeControl: EmulatedReceiverVolumeControl
    /// The seed of the queue shuffler; `nil` for a random seed.
    public var shuffleSeed: UInt64?
    /// The Cast protocol version advertised as `ve`.
    public var protocolVersion: Int
    /// The TLS certificate the device presents; `nil` generates a fresh self-signed one at ``EmulatedReceiver/start()``.
    public var tlsCredentials: TLSCredentials?
    /// The device-authentication credentials (a certificate chain to a Cast root, test or real) the
    /// device answers challenges with; `nil` answers every challenge with an AuthError, like a device
    /// whose signing failed. Build them with `CastDeviceCredentials.generate(deviceID:)`.
    public var deviceCredentials: CastDeviceCredentials?
    /// Whether and how the device fetches the media and text tracks senders load, to prove their URLs
    /// work (see ``EmulatedReceiverMediaFetching``); `nil`, the default, fetches nothing.
    public var mediaFetching: EmulatedReceiverMediaFetching?
    /// What the device decodes, as a model of Cast device does (see `CastDeviceProfile`): with
    /// ``mediaFetching`` on, the receiver reads the codecs, profile, level and size of what it is
    /// asked to load and fails a LOAD of what this model cannot play, like the model. The default,
    /// `CastDeviceProfile.any`, plays anything (and reads no codecs).
    public var profile: CastDeviceProfile
    /// Whether the device's HDMI sink decodes the audio the profile only passes through (AC-3,
    /// E-AC-3): a TV or receiver that takes Dolby. Off by default, like most TVs' speakers.
    public var hdmiPassthrough: Bool
    /// How long BUFFERED media plays when neither the sender (`media.duration`) nor, with
    /// ``mediaFetching`` on, the fetched bytes tell its duration; `nil`, the default, lets such media
    /// play until a sender stops it. The `cast-receiver` program uses 600 seconds.
    public var defaultMediaDuration: Duration?
    /// Whether and where the device serves `/setup/eureka_info` (see ``EmulatedReceiverEureka``); `nil`,
    /// the default, serves nothing. The `cast-receiver` program serves it on 8008 and 8443.
    public var eureka: EmulatedReceiverEureka?
    /// What one sender may cost the device: the deadline from accept to a finished TLS handshake
    /// (10 s), the bytes queued for a sender that does not read its replies before reading from it
    /// stops (1 MiB) and how long it may stay so before it is dropped (10 s), the accept back-off
    /// when descriptors run out and the descriptors accepting leaves free (16). Deadlines run on ``clock``.
    public var connectionLimits: CastTransportServer.Limits
    /// How the device takes Cast Streaming (screen and audio mirroring): codecs, limits, where to record.
    /// By default what the ``profile`` decodes (``EmulatedReceiverMirroring/init(profile:)``); a device
    /// without video output mirrors sound alone.
    public var mirroring: EmulatedReceiverMirroring

    /// Creates a configuration; every parameter has a realistic default.
    public init(
        name: String = "Castor Receiver", model: String? = nil, id: UUID = UUID(),
        kind: EmulatedReceiverDeviceKind = .video, host: String = "127.0.0.1", port: Int = 0,
        clock: any Clock<Duration> = ContinuousClock(), replyLatency: Duration = .milliseconds(5),
        heartbeat: EmulatedReceiverHeartbeat = EmulatedReceiverHeartbeat(),
        isBrokenContent: @escaping @Sendable (String) -> Bool = { _ in false },
        apps: [EmulatedReceiverApp] = [], volumeLevel: Double = 0.5,
        volumeControl: EmulatedReceiverVolumeControl = .attenuation, shuffleSeed: UInt64? = nil,
        protocolVersion: Int = 5, tlsCredentials: TLSCredentials? = nil,
        deviceCredentials: CastDeviceCredentials? = nil, mediaFetching: EmulatedReceiverMediaFetching? = nil,
        profile: CastDeviceProfile = .any, hdmiPassthrough: Bool = false,
        defaultMediaDuration: Duration? = nil, eureka: EmulatedReceiverEureka? = nil,
        connectionLimits: CastTransportServer.Limits = CastTransportServer.Limits(),
        mirroring: EmulatedReceiverMirroring? = nil
    ) {
        // A profile without video output (a speaker) makes a video device audio-only.
        let kind = !profile.hasVideoOutput && kind.hasVideoOutput ? EmulatedReceiverDeviceKind.audio : kind
        self.name = name
        if let model {
            self.model = model
        } else if !profile.acceptsEverything, !kind.isGroup {
            self.model = profile.model
        } else {
            self.model = kind.isGroup ? "Google Cast Group" : kind.hasVideoOutput ? "Chromecast" : "Chromecast Audio"
        }
        self.id = id
        self.kind = kind
        self.profile = profile
        self.hdmiPassthrough = hdmiPassthrough
        self.host = host
        self.port = port
        self.clock = clock
        self.replyLatency = replyLatency
        self.heartbeat = heartbeat
        self.isBrokenContent = isBrokenContent
        self.apps = apps
        self.volumeLevel = volumeLevel
        self.volumeControl = volumeControl
        self.shuffleSeed = shuffleSeed
        self.protocolVersion = protocolVersion
        self.tlsCredentials = tlsCredentials
        self.deviceCredentials = deviceCredentials
        self.mediaFetching = mediaFetching
        self.defaultMediaDuration = defaultMediaDuration
        self.eureka = eureka
        self.connectionLimits = connectionLimits
        var mirroring = mirroring ?? EmulatedReceiverMirroring(profile: profile)
        if !kind.hasVideoOutput { mirroring.videoCodecs = [] }
        self.mirroring = mirroring
    }
}

/// The receiver's side of the heartbeat.
public struct EmulatedReceiverHeartbeat: Sendable, Hashable {
    /// How often the receiver PINGs each sender (from `Tr@n$p0rt-0`).
    public var pingInterval: Duration
    /// How long a socket may stay silent (no inbound message at all) before it is dropped.
    public var silenceTimeout: Duration

    /// Real-device timings: PING every 5 s, drop after 20 s of silence.
    public init(pingInterval: Duration = .seconds(5), silenceTimeout: Duration = .seconds(20)) {
        self.pingInterval = pingInterval
        self.silenceTimeout = silenceTimeout
    }
}
