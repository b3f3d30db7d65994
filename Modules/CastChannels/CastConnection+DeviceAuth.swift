import CastTransport
import Foundation

extension CastConnection {
    /// Sends the device-authentication challenge as the first message and checks the answer,
    /// following ``CastConnectionConfiguration/deviceAuthPolicy``.
    ///
    /// - Throws: ``CastChannelError`` `.notGenuine` when the policy requires a genuine device and
    ///   the check failed; the connection is closed by the caller then.
    func authenticateDevice() async throws(CastChannelError) {
        let policy = configuration.deviceAuthPolicy
        guard policy.mode != .off, let peerCertificateDER else { return }
        let authenticator = CastDeviceAuthenticator(trustStore: configuration.deviceAuthTrustStore, policy: policy)
        let challenge = authenticator.makeChallenge()
        let reply = ReplyPromise<CastMessage>()
        state.withLock { $0.deviceAuthReply = reply }
        var message = challenge.message
        message.sourceId = configuration.senderId
        try await send(message)
        let timer = self.timer
        let due = timer.elapsed() + configuration.deviceAuthTimeout
        let deadline = Task {
            do { try await timer.sleepUntil(due) } catch { return }
            reply.fulfil(.failure(CastChannelError(code: .timeout, message: "No answer to the device-authentication challenge")))
        }
        let answer: CastMessage?
        do {
            answer = try await reply.value()
        } catch where error.code == .timeout {
            answer = nil
        }
        deadline.cancel()
        state.withLock { $0.deviceAuthReply = nil }
        let status = authenticator.evaluate(reply: answer, to: challenge, peerCertificateDER: peerCertificateDER, now: Date())
        state.withLock { $0.deviceAuthStatus = status }
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
