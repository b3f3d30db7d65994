import CastTransport
import Foundation
import SwiftProtobuf

extension ReceiverEngine {
    /// Answers a device-authentication challenge. The emulator has no device credentials yet, so a
    /// well-formed challenge gets `AuthError` (INTERNAL_ERROR, as a device whose signing failed), and a
    /// challenge for an unsupported algorithm gets SIGNATURE_ALGORITHM_UNAVAILABLE. Anything that is not
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
        var error = Cast_Channel_AuthError()
        let algorithmOK = [.unspecified, .rsassaPkcs1V15].contains(challenge.signatureAlgorithm)
        error.errorType = algorithmOK ? .internalError : .signatureAlgorithmUnavailable
        var reply = Cast_Channel_DeviceAuthMessage()
        reply.error = error
        guard let data = try? reply.serializedBytes() as Data else { return }
        actions.append(.send(socket: socket, Envelope(
            sourceId: message.destinationId, destinationId: message.sourceId, namespace: Wire.deviceAuth,
            payload: .binary(data))))
        if var state = sockets[socket], state.nextPing == nil {
            state.nextPing = now + settings.heartbeat.pingInterval
            sockets[socket] = state
        }
    }
}
