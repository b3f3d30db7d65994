internal import CGnuTLS
public import Foundation

/// The two verification steps of device authentication, usable on their own: the certificate path
/// (with its CRL) at a given time, and a signature by the device certificate's key over given data.
/// ``CastDeviceAuthenticator/verify(responsePayload:nonce:peerCertificateDER:now:)`` runs both on a reply;
/// Open Screen's device-certificate test suite runs through the first, its signed-data vectors through the second.
extension CastDeviceAuthenticator {
    /// Verifies a device certificate path at `time`, with an optional CRL bundle, against ``trustStore``.
    ///
    /// The checks, in Open Screen's and Chrome's order:
    /// 1. a CRL bundle, when given, is verified at `crlVerificationTime`: its first version-0 CRL must be signed
    ///    (RSASSA-PKCS1-v1_5, SHA-256) by a certificate chaining to a CRL root, be inside its validity window,
    ///    and have well-formed serial ranges. With `CastCRLPolicy.required` a CRL that does not verify, or
    ///    none, fails; with `CastCRLPolicy.optional` one that does not verify is set aside (as Chrome and
    ///    Open Screen do: a sender cannot tell a stale CRL from a stripped one) and reported in
    ///    `CastDeviceCertificatePath.unusedCRLReason`;
    /// 2. `[device certificate] + intermediates` must build to a device root at `time`: RSA keys of at least
    ///    2048 bits, CA and keyCertSign on issuers, path lengths, name constraints, no anyPolicy mapping,
    ///    validity (trust anchors excepted), no unknown critical extension; the device certificate has the
    ///    digitalSignature key usage, a subject common name and, if it lists extended key usages, clientAuth;
    /// 3. a CRL that verified must be usable at `time` (its window, ended early by its signer's) and revoke no
    ///    certificate of the path, by SubjectPublicKeyInfo hash or by serial-number range under the issuer's key.
    ///
    /// - Parameters:
    ///   - chainDER: the device certificate first, then intermediates (DER), the root excluded — as a device
    ///     sends them in `client_auth_certificate` and `intermediate_certificate`.
    ///   - crlBundle: a serialized `CrlBundle` as a device sends it in `crl`; `nil` or empty means none.
    ///   - crlPolicy: whether a CRL is required; `nil` uses ``policy``'s (`CastDeviceAuthPolicy.crlPolicy`).
    ///   - time: when to verify the certificates (and when the CRL must be usable).
    ///   - crlVerificationTime: when to verify the CRL itself; `nil` means `time`.
    /// - Returns: the verified path, anchor included, with the CRL that was checked.
    /// - Throws: `CastDeviceAuthError`; `CastDeviceAuthError.Code.verificationResult` names its result as the
    ///   suite does: `CastDeviceAuthError.Code.invalidCRL`, `CastDeviceAuthError.Code.missingCRL`,
    ///   `CastDeviceAuthError.Code.malformedCertificate`, `CastDeviceAuthError.Code.untrustedChain`,
    ///   `CastDeviceAuthError.Code.weakKey`, `CastDeviceAuthError.Code.crlExpiredAfterVerification` or
    ///   `CastDeviceAuthError.Code.revoked`.
    public func verifyCertificatePath(
        _ chainDER: [[UInt8]], crlBundle: [UInt8]? = nil, crlPolicy: CastCRLPolicy? = nil, at time: Date,
        crlVerificationTime: Date? = nil
    ) throws(CastDeviceAuthError) -> CastDeviceCertificatePath {
        let crlPolicy = crlPolicy ?? policy.crlPolicy
        var crl: DeviceAuthCRL?
        var crlProblem: CastDeviceAuthError?
        if let crlBundle, !crlBundle.isEmpty {
            do {
                crl = try DeviceAuthCRL(bundle: crlBundle, roots: trustStore.parsedCRLRoots(), now: crlVerificationTime ?? time)
            } catch {
                guard crlPolicy == .optional else { throw error }
                crlProblem = error  // Chrome and Open Screen go on without a CRL that does not verify
            }
        } else if crlPolicy == .required {
            throw CastDeviceAuthError(code: .missingCRL, message: "No CRL was given and the CRL policy requires one")
        }
        guard let deviceDER = chainDER.first else {
            throw CastDeviceAuthError(code: .malformedCertificate, message: "The path holds no device certificate")
        }
        let device = try DeviceAuthCertificate.parse(deviceDER, role: "The device certificate")
        var intermediates: [DeviceAuthCertificate] = []
        for (index, der) in chainDER.dropFirst().enumerated() {
            intermediates.append(try DeviceAuthCertificate.parse(der, role: "Intermediate certificate \(index + 1)"))
        }
        let path = try DeviceAuthPathBuilder.buildPath(
            target: device, intermediates: intermediates, anchors: trustStore.parsedDeviceRoots(), now: time, purpose: .device)
        try crl?.checkRevocation(of: path, now: time)
        return CastDeviceCertificatePath(path: path, crl: crl, unusedCRLReason: crlProblem)
    }

