import CastMedia
import Castor

/// Decides when an announcement is over and what happens then: the waiting part of
/// `castctl announce` as a state machine that takes events and returns a verdict (no I/O).
///
/// Statuses of media sessions older than the announcement's (the replaced content going IDLE,
/// INTERRUPTED) are ignored; so are statuses that come before the announcement's session is known.
public struct AnnouncementWatch: Sendable, Hashable {
    /// What the watch hears.
    public enum Event: Sendable, Hashable {
        /// The receiver loaded the announcement: its media session.
        case loaded(mediaSessionId: Int)
        /// A media status (`nil`: no media session).
        case status(MediaStatus?)
        /// The wait's deadline passed.
        case deadlinePassed
        /// The user asked to stop (SIGINT, SIGTERM).
        case interrupted
        /// The Cast session ended (the app was stopped, another sender took the device, the device was lost).
        case sessionEnded(String)
    }

    /// How the announcement ended.
    public enum End: Sendable, Hashable {
        /// It played to its end.
        case finished
        /// The receiver could not play it (IDLE, ERROR).
        case failed
        /// A sender stopped it (IDLE, CANCELLED).
        case stopped
        /// Another load replaced it (IDLE, INTERRUPTED): someone else's media plays now.
        case replaced
        /// It played longer than the wait allows.
        case timedOut
        /// The user interrupted castctl.
        case interrupted
        /// The session ended under it.
        case sessionEnded(String)

        /// Whether what played before comes back: yes, unless someone else's media or app took the device.
        public var restoresPlayback: Bool {
            switch self {
            case .finished, .failed, .stopped, .timedOut, .interrupted: true
            case .replaced, .sessionEnded: false
            }
        }

        /// Whether the announcement is still playing and must be stopped first.
        public var stopsAnnouncement: Bool {
            switch self {
            case .timedOut, .interrupted: true
            default: false
            }
        }

        /// In words.
        public var description: String {
            switch self {
            case .finished: "the announcement finished"
            case .failed: "the receiver could not play the announcement (IDLE, ERROR)"
            case .stopped: "the announcement was stopped on the receiver (IDLE, CANCELLED)"
            case .replaced: "another sender's media replaced the announcement (IDLE, INTERRUPTED)"
            case .timedOut: "the announcement played past the wait limit"
            case .interrupted: "interrupted"
            case .sessionEnded(let why): "the session ended during the announcement: \(why)"
            }
        }
    }

    /// What the watch says after an event.
    public enum Verdict: Sendable, Hashable {
        /// Keep waiting.
        case waiting
        /// The announcement is over.
        case ended(End)
    }

    /// The announcement's media session, once known.
    public private(set) var mediaSessionId: Int?
    /// Whether a status of the announcement's session has been seen (before that, "no media
    /// session" is the old content's, from before the load).
    private var seenAnnouncement = false
    /// Statuses that came before the session was known, newest last (at most a few are kept).
    private var early: [MediaStatus] = []
    /// The end, once reached (later events change nothing).
    public private(set) var end: End?

    /// A watch that has not seen the announcement load yet.
    public init() {}

    /// Takes an event and says whether the announcement is over.
    public mutating func handle(_ event: Event) -> Verdict {
        if let end { return .ended(end) }
        let verdict: Verdict
        switch event {
        case .loaded(let id):
            mediaSessionId = id
            seenAnnouncement = early.contains { $0.mediaSessionId == id }
            // A very short clip may have ended before the load's reply was read.
            let ends = early.compactMap { judge($0) }
            verdict = ends.first.map(Verdict.ended) ?? .waiting
            early = []
        case .status(let status?):
            if mediaSessionId == nil {
                early.append(status)
                if early.count > 16 { early.removeFirst() }
                verdict = .waiting
            } else {
                if status.mediaSessionId == mediaSessionId { seenAnnouncement = true }
                verdict = judge(status).map(Verdict.ended) ?? .waiting
            }
        case .status(nil):
            // The announcement's media session is gone (the app closed it): nothing plays it any more.
            verdict = seenAnnouncement ? .ended(.stopped) : .waiting
        case .deadlinePassed: verdict = .ended(.timedOut)
        case .interrupted: verdict = .ended(.interrupted)
        case .sessionEnded(let why): verdict = .ended(.sessionEnded(why))
        }
        if case .ended(let reached) = verdict { end = reached }
        return verdict
    }

    private func judge(_ status: MediaStatus) -> End? {
        guard let id = mediaSessionId else { return nil }
        if status.mediaSessionId > id { return .replaced }  // a newer session: someone loaded over it
        guard status.mediaSessionId == id, status.playerState == .idle, let reason = status.idleReason else { return nil }
        switch reason {
        case .finished: return .finished
        case .error: return .failed
        case .cancelled: return .stopped
        case .interrupted: return .replaced
        default: return .stopped
        }
    }
}
