import Synchronization

/// When a connection has been idle for too long (pure state machine).
///
/// While waiting for a request, the whole request head must arrive within the timeout: bytes trickling in
/// do not extend it (this defeats slow-header clients). While answering, every chunk the client accepts
/// counts as progress; a client that stops reading is cut off one timeout after the last progress.
struct IdleTimeoutState<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    enum Phase: Sendable, Equatable {
        case awaitingRequest(since: Instant)
        case responding(lastProgress: Instant)
    }

    let timeout: Duration
    private(set) var phase: Phase

    init(timeout: Duration, now: Instant) {
        self.timeout = timeout
        self.phase = .awaitingRequest(since: now)
    }

    mutating func requestReceived(at now: Instant) { phase = .responding(lastProgress: now) }
    mutating func progressed(at now: Instant) { phase = .responding(lastProgress: now) }
    mutating func responseFinished(at now: Instant) { phase = .awaitingRequest(since: now) }

    /// The instant at which the connection is to be closed if nothing happens.
    var deadline: Instant {
        switch phase {
        case .awaitingRequest(let since): since.advanced(by: timeout)
        case .responding(let lastProgress): lastProgress.advanced(by: timeout)
        }
    }

    func isExpired(at now: Instant) -> Bool { now >= deadline }
}

/// Receives a connection's activity from the channel handler.
protocol ConnectionActivity: Sendable {
    func requestReceived()
    func progressed()
    func responseFinished()
}

/// Sleeps on the injected clock until the connection's deadline and closes it when the deadline has passed.
final class IdleWatchdog<C: Clock>: ConnectionActivity where C.Duration == Duration {
    private let clock: C
    private let state: Mutex<IdleTimeoutState<C.Instant>>

    init(clock: C, timeout: Duration) {
        self.clock = clock
        self.state = Mutex(IdleTimeoutState(timeout: timeout, now: clock.now))
    }

    func requestReceived() { let now = clock.now; state.withLock { $0.requestReceived(at: now) } }
    func progressed() { let now = clock.now; state.withLock { $0.progressed(at: now) } }
    func responseFinished() { let now = clock.now; state.withLock { $0.responseFinished(at: now) } }

    /// Runs until the deadline passes (then calls `expire`) or the task is cancelled.
    func run(expire: @Sendable () -> Void) async {
        while !Task.isCancelled {
            let deadline = state.withLock { $0.deadline }
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            let now = clock.now
            if state.withLock({ $0.isExpired(at: now) }) {
                expire()
                return
            }
        }
    }
}

/// Starts a watchdog for a channel, opening the `any Clock` existential.
func startWatchdog<C: Clock>(clock: C, timeout: Duration, expire: @escaping @Sendable () -> Void)
    -> (activity: any ConnectionActivity, task: Task<Void, Never>) where C.Duration == Duration {
    let watchdog = IdleWatchdog(clock: clock, timeout: timeout)
    let task = Task { await watchdog.run(expire: expire) }
    return (watchdog, task)
}