    /// Verifies a CRL bundle on its own at `time` against ``trustStore``'s CRL roots (check 1 of
    /// ``verifyCertificatePath(_:crlBundle:crlPolicy:at:crlVerificationTime:)``, as Open Screen's `ParseAndVerifyCRL`).
    /// - Returns: the CRL's window, signer and what it revokes.
    /// - Throws: `CastDeviceAuthError` with `CastDeviceAuthError.Code.invalidCRL`.
    public func verifyCRL(_ crlBundle: [UInt8], at time: Date) throws(CastDeviceAuthError) -> CastDeviceCRLInfo {
        CastDeviceCRLInfo(try DeviceAuthCRL(bundle: crlBundle, roots: trustStore.parsedCRLRoots(), now: time))
    }

    /// Verifies an RSASSA-PKCS1-v1_5 signature over `data` with the public key of a device certificate.
    ///
    /// This is the second step of device authentication, where `data` is `sender_nonce || DER(TLS certificate)`;
    /// it checks only the signature (verify the certificate with
    /// ``verifyCertificatePath(_:crlBundle:crlPolicy:at:crlVerificationTime:)``).
    /// - Throws: `CastDeviceAuthError` with `CastDeviceAuthError.Code.badSignature` when the signature is
    ///   empty or does not verify, `CastDeviceAuthError.Code.unsupportedAlgorithm` when the certificate's key
    ///   is not RSA, `CastDeviceAuthError.Code.malformedCertificate` when it does not parse.
    public static func verifySignature(
        _ signature: [UInt8], over data: [UInt8], hashAlgorithm: CastDeviceAuthHashAlgorithm, deviceCertificateDER: [UInt8]
    ) throws(CastDeviceAuthError) {
        let device = try DeviceAuthCertificate.parse(deviceCertificateDER, role: "The device certificate")
        guard device.isRSA else {
            throw CastDeviceAuthError(
                code: .unsupportedAlgorithm,
                message: "The device certificate holds a \(device.publicKeyAlgorithmName) key, not RSA")
        }
        let algorithm = hashAlgorithm == .sha256 ? GNUTLS_SIGN_RSA_SHA256 : GNUTLS_SIGN_RSA_SHA1
        guard device.publicKey.verify(algorithm, data: data, signature: signature) else {
            throw CastDeviceAuthError(
                code: .badSignature,
                message: "The \(hashAlgorithm.rawValue.uppercased()) signature does not verify with the key of \(device.displayName)")
        }
    }

    /// The DER certificates in `bytes`: PEM text with one or more `CERTIFICATE` blocks (text around them is
    /// ignored), or one or more concatenated DER certificates. Nothing is verified.
    /// - Throws: `CastDeviceAuthError` with `CastDeviceAuthError.Code.malformedCertificate` when the bytes are
    ///   neither, or a PEM block or DER element is not a certificate.
    public static func certificatesDER(fromPEMOrDER bytes: [UInt8]) throws(CastDeviceAuthError) -> [[UInt8]] {
        if let text = String(validating: bytes, as: UTF8.self), text.contains("-----BEGIN CERTIFICATE-----") {
            do {
                return try pemCertificatesToDER(text)
            } catch {
                throw CastDeviceAuthError(code: .malformedCertificate, message: error.message, cause: error)
            }
        }
        guard let elements = deviceAuthDERElements(bytes[...]), elements.allSatisfy({ $0.tag == 0x30 }) else {
            throw CastDeviceAuthError(
                code: .malformedCertificate, message: "The bytes are neither PEM certificates nor concatenated DER certificates")
        }
        var certificates: [[UInt8]] = []
        for (index, element) in elements.enumerated() {
            let der = Array(element.encoding)
            _ = try DeviceAuthCertificate.parse(der, role: "DER certificate \(index + 1)")
            certificates.append(der)
        }
        return certificates
    }
}
