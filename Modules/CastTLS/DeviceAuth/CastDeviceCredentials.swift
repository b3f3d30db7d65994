public import Foundation
internal import SwiftProtobuf

/// Ways device credentials can misbehave, to test that senders reject them.
public enum CastDeviceAuthMisbehaviour: String, Sendable, Hashable, CaseIterable {
    /// Answer correctly.
    case none
    /// Present a chain that ends at a root nobody trusts (made when the credentials are issued).
    case chainToOtherRoot
    /// Sign over a different certificate than the TLS certificate of the connection.
    case signOverOtherCertificate
    /// Echo no nonce; sign over the TLS certificate alone (replayable, like old firmware).
    case ignoreNonce
    /// Echo, and sign over, a different nonce.
    case echoWrongNonce
    /// Answer every challenge with `AuthError{INTERNAL_ERROR}`.
    case answerWithError
    /// Ship a valid CRL that revokes the device certificate's public key.
    case revokedByPublicKey
    /// Ship a valid CRL that revokes the device certificate's serial number under its issuer.
    case revokedBySerialNumber
    /// Ship a CRL whose signature does not verify.
    case invalidCRL
}

/// The receiver side of Cast device authentication: a device certificate chain, its private key and
/// an optional CRL bundle, answering `AuthChallenge`s.
///
/// Issue test credentials with ``CastTestCertificateAuthority/issueDevice(deviceID:now:validity:keyBits:audioOnly:includeCRL:misbehaviour:)``
/// or ``generate(deviceID:now:misbehaviour:)``, or load them from PEM with ``init(chainPEM:privateKeyPEM:crlBundle:misbehaviour:)``.
/// Immutable and thread-safe: the key is re-imported for every signature.
public final class CastDeviceCredentials: Sendable {
    /// The device certificate (DER), sent as `client_auth_certificate`.
    public let deviceCertificateDER: [UInt8]
    /// The intermediate certificates (DER, issuer of the device certificate first), sent as `intermediate_certificate`.
    public let intermediateCertificatesDER: [[UInt8]]
    /// The serialized `CrlBundle` sent as `crl`, if any.
    public let crlBundle: [UInt8]?
    /// How these credentials misbehave.
    public let misbehaviour: CastDeviceAuthMisbehaviour
    /// The device key (PEM, PKCS#1); package-visible for tests and the emulated receiver's files.
    package let privateKeyPEM: String
    /// The authority that issued these credentials, when they were made by ``generate(deviceID:now:misbehaviour:)``.
    public let authority: CastTestCertificateAuthority?

    init(
        deviceCertificateDER: [UInt8], intermediateCertificatesDER: [[UInt8]], privateKeyPEM: String, crlBundle: [UInt8]?,
        misbehaviour: CastDeviceAuthMisbehaviour, authority: CastTestCertificateAuthority? = nil
    ) {
        self.deviceCertificateDER = deviceCertificateDER
        self.intermediateCertificatesDER = intermediateCertificatesDER
        self.privateKeyPEM = privateKeyPEM
        self.crlBundle = crlBundle
        self.misbehaviour = misbehaviour
        self.authority = authority
    }

