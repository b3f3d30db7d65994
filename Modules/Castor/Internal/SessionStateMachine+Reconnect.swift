import CastChannels
import CastDiscoveryCore

/// The reconnect round: from the loss, a back-off and an attempt at a time under the policy, until
/// the app is rejoined or relaunched, another sender is found on the device, or the policy gives up.
extension SessionStateMachine {
    /// The connection ended. Lost with the app attached: the channels are told first, then the round starts.
    mutating func connectionClosed(_ error: CastError?) -> [Action] {
        guard let error, phase == .attached else { return [] }
        guard let app else { return end(.lost(CastError(code: .connectionLost, message: "Connection lost"))) }
        phase = .draining
        round = Round(lostApp: app, lastError: CastError(code: .connectionLost, message: "The connection to \(device.friendlyName) was lost"))
        // The log line names what the connection reported: the error's cause.
        let reported = error.cause.map { "\($0)" } ?? error.message
        return [.log("Connection to \(device.friendlyName) lost: \(reported)"), .publish(.lost(error)), .drainChannels]
    }

    /// The channels heard of the loss: the policy's time starts, and the network is watched.
    mutating func channelsDrained(at now: Duration) -> [Action] {
        guard phase == .draining else { return [] }
        let deadline = policy.timeout.map { now + $0 }
        round?.deadline = deadline
        // The watch starts before any wait is announced, so the network coming back right after is not missed.
        return [.watchNetwork] + nextAttempt(at: now)
    }

    /// Schedules the next attempt under the policy (its delay cut short after a refusal, while the
    /// network settles, or to nothing after an abandoned attempt), or gives up.
    mutating func nextAttempt(at now: Duration) -> [Action] {
        guard var round else { return [] }
        guard round.attempt < policy.maxAttempts else { return giveUp() }
        var delay = policy.delay(beforeAttempt: round.attempt + 1, random: nextRandom())
        if let deadline = round.deadline {
            let left = deadline - now
            guard left > .zero else { return giveUp() }
            delay = min(delay, left)
        }
        round.attempt += 1
        if round.retryNow { delay = .zero }
        // The device refused the last attempt: its host is up and the receiver is restarting.
        if round.lastRefused { delay = min(delay, Self.restartRetryDelay) }
        if round.settleRetries > 0 {
            round.settleRetries -= 1
            delay = min(delay, Self.restartRetryDelay)
        }
        let serial = nextSerial()
        var actions: [Action] = [.publish(.state(.reconnecting(attempt: round.attempt))),
                                 .publish(.reconnecting(attempt: round.attempt, delay: delay))]
        if round.retryNow {
            round.retryNow = false
            phase = .connecting(serial: serial)
            actions.append(.connect(serial: serial))
        } else {
            phase = .backingOff(serial: serial)
            actions.append(.backOff(serial: serial, delay))
        }
        self.round = round
        return actions
    }

    /// The back-off elapsed: the attempt starts.
    mutating func backOffElapsed(_ serial: Int) -> [Action] {
        guard phase == .backingOff(serial: serial) else { return [] }
        phase = .connecting(serial: serial)
        return [.connect(serial: serial)]
    }

    /// The attempt could not connect: the next one, or giving up.
    mutating func attemptFailed(_ serial: Int, _ error: CastError, refused: Bool, at now: Duration) -> [Action] {
        guard phase == .connecting(serial: serial) else { return [] }
        round?.lastError = error
        round?.lastRefused = refused
        return nextAttempt(at: now)
    }

