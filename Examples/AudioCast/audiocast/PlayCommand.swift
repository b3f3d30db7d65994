import ArgumentParser
import AudioCastKit
import CastIntents
import CastJSON
import Foundation

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play an episode or a show, the top suggestion, or a donated intent.",
        discussion: """
            Plays on an emulated receiver started in this process unless --host or --device is given; a real device \
            keeps playing after audiocast exits. Every play is donated with the show as group.

            \(Listening.help)
            """)
    @OptionGroup var options: LibraryOptions
    @Argument(help: "An episode id or title, or a show id or title.") var item: String?
    @Flag(help: "Play the top suggestion.") var suggested = false
    @Option(help: "Play a donated intent again (an id from `history`).") var intent: String?
    @Flag(help: "Shuffle the queue.") var shuffle = false
    @Option(help: "Repeat: none, one or all.") var `repeat`: String?
    @Flag(help: "Resume where you stopped.") var resume = false
    @Option(help: "Playback speed (0.5 to 2 on devices).") var speed: Double?
    @Option(help: "Seconds to stay and listen; the position reached is stored for --resume.") var listen: Double = 0
    @Option(help: "A Cast device's address (instead of the embedded receiver).") var host: String?
    @Option(help: "The device's Cast port (with --host).") var port: Int = 8009
    @Option(help: "A Cast device's friendly name or id, found through mDNS.") var device: String?
    @Option(help: "With --listen: seconds to keep reconnecting after the device is lost; 0 gives up at once.")
    var reconnectTimeout: Double = 60

    func validate() throws {
        guard [item != nil, suggested, intent != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of EPISODE, --suggested and --intent ID")
        }
        guard host == nil || device == nil else { throw ValidationError("Give at most one of --host and --device") }
        if let mode = `repeat`, !["none", "one", "all"].contains(mode) { throw ValidationError("--repeat is none, one or all") }
        guard listen >= 0, listen.isFinite else { throw ValidationError("--listen is a number of seconds") }
        guard reconnectTimeout >= 0, reconnectTimeout.isFinite else { throw ValidationError("--reconnect-timeout is a number of seconds") }
    }

    struct Result: Encodable {
        var outcome: PlayOutcome
        var device: String
        var receiver: JSONValue?
        var position: Double?
    }

    func run() async throws {
        try await Output.run {
            let library = try options.open()
            let target: PlayTarget = suggested ? .suggested : intent.map(PlayTarget.intent) ?? .item(item ?? "")
            let playOptions = PlayOptions(
                shuffle: shuffle ? true : nil, repeatMode: `repeat`.map(PlaybackRepeatMode.init(rawValue:)),
                resume: resume ? true : nil, speed: speed)
            let playback: PlaybackDevice
            let reconnect: Duration? = reconnectTimeout == 0 ? nil : .milliseconds(Int64(reconnectTimeout * 1000))
            if let host {
                playback = try await PlaybackDevice.host(host, port: port, reconnectingFor: reconnect)
            } else if let device {
                playback = try await PlaybackDevice.discovered(device, reconnectingFor: reconnect)
            } else {
                playback = try await PlaybackDevice.embedded()
            }
            do {
                let events = playback.cast.events  // from before the play, so no loss goes unheard
                let outcome = try await library.play(target, options: playOptions, on: playback.cast)
                let player = playback.cast.player
                if listen > 0, case .exit(let status, let message) = await playback.listen(for: .milliseconds(Int64(listen * 1000)), events: events) {
                    // Keep the position reached for --resume, as far as the sender knows it.
                    if let player { _ = try? library.recordPosition(from: player) }
                    await playback.close()
                    FileHandle.standardError.write(Data("audiocast: \(message)\n".utf8))
                    throw ExitCode(status)
                }
                var position: Double?
                if listen > 0, let player = playback.cast.player { position = try library.recordPosition(from: player)?.seconds }
                let receiver = await playback.receiverMediaStatus()
                await playback.close()
                let title = outcome.startEpisode ?? "the device's queue"
                var text = "Playing \(title) on \(playback.device.friendlyName) (\(outcome.code); queue of \(outcome.queue.count)"
                text += outcome.repeatMode.map { ", repeat \($0)" } ?? ""
                text += outcome.playbackSpeed.map { $0 == 1 ? "" : ", \($0)×" } ?? ""
                text += outcome.startSeconds.map { String(format: ", from %.0f s", $0) } ?? ""
                text += ")"
                if let donation = outcome.donation { text += "\nDonated \(donation)" }
                if !outcome.unavailable.isEmpty { text += "\nLeft out: \(outcome.unavailable.joined(separator: ", "))" }
                if let receiver { text += "\nReceiver: \(receiver["playerState"]?.stringValue ?? "?") \(receiver["media"]?["contentId"]?.stringValue ?? "")" }
                try options.print(Result(outcome: outcome, device: playback.device.friendlyName, receiver: receiver, position: position), text: text)
            } catch {
                await playback.close()
                throw error
            }
        }
    }
}
