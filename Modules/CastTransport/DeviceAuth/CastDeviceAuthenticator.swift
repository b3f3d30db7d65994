internal import CGnuTLS
public import Foundation
internal import SwiftProtobuf

/// A challenge sent to a receiver: the nonce to expect back and the message to send.
public struct CastDeviceAuthChallenge: Sendable, Hashable {
    /// The sender nonce (16 random bytes by default).
    public let nonce: [UInt8]
    /// The hash the receiver is asked to sign with.
    public let hashAlgorithm: CastDeviceAuthHashAlgorithm
    /// The `CastMessage` to send: `sender-0` → `receiver-0` on ``CastDeviceAuthenticator/namespace``,
    /// binary payload `DeviceAuthMessage{challenge{sender_nonce, hash_algorithm}}`.
    public let message: CastMessage
}

/// The sender side of Cast device authentication: builds the challenge and verifies the reply
/// against the TLS peer certificate and a ``CastTrustStore``.
///
/// Pure: no I/O, time given as a parameter. The checks (cast-protocol §7, as Chrome and openscreen make them):
/// 1. the reply is a binary `DeviceAuthMessage` on the device-auth namespace with a complete `response`
///    (an `error` gives ``CastDeviceAuthError/Code/receiverError``);
/// 2. the TLS peer certificate is valid at `now` and expires within 4 days;
/// 3. the nonce echo matches (enforced only with ``CastDeviceAuthPolicy/enforceNonce``);
/// 4. `[client_auth_certificate] + intermediate_certificate` builds to a device root: RSA ≥ 2048 bits,
///    CA and keyCertSign on issuers, path lengths, digitalSignature and a CN on the device certificate,
///    validity at `now`, no unknown critical extension;
/// 5. the RSASSA-PKCS1-v1_5 signature (SHA-1 or SHA-256, as the reply says) over
///    `sender_nonce || DER(TLS peer certificate)` verifies with the device key;
/// 6. a CRL bundle, when present, verifies against a CRL root and revokes nothing in the path.
public struct CastDeviceAuthenticator: Sendable {
    /// `urn:x-cast:com.google.cast.tp.deviceauth`.
    public static let namespace = "urn:x-cast:com.google.cast.tp.deviceauth"
    /// The longest TLS certificate lifetime left that genuine devices use: 4 days.
    public static let maximumTLSCertificateLifetime: TimeInterval = 4 * 24 * 3600

    /// The roots to trust.
    public var trustStore: CastTrustStore
    /// Nonce and CRL requirements, and what a connection does with the outcome.
    public var policy: CastDeviceAuthPolicy

    /// Creates an authenticator.
    public init(trustStore: CastTrustStore = .cast, policy: CastDeviceAuthPolicy = .report) {
        self.trustStore = trustStore
        self.policy = policy
    }

    /// 16 random bytes from GnuTLS's nonce generator.
    public static func randomNonce() -> [UInt8] { deviceAuthRandomBytes(16) }

    /// Whether `message` belongs to device authentication (its namespace).
    public static func isDeviceAuthMessage(_ message: CastMessage) -> Bool { message.namespace == namespace }

    /// Builds the challenge to send right after the TLS handshake, before any other message.
    public func makeChallenge(
        nonce: [UInt8] = CastDeviceAuthenticator.randomNonce(), hashAlgorithm: CastDeviceAuthHashAlgorithm = .sha256
    ) -> CastDeviceAuthChallenge {
        var challenge = Cast_Channel_AuthChallenge()
        challenge.senderNonce = Data(nonce)
        challenge.hashAlgorithm = hashAlgorithm == .sha256 ? .sha256 : .sha1
        challenge.signatureAlgorithm = .rsassaPkcs1V15
        var envelope = Cast_Channel_DeviceAuthMessage()
        envelope.challenge = challenge
        let payload = (try? envelope.serializedBytes() as [UInt8]) ?? []
        let message = CastMessage(
            sourceId: "sender-0", destinationId: "receiver-0", namespace: Self.namespace, payload: .binary(Data(payload)))
        return CastDeviceAuthChallenge(nonce: nonce, hashAlgorithm: hashAlgorithm, message: message)
    }

    /// Verifies the receiver's reply to `challenge`.
    /// - Parameters:
    ///   - reply: the first message received on ``namespace``.
    ///   - challenge: the challenge this reply answers.
    ///   - peerCertificateDER: the TLS server certificate the connection saw (DER).
    ///   - now: the verification time.
    /// - Throws: ``CastDeviceAuthError``, one code per failed check.
    public func verify(
        reply: CastMessage, to challenge: CastDeviceAuthChallenge, peerCertificateDER: [UInt8], now: Date
    ) throws(CastDeviceAuthError) -> CastDeviceAuthResult {
        guard reply.namespace == Self.namespace else {
            throw CastDeviceAuthError(
                code: .malformedResponse, message: "The reply is on namespace \(reply.namespace), not \(Self.namespace)")
        }
        guard case .binary(let payload) = reply.payload else {
            throw CastDeviceAuthError(code: .malformedResponse, message: "The reply payload is text, not binary")
        }
        return try verify(responsePayload: Array(payload), nonce: challenge.nonce, peerCertificateDER: peerCertificateDER, now: now)
    }

