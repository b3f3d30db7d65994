import CastCore
import Foundation
import Logging

extension CastConnection {
    /// Sends the device-authentication challenge as the first message and checks the answer with
    /// ``deviceVerifier``, following ``CastConnectionConfiguration/deviceAuthPolicy``. Without a
    /// verifier or a peer certificate (a transport without TLS) there is nothing to check.
    ///
    /// The exchange is an input of the connection's state machine: it ends with the answer, with its
    /// deadline (the smaller of ``CastConnectionConfiguration/deviceAuthTimeout`` and what is left
    /// until `deadline`, the budget of ``start()``), or with the connection, whichever comes first. A
    /// device that answers the challenge with an oversized frame, bytes that are no CastMessage, a
    /// close or a reset fails ``start()`` at once with that cause, as the same loss does after
    /// authentication.
    /// - Throws: ``CastChannelError`` `.notGenuine` when the policy requires a genuine device and
    ///   the check failed, `.timeout` when the budget ran out waiting for the answer,
    ///   `.connectionLost` (with the transport's error) when the connection ended first; the
    ///   connection is closed by the caller then.
    func authenticateDevice(until deadline: Duration) async throws(CastChannelError) {
        let policy = configuration.deviceAuthPolicy
        guard policy.mode != .off, let peerCertificateDER, let verifier = deviceVerifier else { return }
        let challenge = verifier.makeChallenge()
        let reply = ReplyPromise<Machine.DeviceAuthEnd>()
        var message = challenge.message
        message.sourceId = configuration.senderId
        let size = message.encodedSize
        guard size <= CastFrame.maxBodySize else {
            // A sender id so long that the challenge cannot be framed: nothing was sent.
            let error = CastTransportError(
                code: .messageTooLarge, message: "Message of \(size) bytes exceeds the \(CastFrame.maxBodySize)-byte frame limit")
            throw CastChannelError(code: .messageTooLarge, message: error.message, transportError: error)
        }
        let ownLimit = timer.elapsed() + configuration.deviceAuthTimeout
        let isStartBudget = deadline <= ownLimit
        perform(machine {
            $0.startDeviceAuth(
                challenge: message, waiter: reply, deadline: min(ownLimit, deadline), isStartBudget: isStartBudget,
                budget: configuration.requestTimeout)
        })
        let answer: CastMessage?
        switch try await reply.value() {
        case .answered(let message): answer = message
        case .unanswered: answer = nil
        case .failed(let error): throw error
        }
        let status = verifier.evaluate(
            reply: answer, to: challenge, peerCertificateDER: peerCertificateDER, trustStore: configuration.deviceAuthTrustStore,
            policy: policy, now: Date())
        perform(machine { $0.deviceAuthChecked(status) })
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
