import CastMedia
import Castor
import Foundation

/// How ``PlaybackDevice/listen(for:)`` ended.
public enum ListenOutcome: Equatable, Sendable {
    /// The time passed with the session up (possibly after a recovered loss).
    case listened
    /// Playback ended on its own (IDLE, FINISHED) before the time passed.
    case finished
    /// The command must fail with this exit status and message: 3 the device was lost and did not
    /// come back, 4 another sender took it over or the media was stopped there, 5 the receiver could
    /// not play the media, 1 reloading after a restart failed.
    case exit(Int32, String)
}

extension PlaybackDevice {
    /// Stays with the session for `duration`, telling a device that vanished from playback that
    /// ended: status lines (lost, reconnecting, reconnected, resumed) go to standard error, so
    /// standard output stays the command's result. Ends early when playback finishes or the
    /// session ends.
    /// - Parameter events: the session's events, subscribed to (``Cast/events``) before the play
    ///   started, so a loss during the play is heard too; a fresh subscription when `nil`.
    public func listen(for duration: Duration, events: AsyncStream<CastSessionEvent>? = nil) async -> ListenOutcome {
        await Listening.listen(for: duration, to: cast, events: events ?? cast.events)
    }
}

/// `audiocast play --listen`'s reading of the façade's session events.
public enum Listening {
    typealias Outcome = ListenOutcome
    /// The paragraph `play --help` shows.
    public static let help = """
        With --listen, a lost device is reconnected with back-off for --reconnect-timeout seconds (rejoined, or \
        relaunched and reloaded at the position extrapolated to the loss when it restarted). Exit status: 0 the \
        play (and listening) succeeded, or playback finished while listening; 1 the command failed; 3 the device was \
        lost and did not come back within --reconnect-timeout; 4 another sender took the device over, or the media \
        was stopped on the receiver; 5 the receiver could not play the media.
        """

    /// Listens for `duration` to the session of `cast`, following `events`.
    static func listen(for duration: Duration, to cast: Cast, events: AsyncStream<CastSessionEvent>) async -> Outcome {
        let baseline = cast.player?.mediaStatus?.mediaSessionId
        say(String(format: "playing; listening for %.0f s", seconds(duration)))
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do { try await Task.sleep(for: duration) } catch { return nil }
                return .listened
            }
            group.addTask {
                var baseline = baseline
                for await event in events {
                    if let outcome = handle(event, baseline: &baseline, player: cast.player) { return outcome }
                }
                return nil
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let outcome = next { return outcome }
            }
            return .listened
        }
    }

    /// What `event` means; `nil` to listen on.
    static func handle(_ event: CastSessionEvent, baseline: inout Int?, player: CastPlayer?) -> Outcome? {
        switch event {
        case .connectionLost(let error):
            say("connection lost: \(error.message)")
        case .reconnecting(let attempt, let delay):
            say(String(format: "reconnecting (attempt %d, next in %.1f s)", attempt, seconds(delay)))
        case .rejoined(let attempt):
            say("reconnected (attempt \(attempt))")
        case .resumed(let state):
            baseline = player?.mediaStatus?.mediaSessionId
            say(String(format: "the device restarted; reloaded the queue; resumed at %.1f s", state.options.time.map(seconds) ?? 0))
        case .resumeFailed(let error):
            return .exit(1, "the device restarted but reloading the media failed: \(error.message)")
        case .ended(let error):
            guard let error else { return .exit(4, "the session ended") }
            if error.code == .connectionLost { return .exit(3, "lost the device: \(error.message)") }
            return .exit(4, error.code == .sessionTakenOver ? error.message : "the session ended on the receiver: \(error.message)")
        case .mediaStatus(let status):
            guard let status, status.mediaSessionId >= (baseline ?? 0), status.playerState == .idle, let reason = status.idleReason
            else { break }
            switch reason {
            case .finished: return .finished
            case .error: return .exit(5, "the receiver could not play the media (IDLE, ERROR)")
            default: return .exit(4, "the media was stopped on the receiver or by another sender (IDLE, \(reason.rawValue))")
            }
        case .started, .receiverStatus:
            break
        }
        return nil
    }

    static func say(_ line: String) {
        FileHandle.standardError.write(Data("audiocast: \(line)\n".utf8))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
