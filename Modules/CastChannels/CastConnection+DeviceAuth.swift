import CastTransport
import Foundation

extension CastConnection {
    /// Sends the device-authentication challenge as the first message and checks the answer,
    /// following ``CastConnectionConfiguration/deviceAuthPolicy``.
    ///
    /// The wait is the smaller of ``CastConnectionConfiguration/deviceAuthTimeout`` and what is
    /// left until `deadline` (the budget of ``start()``).
    /// - Throws: ``CastChannelError`` `.notGenuine` when the policy requires a genuine device and
    ///   the check failed, `.timeout` when the budget ran out waiting for the answer; the
    ///   connection is closed by the caller then.
    func authenticateDevice(until deadline: Duration) async throws(CastChannelError) {
        let policy = configuration.deviceAuthPolicy
        guard policy.mode != .off, let peerCertificateDER else { return }
        let authenticator = CastDeviceAuthenticator(trustStore: configuration.deviceAuthTrustStore, policy: policy)
        let challenge = authenticator.makeChallenge()
        let reply = ReplyPromise<CastMessage>()
        state.withLock { $0.machine.awaitDeviceAuth(reply) }
        var message = challenge.message
        message.sourceId = configuration.senderId
        try send(message)
        let timer = self.timer
        let ownLimit = timer.elapsed() + configuration.deviceAuthTimeout
        let budgetCutsIn = deadline <= ownLimit
        let due = min(ownLimit, deadline)
        let waiter = Task {
            do { try await timer.sleepUntil(due) } catch { return }
            reply.fulfil(.failure(CastChannelError(code: .timeout, message: "No answer to the device-authentication challenge")))
        }
        let answer: CastMessage?
        do {
            answer = try await reply.value()
        } catch where error.code == .timeout {
            waiter.cancel()
            state.withLock { $0.machine.deviceAuthWaitEnded() }
            if budgetCutsIn {
                // Nothing is left for GET_STATUS either: the device is not answering in time.
                throw CastChannelError(
                    code: .timeout,
                    message: "\(transport.peerDescription) did not answer the device-authentication challenge before the "
                        + "connection's request timeout (\(configuration.requestTimeout.castDescription), which covers "
                        + "device authentication and the first GET_STATUS) ran out")
            }
            answer = nil
        }
        waiter.cancel()
        state.withLock { $0.machine.deviceAuthWaitEnded() }
        let status = authenticator.evaluate(reply: answer, to: challenge, peerCertificateDER: peerCertificateDER, now: Date())
        state.withLock { $0.machine.deviceAuthStatus = status }
        eventBroadcaster.yield(.deviceAuthenticated(status))
        switch status {
        case .verified(let result): logger.debug("Device is genuine: \(result.deviceCommonName)")
        // Debug, not info: under the default `.report` policy most receivers that are not Google's own
        // (emulators, third-party and self-built receivers) fail this check, and that is not an error.
        // Under `.require` the failure is the error thrown below.
        case .failed(let error): logger.debug("Device authentication failed: \(error)")
        case .notChecked: break
        }
        guard policy.admits(status) else {
            throw CastChannelError(code: .notGenuine, message: "\(transport.peerDescription) is not a verified Cast device: \(status)")
        }
    }
}
