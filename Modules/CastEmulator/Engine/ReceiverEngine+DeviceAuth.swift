import CastTLS
import Foundation
import SwiftProtobuf

extension ReceiverEngine {
    /// Answers a device-authentication challenge: with an AuthResponse signed by the configured device
    /// credentials over the nonce and the TLS certificate; without credentials (or when they cannot
    /// sign), a well-formed challenge gets `AuthError` INTERNAL_ERROR, and a challenge for an
    /// unsupported algorithm gets SIGNATURE_ALGORITHM_UNAVAILABLE. Anything that is not
    /// a challenge is ignored and recorded. The reply unlocks the receiver's own PINGs.
    mutating func handleDeviceAuth(_ message: Envelope, socket: Int, now: Duration) {
        guard case .binary(let bytes) = message.payload,
            let auth = try? Cast_Channel_DeviceAuthMessage(serializedBytes: bytes),
            auth.hasChallenge, !auth.hasResponse, !auth.hasError
        else {
            record(.unsupportedAuthMessage, "device-auth message that is not a binary challenge; ignored",
                   socket: socket, envelope: message)
            return
        }
        let challenge = auth.challenge
        let algorithmOK = [.unspecified, .rsassaPkcs1V15].contains(challenge.signatureAlgorithm)
        if algorithmOK, let credentials = settings.deviceCredentials, let certificate = settings.tlsCertificateDER,
            let response = credentials.response(to: message, tlsCertificateDER: certificate)
        {
            if let failure = response.signingFailure {
                actions.append(.warn("device authentication: answered INTERNAL_ERROR because signing failed: \(failure)"))
            }
            actions.append(.send(socket: socket, response.reply))
            unlockPings(socket: socket, now: now)
            return
        }
        var error = Cast_Channel_AuthError()
        error.errorType = algorithmOK ? .internalError : .signatureAlgorithmUnavailable
        var reply = Cast_Channel_DeviceAuthMessage()
        reply.error = error
        guard let data = try? reply.serializedBytes() as Data else { return }
        actions.append(.send(socket: socket, Envelope(
            sourceId: message.destinationId, destinationId: message.sourceId, namespace: Wire.deviceAuth,
            payload: .binary(data))))
        unlockPings(socket: socket, now: now)
    }

    /// The auth reply was the first message: the receiver's own PINGs may start.
    private mutating func unlockPings(socket: Int, now: Duration) {
        if var state = sockets[socket], state.nextPing == nil {
            state.nextPing = now + settings.heartbeat.pingInterval
            sockets[socket] = state
        }
    }
}
