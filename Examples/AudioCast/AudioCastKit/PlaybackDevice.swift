import CastDiscovery
import CastJSON
import CastEmulator
import Castor
import Foundation
import Logging

/// Where `audiocast` plays: an emulated receiver in this process (the default), a device at an
/// address, or a device found by name through mDNS — with a Castor session on it.
public final class PlaybackDevice: Sendable {
    /// The Castor façade, with a session on the device.
    public let cast: Cast
    /// The device.
    public let device: CastDevice
    /// The emulated receiver, when playing on the embedded one.
    public let embeddedReceiver: EmulatedReceiver?

    private init(cast: Cast, device: CastDevice, embeddedReceiver: EmulatedReceiver?) {
        self.cast = cast
        self.device = device
        self.embeddedReceiver = embeddedReceiver
    }

    /// A logger that reports only errors, so a command's output is its own.
    public static var quietLogger: Logger {
        var logger = Logger(label: "audiocast")
        logger.logLevel = .error
        return logger
    }

    /// Starts an emulated receiver (with the Default Media Receiver) on a loopback port and a
    /// session on it.
    public static func embedded(name: String = "AudioCast Speaker") async throws(AudioCastError) -> PlaybackDevice {
        let id = UUID()
        let receiver = EmulatedReceiver(
            configuration: EmulatedReceiverConfiguration(name: name, id: id, kind: .audio, host: "127.0.0.1", port: 0),
            logger: quietLogger)
        do {
            try await receiver.start()
        } catch {
            throw AudioCastError(code: .deviceUnavailable, message: "The embedded receiver could not start: \(error)", cause: error)
        }
        guard let port = await receiver.port else {
            throw AudioCastError(code: .deviceUnavailable, message: "The embedded receiver reported no port.")
        }
        let device = CastDevice(id: CastDeviceID(id), friendlyName: name,
                                endpoints: [KnownHost(host: "127.0.0.1", port: port).endpoint])
        do {
            // In-process on loopback: only a busy machine makes the handshake slow, so wait long.
            return try await connect(device, embeddedReceiver: receiver, keepPlaying: false, connectTimeout: .seconds(60))
        } catch {
            await receiver.stop()
            throw error
        }
    }

    /// A session on the device at `host`:`port`, reconnecting with back-off for `reconnectingFor`
    /// after the connection is lost (`nil`: never). Ending the session leaves the media playing.
    public static func host(_ host: String, port: Int = CastDevice.devicePort,
                            reconnectingFor timeout: Duration? = nil) async throws(AudioCastError) -> PlaybackDevice {
        let reconnect: CastReconnectPolicy = timeout.map { .within($0) } ?? .never
        let device = CastDevice(id: CastDeviceID(UUID()), friendlyName: host, endpoints: [KnownHost(host: host, port: port).endpoint])
        return try await connect(device, embeddedReceiver: nil, keepPlaying: true, reconnect: reconnect)
    }

    /// A session on the device whose friendly name or id is `name`, found through mDNS within
    /// `timeout`. The session keeps browsing, so a reconnect (with back-off for `reconnectingFor`
    /// after a loss; `nil`: never) finds the device again by its id when it came back at another address.
    public static func discovered(_ name: String, timeout: Duration = .seconds(5),
                                  reconnectingFor reconnectTimeout: Duration? = nil) async throws(AudioCastError) -> PlaybackDevice {
        let reconnect: CastReconnectPolicy = reconnectTimeout.map { .within($0) } ?? .never
        let report = await AvahiDeviceBrowser().discover(timeout: timeout)
        let wanted = try? CastDeviceID(parsing: name)
        guard let device = report.devices.first(where: {
            (wanted != nil && $0.id == wanted) || $0.friendlyName.caseInsensitiveCompare(name) == .orderedSame
        }) else {
            let why = report.diagnostics.map(\.explanation).joined(separator: "; ")
            throw AudioCastError(code: .deviceUnavailable, message: "No device named or with id “\(name)” found\(why.isEmpty ? "" : ": \(why)")")
        }
        return try await connect(device, embeddedReceiver: nil, keepPlaying: true, reconnect: reconnect, browser: AvahiDeviceBrowser())
    }

    private static func connect(
        _ device: CastDevice, embeddedReceiver: EmulatedReceiver?, keepPlaying: Bool, connectTimeout: Duration = .seconds(10),
        reconnect: CastReconnectPolicy = .never, browser: (any DeviceBrowser)? = nil
    ) async throws(AudioCastError) -> PlaybackDevice {
        let cast = Cast(configuration: CastConfiguration(reconnectPolicy: reconnect, stopsReceiverAppOnEnd: !keepPlaying),
                        browser: browser, connector: TLSDeviceConnector(connectTimeout: connectTimeout), logger: quietLogger)
        do {
            try await cast.startSession(with: device)
        } catch {
            throw AudioCastError(code: .deviceUnavailable, message: "Cannot start a session on \(device.friendlyName): \(error)", cause: error)
        }
        return PlaybackDevice(cast: cast, device: device, embeddedReceiver: embeddedReceiver)
    }

    /// The embedded receiver's own media status (`nil` for a real device or without media).
    public func receiverMediaStatus() async -> JSONValue? {
        await embeddedReceiver?.mediaStatus?.arrayValue?.first
    }

    /// Ends the session (a real device keeps playing) and stops the embedded receiver.
    public func close() async {
        await cast.endSession()
        if let embeddedReceiver { await embeddedReceiver.stop() }
    }
}
