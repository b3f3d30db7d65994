internal import SwiftProtobuf

/// A receiver's answer to a device-authentication challenge (`DeviceAuthMessage.response`), parsed but not verified.
///
/// ``CastDeviceAuthenticator/verify(responsePayload:nonce:peerCertificateDER:now:)`` parses the reply into
/// this and then runs the two verification steps on it; tools that want to show what a device sent
/// (`castctl auth show`) parse it themselves.
public struct CastDeviceAuthResponse: Sendable, Hashable {
    /// `client_auth_certificate` followed by `intermediate_certificate`: the device certificate first, root excluded.
    public var certificateChainDER: [[UInt8]]
    /// The serialized `CrlBundle` the device sent, or `nil` when it sent none (or an empty one).
    public var crlBundle: [UInt8]?
    /// The nonce the device echoed, or `nil` when it echoed none.
    public var senderNonce: [UInt8]?
    /// The RSASSA-PKCS1-v1_5 signature over `sender_nonce || DER(TLS certificate)`.
    public var signature: [UInt8]
    /// The hash the device signed with.
    public var hashAlgorithm: CastDeviceAuthHashAlgorithm

    /// Creates a response from its parts.
    public init(
        certificateChainDER: [[UInt8]], crlBundle: [UInt8]?, senderNonce: [UInt8]?, signature: [UInt8],
        hashAlgorithm: CastDeviceAuthHashAlgorithm
    ) {
        self.certificateChainDER = certificateChainDER
        self.crlBundle = crlBundle
        self.senderNonce = senderNonce
        self.signature = signature
        self.hashAlgorithm = hashAlgorithm
    }

    /// Parses a serialized `DeviceAuthMessage` (a reply's binary payload).
    /// - Throws: `CastDeviceAuthError` with `CastDeviceAuthError.Code.malformedResponse` when it is not a
    ///   complete response (no response, an empty signature or device certificate), with
    ///   `CastDeviceAuthError.Code.receiverError` when the receiver answered with an `AuthError`, and with
    ///   `CastDeviceAuthError.Code.unsupportedAlgorithm` for a signature scheme other than RSASSA-PKCS1-v1_5.
    public init(payload: [UInt8]) throws(CastDeviceAuthError) {
        let message: Cast_Channel_DeviceAuthMessage
        do {
            message = try Cast_Channel_DeviceAuthMessage(serializedBytes: payload)
        } catch {
            throw CastDeviceAuthError(
                code: .malformedResponse, message: "The reply is not a complete DeviceAuthMessage", cause: error)
        }
        if message.hasError {
            let type = CastDeviceAuthError.ReceiverErrorType(rawValue: message.error.errorType.rawValue)
            throw CastDeviceAuthError(
                code: .receiverError, message: "The receiver answered with AuthError \(type)", receiverErrorType: type)
        }
        guard message.hasResponse else {
            throw CastDeviceAuthError(code: .malformedResponse, message: "The DeviceAuthMessage carries no response")
        }
        let response = message.response
        guard !response.signature.isEmpty, !response.clientAuthCertificate.isEmpty else {
            throw CastDeviceAuthError(code: .malformedResponse, message: "The response has an empty signature or certificate")
        }
        guard response.signatureAlgorithm == .rsassaPkcs1V15 || response.signatureAlgorithm == .unspecified else {
            throw CastDeviceAuthError(
                code: .unsupportedAlgorithm,
                message: "The reply is signed with \(response.signatureAlgorithm), not RSASSA-PKCS1-v1_5")
        }
        self.init(
            certificateChainDER: [Array(response.clientAuthCertificate)] + response.intermediateCertificate.map { Array($0) },
            crlBundle: response.hasCrl && !response.crl.isEmpty ? Array(response.crl) : nil,
            senderNonce: response.hasSenderNonce && !response.senderNonce.isEmpty ? Array(response.senderNonce) : nil,
            signature: Array(response.signature),
            hashAlgorithm: response.hashAlgorithm == .sha256 ? .sha256 : .sha1)
    }
}
