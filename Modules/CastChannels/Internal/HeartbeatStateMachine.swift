/// The sender's keep-alive rule, without I/O: PING every `interval`; the peer is dead once
/// nothing at all has arrived for `liveness` (Chrome: 5 s and 10 s). Any inbound message
/// counts as a sign of life, as in Chrome.
package struct HeartbeatStateMachine: Sendable {
    /// What to do at a tick.
    package enum Action: Sendable, Equatable {
        /// Send a PING.
        case sendPing
        /// Give up: the peer has been silent for `silence`.
        case declareDead(silence: Duration)
    }

    package let interval: Duration
    package let liveness: Duration
    private var lastInbound: Duration

    /// Starts the machine at `now` (elapsed time).
    package init(interval: Duration, liveness: Duration, now: Duration) {
        self.interval = interval
        self.liveness = liveness
        lastInbound = now
    }

    /// Something arrived at `now`.
    package mutating func received(at now: Duration) {
        if now > lastInbound { lastInbound = now }
    }

    /// The timer fired at `now`.
    package func tick(at now: Duration) -> Action {
        let silence = now - lastInbound
        return silence >= liveness ? .declareDead(silence: silence) : .sendPing
    }

    /// How long to wait before the next tick: the ping interval, or less if death is due sooner.
    package func delayUntilNextTick(at now: Duration) -> Duration {
        let untilDeath = liveness - (now - lastInbound)
        return max(.zero, min(interval, untilDeath))
    }
}