    /// Loads credentials from PEM: `chainPEM` holds the device certificate first, then its intermediates
    /// (a trailing self-signed root is dropped); `privateKeyPEM` is the device's unencrypted key.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.invalidCredentials` when something
    ///   does not parse or the key does not belong to the device certificate.
    public convenience init(
        chainPEM: String, privateKeyPEM: String, crlBundle: [UInt8]? = nil, misbehaviour: CastDeviceAuthMisbehaviour = .none
    ) throws(CastDeviceAuthError) {
        var chain = try pemCertificatesToDER(chainPEM)
        guard let device = chain.first else {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "The chain PEM holds no certificate")
        }
        if chain.count > 1, let last = chain.last, let parsed = try? DeviceAuthCertificate(der: last),
            parsed.subjectDN == parsed.issuerDN
        {
            chain.removeLast()
        }
        do {
            // TLSCredentials checks that the key belongs to the certificate.
            _ = try TLSCredentials(
                certificatePEM: String(decoding: try GnuTLSX509Certificate(bytes: device, pem: false).export(pem: true), as: UTF8.self),
                privateKeyPEM: privateKeyPEM)
        } catch {
            throw CastDeviceAuthError(
                code: .invalidCredentials, message: "The device key does not match the device certificate", cause: error)
        }
        self.init(
            deviceCertificateDER: device, intermediateCertificatesDER: Array(chain.dropFirst()),
            privateKeyPEM: privateKeyPEM, crlBundle: crlBundle, misbehaviour: misbehaviour)
    }

    /// Generates a fresh ``CastTestCertificateAuthority`` and issues credentials for `deviceID` from it
    /// (about five RSA-2048 key generations). The sender trusts them with `credentials.authority!.trustStore`.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.signingFailed` when GnuTLS fails.
    public static func generate(
        deviceID: String = "Castor Emulated Device", now: Date = Date(), misbehaviour: CastDeviceAuthMisbehaviour = .none
    ) throws(CastDeviceAuthError) -> CastDeviceCredentials {
        let authority = try CastTestCertificateAuthority.generate(now: now)
        return try authority.issueDevice(deviceID: deviceID, now: now, misbehaviour: misbehaviour)
    }

    /// The chain as PEM (device certificate first, then intermediates), for ``init(chainPEM:privateKeyPEM:crlBundle:misbehaviour:)``.
    public var chainPEM: String {
        ([deviceCertificateDER] + intermediateCertificatesDER).compactMap { der in
            (try? GnuTLSX509Certificate(bytes: der, pem: false).export(pem: true)).map { String(decoding: $0, as: UTF8.self) }
        }.joined()
    }

    /// The same credentials with a different behaviour (only the behaviours that need no extra material:
    /// `none`, `signOverOtherCertificate`, `ignoreNonce`, `echoWrongNonce`, `answerWithError`).
    public func withMisbehaviour(_ misbehaviour: CastDeviceAuthMisbehaviour) -> CastDeviceCredentials {
        CastDeviceCredentials(
            deviceCertificateDER: deviceCertificateDER, intermediateCertificatesDER: intermediateCertificatesDER,
            privateKeyPEM: privateKeyPEM, crlBundle: crlBundle, misbehaviour: misbehaviour, authority: authority)
    }

    /// Answers a device-auth challenge, as a real receiver's platform does.
    ///
    /// Returns `nil` (the message is ignored, as openscreen does) unless `challengeMessage` is a binary
    /// `DeviceAuthMessage` on ``CastDeviceAuthenticator/namespace`` holding only a challenge. Otherwise the reply
    /// (ids swapped) carries an `AuthResponse` — the chain, the echoed nonce, the requested hash, the CRL and an
    /// RSASSA-PKCS1-v1_5 signature over `sender_nonce || tlsCertificateDER` — or an `AuthError`:
    /// `SIGNATURE_ALGORITHM_UNAVAILABLE` for a signature algorithm other than PKCS#1 v1.5, `INTERNAL_ERROR`
    /// when signing fails (or for ``CastDeviceAuthMisbehaviour/answerWithError``).
    /// - Parameters:
    ///   - challengeMessage: the message received on ``CastDeviceAuthenticator/namespace``.
    ///   - tlsCertificateDER: the TLS certificate (DER) the receiver presents on this connection.
    public func respond(to challengeMessage: CastMessage, tlsCertificateDER: [UInt8]) -> CastMessage? {
        response(to: challengeMessage, tlsCertificateDER: tlsCertificateDER)?.reply
    }

    /// ``respond(to:tlsCertificateDER:)``, with why signing failed when the reply is an `INTERNAL_ERROR`
    /// for that reason: a device answers its sender with the error alone, and its owner (the emulated
    /// receiver's log, a test) wants the cause.
    package func response(
        to challengeMessage: CastMessage, tlsCertificateDER: [UInt8]
    ) -> (reply: CastMessage, signingFailure: CastDeviceAuthError?)? {
        guard challengeMessage.namespace == CastDeviceAuthenticator.namespace,
            case .binary(let payload) = challengeMessage.payload,
            let request = try? Cast_Channel_DeviceAuthMessage(serializedBytes: payload),
            request.hasChallenge, !request.hasResponse, !request.hasError
        else { return nil }
        let challenge = request.challenge
        var reply = Cast_Channel_DeviceAuthMessage()
        var signingFailure: CastDeviceAuthError?
        if challenge.signatureAlgorithm != .rsassaPkcs1V15 && challenge.signatureAlgorithm != .unspecified {
            reply.error = Self.authError(.signatureAlgorithmUnavailable)
        } else if misbehaviour == .answerWithError {
            reply.error = Self.authError(.internalError)
        } else {
            let hash: CastDeviceAuthHashAlgorithm = challenge.hashAlgorithm == .sha256 ? .sha256 : .sha1
            var nonce = [UInt8](challenge.senderNonce)
            switch misbehaviour {
            case .ignoreNonce: nonce = []
            case .echoWrongNonce: nonce = nonce.isEmpty ? [0x42] : nonce.map { $0 ^ 0xFF }
            default: break
            }
            let signedCertificate = misbehaviour == .signOverOtherCertificate ? deviceCertificateDER : tlsCertificateDER
            do {
                let signature = try sign(nonce + signedCertificate, hash: hash)
                var response = Cast_Channel_AuthResponse()
                response.signature = Data(signature)
                response.clientAuthCertificate = Data(deviceCertificateDER)
                response.intermediateCertificate = intermediateCertificatesDER.map { Data($0) }
                response.signatureAlgorithm = .rsassaPkcs1V15
                response.hashAlgorithm = hash == .sha256 ? .sha256 : .sha1
                if !nonce.isEmpty { response.senderNonce = Data(nonce) }
                if let crlBundle { response.crl = Data(crlBundle) }
                reply.response = response
            } catch {
                signingFailure = error
                reply.error = Self.authError(.internalError)
            }
        }
        let bytes = (try? reply.serializedBytes() as [UInt8]) ?? []
        return (challengeMessage.reply(.binary(Data(bytes))), signingFailure)
    }

    /// Signs `data` with the device key.
    func sign(_ data: [UInt8], hash: CastDeviceAuthHashAlgorithm) throws(CastDeviceAuthError) -> [UInt8] {
        let key: GnuTLSX509PrivateKey
        do {
            key = try GnuTLSX509PrivateKey(bytes: Array(privateKeyPEM.utf8), pem: true)
        } catch {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "The device key cannot be parsed", cause: error)
        }
        return try DeviceAuthCertificateIssuer.sign(data, with: key, hash: hash)
    }

    private static func authError(_ type: Cast_Channel_AuthError.ErrorType) -> Cast_Channel_AuthError {
        var error = Cast_Channel_AuthError()
        error.errorType = type
        return error
    }
}