    /// Verifies a serialized `DeviceAuthMessage` (a reply's binary payload) against the nonce sent.
    /// - Throws: ``CastDeviceAuthError``, one code per failed check.
    public func verify(
        responsePayload: [UInt8], nonce: [UInt8], peerCertificateDER: [UInt8], now: Date
    ) throws(CastDeviceAuthError) -> CastDeviceAuthResult {
        let response = try Self.parseResponse(responsePayload)
        try Self.checkTLSCertificate(peerCertificateDER, now: now)

        let echoed = [UInt8](response.senderNonce)
        let nonceCheck: CastDeviceAuthResult.NonceCheck =
            !response.hasSenderNonce || echoed.isEmpty ? .missing : (echoed == nonce ? .matched : .mismatched)
        if policy.enforceNonce, nonceCheck != .matched {
            throw CastDeviceAuthError(
                code: .nonceMismatch,
                message: nonceCheck == .missing ? "The reply does not echo the nonce" : "The reply echoes a different nonce")
        }

        guard response.signatureAlgorithm == .rsassaPkcs1V15 || response.signatureAlgorithm == .unspecified else {
            throw CastDeviceAuthError(
                code: .unsupportedAlgorithm,
                message: "The reply is signed with \(response.signatureAlgorithm), not RSASSA-PKCS1-v1_5")
        }
        let hash: CastDeviceAuthHashAlgorithm = response.hashAlgorithm == .sha256 ? .sha256 : .sha1

        let device: DeviceAuthCertificate
        let intermediates: [DeviceAuthCertificate]
        do {
            device = try DeviceAuthCertificate(der: Array(response.clientAuthCertificate))
            intermediates = try response.intermediateCertificate.map { data throws(TLSError) in
                try DeviceAuthCertificate(der: Array(data))
            }
        } catch {
            throw CastDeviceAuthError(
                code: .malformedResponse, message: "A certificate of the reply cannot be parsed", cause: error)
        }
        let path = try DeviceAuthPathBuilder.buildPath(
            target: device, intermediates: intermediates, anchors: trustStore.parsedDeviceRoots(), now: now,
            purpose: .device)

        let signed = echoed + peerCertificateDER
        let algorithm = hash == .sha256 ? GNUTLS_SIGN_RSA_SHA256 : GNUTLS_SIGN_RSA_SHA1
        guard device.publicKey.verify(algorithm, data: signed, signature: Array(response.signature)) else {
            throw CastDeviceAuthError(
                code: .badSignature,
                message: "The \(hash.rawValue.uppercased()) signature does not verify over the nonce and the TLS certificate")
        }

        var crlChecked = false
        if response.hasCrl, !response.crl.isEmpty {
            let crl = try DeviceAuthCRL(bundle: Array(response.crl), roots: trustStore.parsedCRLRoots(), now: now)
            try crl.checkRevocation(of: path, now: now)
            crlChecked = true
        } else if policy.requireCRL {
            throw CastDeviceAuthError(code: .invalidCRL, message: "The reply carries no CRL and the policy requires one")
        }

        return CastDeviceAuthResult(
            deviceCommonName: device.commonName ?? "",
            isAudioOnly: path.contains { $0.policies.contains(CastDeviceAuthResult.audioOnlyPolicyOID) },
            hashAlgorithm: hash, nonce: nonceCheck, crlChecked: crlChecked,
            chainCommonNames: path.map { $0.commonName ?? "" })
    }

    /// The policy-aware outcome for a connection: ``CastDeviceAuthStatus/notChecked`` when the policy is off,
    /// `.failed(noResponse)` when `reply` is `nil` (timeout or connection closed), otherwise the verification outcome.
    public func evaluate(
        reply: CastMessage?, to challenge: CastDeviceAuthChallenge, peerCertificateDER: [UInt8]?, now: Date
    ) -> CastDeviceAuthStatus {
        guard policy.mode != .off else { return .notChecked }
        guard let reply else {
            return .failed(CastDeviceAuthError(code: .noResponse, message: "The receiver did not answer the challenge"))
        }
        guard let peerCertificateDER else {
            return .failed(CastDeviceAuthError(code: .invalidTLSCertificate, message: "The TLS peer presented no certificate"))
        }
        do {
            return .verified(try verify(reply: reply, to: challenge, peerCertificateDER: peerCertificateDER, now: now))
        } catch {
            return .failed(error)
        }
    }

    /// Parses the `DeviceAuthMessage`; throws for an `error` reply or a missing/incomplete `response`.
    private static func parseResponse(_ payload: [UInt8]) throws(CastDeviceAuthError) -> Cast_Channel_AuthResponse {
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
        return response
    }

    /// Checks the TLS peer certificate's validity window: valid now, and for at most 4 more days.
    private static func checkTLSCertificate(_ der: [UInt8], now: Date) throws(CastDeviceAuthError) {
        let certificate: GnuTLSX509Certificate
        do {
            certificate = try GnuTLSX509Certificate(bytes: der, pem: false)
        } catch {
            throw CastDeviceAuthError(
                code: .invalidTLSCertificate, message: "The TLS peer certificate cannot be parsed", cause: error)
        }
        guard certificate.notBefore <= now else {
            throw CastDeviceAuthError(
                code: .expiredTLSCertificate, message: "The TLS certificate is not valid before \(certificate.notBefore)")
        }
        guard now <= certificate.notAfter else {
            throw CastDeviceAuthError(
                code: .expiredTLSCertificate, message: "The TLS certificate expired at \(certificate.notAfter)")
        }
        guard certificate.notAfter.timeIntervalSince(now) <= maximumTLSCertificateLifetime else {
            throw CastDeviceAuthError(
                code: .tlsCertificateValidTooLong,
                message: "The TLS certificate is valid until \(certificate.notAfter), more than 4 days from now")
        }
    }
}
