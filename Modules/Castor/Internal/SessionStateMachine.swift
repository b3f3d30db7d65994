import CastChannels
import CastDiscoveryCore

/// A session's life with one device, without tasks, sockets or clocks: the app it carries, the
/// receiver's status, and, once the connection is lost, the reconnect round (the back-off, the
/// attempts, rejoining or relaunching the app, giving up).
///
/// Every input (``Event``) returns the ``Action``s to carry out, in order; ``SessionLink`` is the
/// shell that carries them out and feeds the outcomes back. Time comes in as elapsed time on the
/// session's clock with each event; the back-off's randomness comes from a seeded ``Jitter``.
///
/// `Connection` is what the shell connects with (a `CastConnection`; tests use plain values): the
/// machine hands it back in actions and never looks inside it.
struct SessionStateMachine<Connection: Sendable>: Sendable {
    typealias App = ReceiverStatus.Application

    /// Where the session is in its life.
    enum Phase: Sendable, Equatable {
        /// The session is being opened (connect, then join or launch): nothing to reconnect yet.
        case opening
        /// A connection carries the session's app.
        case attached
        /// The connection was lost: its channels are being told, before any attempt.
        case draining
        /// Waiting out the back-off before the attempt numbered `serial`.
        case backingOff(serial: Int)
        /// Attempt `serial` is connecting.
        case connecting(serial: Int)
        /// Attempt `serial` connected to a receiver that runs no app: launching it again.
        case launching(serial: Int)
        /// Attempt `serial` is adding the channels to its connection, to rejoin or relaunch.
        case attaching(serial: Int, Outcome)
        /// The session is over (``End``); every later event is ignored.
        case ended
    }

    /// What a successful attempt made of the session.
    enum Outcome: Sendable, Equatable {
        /// The app still ran: joined again.
        case rejoined
        /// The app an earlier attempt of this round launched runs: joined.
        case relaunched
        /// The receiver ran no app: this attempt launched it.
        case launched
    }

    /// An adopted connection the shell is settling.
    enum Pending: Sendable, Equatable {
        /// The session's first connection.
        case opened
        /// A reconnect round's attempt `attempt` succeeded.
        case reconnected(Outcome, attempt: Int)
    }

    /// One reconnect round: from the loss to a rejoin, a relaunch or giving up.
    struct Round: Sendable {
        /// The app the lost connection carried.
        var lostApp: App
        /// When no attempt may start any more (elapsed time), from the policy's timeout.
        var deadline: Duration?
        /// The attempts counted against the policy so far.
        var attempt = 0
        /// Attempts abandoned for a fresh announcement or the network coming back.
        var abandoned = 0
        /// The next attempt starts at once (the last was abandoned for a reason to try now).
        var retryNow = false
        /// The device refused the last attempt (its host is up, the receiver restarting).
        var lastRefused = false
        /// Attempts left that follow the last within ``SessionStateMachine/restartRetryDelay``:
        /// the network just came back, and a network comes up in stages.
        var settleRetries = 0
        /// The app an attempt of this round launched (which then failed to attach): it is ours.
        var launchedSessionId: String?
        /// Why the last attempt failed, for the final error.
        var lastError: CastError
    }

    /// The longest wait before the next attempt after the device refused the last one (a refusal
    /// means its host is up and the receiver restarting: it is back within seconds, and a refused
    /// connect costs nothing). Without it, the back-off could sleep seconds past the restart.
    static var restartRetryDelay: Duration { .seconds(1) }

    /// How many attempts after the network came back follow the one before within
    /// ``restartRetryDelay``, whatever the back-off: the first may fail while the network is still coming up.
    static var networkSettleRetries: Int { 5 }

    /// Attempts abandoned for a fresh announcement that do not count against the policy's attempts;
    /// past this many, each one counts (a device announcing itself over and over cannot keep the
    /// session reconnecting for ever; the policy's timeout bounds it in any case).
    static var abandonedRetriesMax: Int { 3 }