    /// The attempt connected: rejoin the app if it still runs (or the one this round launched),
    /// give up on the device if another app runs there, launch the app if none runs (it restarted).
    mutating func connected(_ serial: Int, _ connection: Connection, _ status: ReceiverStatus?) -> [Action] {
        guard phase == .connecting(serial: serial), let round else { return [.closeConnection(connection)] }
        let apps = status?.applications ?? []
        if let app = apps.first(where: { $0.sessionId == round.lostApp.sessionId }) {
            phase = .attaching(serial: serial, .rejoined)
            return [.attach(serial: serial, connection, app)]
        }
        if let launched = round.launchedSessionId, let app = apps.first(where: { $0.sessionId == launched }) {
            phase = .attaching(serial: serial, .relaunched)
            return [.attach(serial: serial, connection, app)]
        }
        if let status, apps.contains(where: { !$0.isIdleScreen }) {
            return [.closeConnection(connection)] + end(.ended(Self.endReason(app: round.lostApp, status: status)))
        }
        phase = .launching(serial: serial)
        return [.launch(serial: serial, connection)]
    }

    /// The attempt launched the app again: the channels go to it.
    mutating func launched(_ serial: Int, _ connection: Connection, _ app: App) -> [Action] {
        guard phase == .launching(serial: serial) else { return [.closeConnection(connection)] }
        round?.launchedSessionId = app.sessionId
        phase = .attaching(serial: serial, .launched)
        return [.attach(serial: serial, connection, app)]
    }

    /// The attempt connected but could not launch or attach: its connection closes, the next attempt follows.
    mutating func attachFailed(_ serial: Int, _ connection: Connection, _ error: CastError, at now: Duration) -> [Action] {
        switch phase {
        case .launching(serial), .attaching(serial, _): break
        default: return [.closeConnection(connection)]
        }
        round?.lastError = error
        return [.closeConnection(connection)] + nextAttempt(at: now)
    }

    /// Discovery's list changed: the device listed anew (back, or moved) is a reason to try now;
    /// gone from the list is not.
    mutating func deviceListed(_ record: CastDevice?, at now: Duration) -> [Action] {
        guard record != discovered else { return [] }
        discovered = record
        guard record != nil else { return [] }
        return retrySignal(.announced, at: now)
    }

    /// A reason to try at once: it ends a back-off wait, and replaces an attempt in flight (sent to
    /// a record discovery has just replaced, or while the network was down: its SYN is lost and
    /// retried only seconds later). At other times it changes nothing.
    mutating func retrySignal(_ signal: RetrySignal, at now: Duration) -> [Action] {
        guard let round else { return [] }
        let name = device.friendlyName
        switch phase {
        case .backingOff(let serial):
            let line: String
            switch signal {
            case .announced:
                line = "Discovery announced \(name) again: attempt \(round.attempt) starts now"
            case .networkReturned(let change):
                line = "The network came back (\(change)): attempt \(round.attempt) to \(name) starts now"
                self.round?.settleRetries = Self.networkSettleRetries
            }
            phase = .connecting(serial: serial)
            return [.cancelBackOff, .log(line), .connect(serial: serial)]
        case .connecting:
            var abandoning = round
            if case .networkReturned = signal { abandoning.settleRetries = Self.networkSettleRetries }
            abandoning.lastError = CastError(code: .connectionLost, message: "\(signal.sentence(name)) during an attempt")
            abandoning.abandoned += 1
            // The abandoned attempt does not count, a few times over (the timeout still bounds the round).
            if abandoning.abandoned <= Self.abandonedRetriesMax { abandoning.attempt -= 1 }
            abandoning.retryNow = true
            self.round = abandoning
            return [.cancelAttempt, .log("\(signal.sentence(name)) during attempt \(round.attempt): trying again at once")]
                + nextAttempt(at: now)
        default:
            return []
        }
    }

    /// The policy's attempts or time are spent: the session ends as lost, with the last attempt's error.
    mutating func giveUp() -> [Action] {
        let round = self.round
        let attempts = round?.attempt ?? 0
        let last = round?.lastError ?? CastError(code: .connectionLost, message: "The connection was lost")
        let error = CastError(code: .connectionLost,
                              message: "Reconnecting to \(device.friendlyName) gave up after \(attempts) attempts"
                                  + (policy.timeout.map { " in \($0)" } ?? "") + ": \(last.message)", cause: last)
        return end(.lost(error))
    }
}
