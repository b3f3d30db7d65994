public import CastCore
public import Foundation
internal import SwiftProtobuf

/// The sender side of Cast device authentication: builds the challenge and verifies the reply
/// against the TLS peer certificate and a `CastTrustStore`.
///
/// Pure: no I/O, time given as a parameter. The checks (cast-protocol §7, as Chrome and openscreen make them):
/// 1. the reply is a binary `DeviceAuthMessage` on the device-auth namespace with a complete `response`
///    (an `error` gives `CastDeviceAuthError.Code.receiverError`);
/// 2. the TLS peer certificate is valid at `now` and expires within 4 days;
/// 3. the nonce echo matches (enforced only with `CastDeviceAuthPolicy.enforceNonce`);
/// 4. the certificate path step (``verifyCertificatePath(_:crlBundle:crlPolicy:at:crlVerificationTime:)``):
///    a CRL bundle, when present, verifies against a CRL root or is set aside (it must verify with
///    `CastDeviceAuthPolicy.requireCRL`);
///    `[client_auth_certificate] + intermediate_certificate` builds to a device root: RSA ≥ 2048 bits,
///    CA and keyCertSign on issuers, path lengths, name constraints, digitalSignature and a CN on the device
///    certificate, validity at `now`, no unknown critical extension; the CRL revokes nothing in the path;
/// 5. the signature step (``verifySignature(_:over:hashAlgorithm:deviceCertificateDER:)``): the
///    RSASSA-PKCS1-v1_5 signature (SHA-1 or SHA-256, as the reply says) over
///    `sender_nonce || DER(TLS peer certificate)` verifies with the device key.
///
/// The two steps are public so that a device's chain, CRL and signatures can be checked on their own; they
/// pass every case of Google's Open Screen device-certificate test suite (see the GenuineDevices article).
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
    ///   - challenge: the challenge that was sent.
    ///   - peerCertificateDER: the TLS server certificate the connection saw (DER).
    ///   - now: the verification time.
    /// - Throws: `CastDeviceAuthError`, one code per failed check.
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
    ///
    /// Parses it into a ``CastDeviceAuthResponse``, checks the TLS certificate and the nonce, then runs the two
    /// steps: ``verifyCertificatePath(_:crlBundle:crlPolicy:at:crlVerificationTime:)`` on the reply's chain and CRL
    /// at `now`, and ``verifySignature(_:over:hashAlgorithm:deviceCertificateDER:)`` over the echoed nonce
    /// followed by `peerCertificateDER`.
    /// - Throws: `CastDeviceAuthError`, one code per failed check.
    public func verify(
        responsePayload: [UInt8], nonce: [UInt8], peerCertificateDER: [UInt8], now: Date
    ) throws(CastDeviceAuthError) -> CastDeviceAuthResult {
        let response = try CastDeviceAuthResponse(payload: responsePayload)
        try Self.checkTLSCertificate(peerCertificateDER, now: now)

        let echoed = response.senderNonce ?? []
        let nonceCheck: CastDeviceAuthResult.NonceCheck =
            response.senderNonce == nil ? .missing : (echoed == nonce ? .matched : .mismatched)
        if policy.enforceNonce, nonceCheck != .matched {
            throw CastDeviceAuthError(
                code: .nonceMismatch,
                message: nonceCheck == .missing ? "The reply does not echo the nonce" : "The reply echoes a different nonce")
        }

        let path = try verifyCertificatePath(response.certificateChainDER, crlBundle: response.crlBundle, at: now)
        try Self.verifySignature(
            response.signature, over: echoed + peerCertificateDER, hashAlgorithm: response.hashAlgorithm,
            deviceCertificateDER: response.certificateChainDER[0])

        return CastDeviceAuthResult(
            deviceCommonName: path.device.commonName ?? "",
            isAudioOnly: path.isAudioOnly,
            hashAlgorithm: response.hashAlgorithm, nonce: nonceCheck, crlChecked: path.crl != nil,
            chainCommonNames: path.certificates.map { $0.commonName ?? "" }, certificatePath: path)
    }

    /// The policy-aware outcome for a connection: `CastDeviceAuthStatus.notChecked` when the policy is off,
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