    // The stored state is written only by the machine's own inputs (its extensions, one file per
    // facet); the shell reads it.
    let policy: CastReconnectPolicy
    var phase = Phase.opening
    /// The device's newest record (``Event/relocated(_:)``).
    var device: CastDevice
    /// The device's record as discovery last listed it (`nil`: not listed).
    var discovered: CastDevice?
    /// The session's app: the one the current connection carries, or the lost one while reconnecting.
    var app: App?
    /// The receiver's latest status.
    var receiverStatus: ReceiverStatus?
    /// The connection the session took last (``adopt(_:app:status:)``).
    var connection: Connection?
    /// The reconnect round in progress.
    var round: Round?
    /// What the session made of the last adopted connection, published once the shell has settled it.
    var pending: Pending?
    var jitter: Jitter
    /// The serial of the last attempt started.
    var lastSerial = 0

    /// - Parameters:
    ///   - discovered: the device's record in discovery's list now (`nil`: not listed).
    ///   - seed: seeds the back-off's jitter.
    init(device: CastDevice, discovered: CastDevice?, policy: CastReconnectPolicy, seed: UInt64) {
        self.device = device
        self.discovered = discovered
        self.policy = policy
        jitter = Jitter(seed: seed)
    }

    var isEnded: Bool { phase == .ended }

    /// The attach of `connection` reached the point where the session takes it: from here on it is
    /// the session's connection, `app` its app. `false` when the session ended meanwhile (the
    /// connection is then not taken). The shell settles the connection, then sends ``Event/settled``.
    mutating func adopt(_ connection: Connection, app: App, status: ReceiverStatus?) -> Bool {
        switch phase {
        case .opening: pending = .opened
        case .attaching(_, let outcome): pending = .reconnected(outcome, attempt: round?.attempt ?? 0)
        default: return false
        }
        phase = .attached
        round = nil
        self.connection = connection
        self.app = app
        receiverStatus = status
        return true
    }

    /// Takes `event` at elapsed time `now`: the actions to carry out, in order.
    mutating func receive(_ event: Event, at now: Duration) -> [Action] {
        if case .close(let stopApp) = event { return close(stopApp: stopApp) }
        guard phase != .ended else {
            // A connection made for a session that is over is closed.
            return event.connection.map { [.closeConnection($0)] } ?? []
        }
        switch event {
        case .settled: return settled()
        case .statusSeen(let status): return statusSeen(status)
        case .appClosed(let transportId): return appClosed(transportId)
        case .close: return []
        case .relocated(let fresh): return relocated(fresh)
        case .connectionClosed(let error): return connectionClosed(error)
        case .channelsDrained: return channelsDrained(at: now)
        case .backOffElapsed(let serial): return backOffElapsed(serial)
        case .attemptFailed(let serial, let error): return attemptFailed(serial, error, refused: false, at: now)
        case .attemptRefused(let serial, let error): return attemptFailed(serial, error, refused: true, at: now)
        case .connected(let serial, let connection, let status): return connected(serial, connection, status)
        case .launched(let serial, let connection, let app): return launched(serial, connection, app)
        case .attachFailed(let serial, let connection, let error): return attachFailed(serial, connection, error, at: now)
        case .deviceListed(let record): return deviceListed(record, at: now)
        case .networkChanged(let change): return retrySignal(.networkReturned(change), at: now)
        }
    }

    /// Ends the session with `end`: the last actions of its life.
    mutating func end(_ end: End) -> [Action] {
        let reconnecting = round != nil
        phase = .ended
        round = nil
        pending = nil
        var actions: [Action] = []
        if reconnecting { actions += [.cancelBackOff, .cancelAttempt, .stopWatchingNetwork] }
        actions.append(.finish(end))
        return actions
    }

    /// A serial for the next attempt: unique in the session, so a stale outcome is told apart.
    mutating func nextSerial() -> Int {
        lastSerial += 1
        return lastSerial
    }

    mutating func nextRandom() -> Double { jitter.next() }
}
