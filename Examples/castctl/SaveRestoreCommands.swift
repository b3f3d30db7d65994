import ArgumentParser
import CastChannels
import CastDiscoveryCore
import CastJSON
import CastMedia
import CastctlKit
import Castor
import Foundation

extension DeviceOptions {
    /// These options with a name or id found once through discovery, so the steps of one command
    /// (a look at the receiver, a session, the media server) do not each browse again.
    func resolvedToAddress() async throws -> DeviceOptions {
        let choice = try choice()
        if case .address = choice.reference { return self }
        var resolved = self
        (resolved.host, resolved.port) = try await target()
        resolved.device = nil
        return resolved
    }

    /// The receiver's status, read on a connection of its own (nothing is launched or joined).
    func receiverStatus() async throws -> ReceiverStatus {
        try await withConnection { _, status in status }
    }

    /// The façade for a command that ends when its work is done (no reconnecting).
    func oneShotFaçade() async throws -> (Castor.Cast, CastDevice) {
        try await façade(reconnect: try ReconnectOptions.parse(["--reconnect-timeout", "0"]))
    }

    /// The device's name for messages and saved files.
    var deviceDescription: String {
        (try? choice().reference.description) ?? host ?? device ?? "the device"
    }
}

/// `castctl save FILE`.
struct Save: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save what the device plays to FILE: queue, item, position, rate, repeat, tracks and volume.",
        discussion: """
            Joins the media session that runs (launching nothing) and writes a JSON file (- for standard output) \
            that `castctl restore` plays again, here or on another device. Writing is atomic: the old FILE stays \
            whole if anything fails. Fails (status 1, FILE untouched) when nothing plays or is paused.
            """)
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The file to write (- for standard output).") var file: String

    func run() async throws {
        try await Output.run {
            let options = try await device.resolvedToAddress()
            let status = try await options.receiverStatus()
            guard let app = CastctlSessions.mediaApp(in: status) else {
                throw CastctlError(code: .nothingPlaying, message: "nothing plays on \(options.deviceDescription) (no media app runs); \(file) was not written")
            }
            let (cast, target) = try await options.oneShotFaçade()
            try await CastctlSessions.join(cast, device: target, app: app, timeout: options.requestTimeout, clock: ContinuousClock())
            let snapshot = await CastctlSessions.capture(cast)
            await cast.endSession(stoppingReceiverApp: false)
            guard snapshot.playback != nil else {
                throw CastctlError(code: .nothingPlaying, message: "nothing plays on \(options.deviceDescription) (\(app.displayName) is idle); \(file) was not written")
            }
            let saved = SavedStateFile(snapshot: snapshot, device: options.deviceDescription)
            try saved.write(to: file)
            guard file != "-" else { return }
            let value: JSONValue = ["file": .string(file), "saved": (try? JSONValue(encoding: saved)) ?? .null]
            Output.print(value, text: "saved \(snapshot.summary) to \(file)", json: device.json)
        }
    }
}

/// `castctl restore FILE`.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play what `castctl save` wrote, on the same or another device (--device OTHER).",
        discussion: """
            Launches the app it played in (or joins it), sets the volume back (unless --keep-volume), and loads the \
            queue at the saved item and position with its rate, repeat mode and tracks, playing or paused as it was. \
            A group's member volumes come back when restoring to the same group.
            """)
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The file `castctl save` wrote (- for standard input).") var file: String
    @Flag(help: "Leave the device's volume as it is.") var keepVolume = false

    func run() async throws {
        try await Output.run {
            let saved = try SavedStateFile.read(from: file)
            guard let playback = saved.snapshot.playback else { return }
            let options = try await device.resolvedToAddress()
            let (cast, target) = try await options.oneShotFaçade()
            do {
                try await CastctlSessions.start(cast, device: target, appId: saved.snapshot.appId ?? CastAppID.defaultMediaReceiver)
                if !keepVolume { try await CastctlSessions.restoreVolume(saved.snapshot, on: cast) }
                try await CastctlSessions.restorePlayback(playback, appId: saved.snapshot.appId, on: cast, device: target)
            } catch {
                await cast.endSession(stoppingReceiverApp: false)
                throw error
            }
            let status = cast.player?.mediaStatus
            await cast.endSession(stoppingReceiverApp: false)
            Output.print(status, json: device.json)
        }
    }
}
