internal import CGnuTLS
import Foundation

/// A certificate with its private key, used to issue test certificates and sign test CRLs.
final class DeviceAuthKeyPair {
    let certificate: GnuTLSX509Certificate
    let key: GnuTLSX509PrivateKey

    init(certificate: GnuTLSX509Certificate, key: GnuTLSX509PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// Loads PEM certificate and key.
    convenience init(certificatePEM: String, keyPEM: String) throws(CastDeviceAuthError) {
        do {
            self.init(
                certificate: try GnuTLSX509Certificate(bytes: Array(certificatePEM.utf8), pem: true),
                key: try GnuTLSX509PrivateKey(bytes: Array(keyPEM.utf8), pem: true))
        } catch {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "A PEM certificate or key cannot be parsed", cause: error)
        }
    }

    var certificateDER: [UInt8] { (try? certificate.export(pem: false)) ?? [] }
    var certificatePEM: String { String(decoding: (try? certificate.export(pem: true)) ?? [], as: UTF8.self) }
    var keyPEM: String { String(decoding: (try? key.export(pem: true)) ?? [], as: UTF8.self) }
}

/// What kind of certificate ``DeviceAuthCertificateIssuer/issue(_:)`` makes.
struct DeviceAuthCertificateRequest {
    var commonName: String
    var organization: String = "Castor Test"
    var isCA: Bool
    var pathLength: Int? = nil
    var keyBits: Int = 2048
    /// Reuse this key instead of generating one.
    var key: GnuTLSX509PrivateKey? = nil
    var notBefore: Date
    var notAfter: Date
    var policies: [String] = []
    /// A positive serial number that fits 63 bits (Cast CRL serial ranges are 64-bit).
    var serialNumber: UInt64 = UInt64.random(in: 1...UInt64(Int64.max))
    /// The digest of the issuer's signature.
    var digest: gnutls_digest_algorithm_t = GNUTLS_DIG_SHA256
}

/// Makes RSA keys and X.509 v3 certificates through GnuTLS, for test PKIs.
enum DeviceAuthCertificateIssuer {
    /// Issues a certificate; self-signed when `issuer` is `nil`.
    static func issue(_ request: DeviceAuthCertificateRequest, issuer: DeviceAuthKeyPair?) throws(CastDeviceAuthError) -> DeviceAuthKeyPair {
        do {
            return try issueOrThrowTLS(request, issuer: issuer)
        } catch {
            throw CastDeviceAuthError(
                code: .signingFailed, message: "Issuing the certificate '\(request.commonName)' failed", cause: error)
        }
    }

    private static func issueOrThrowTLS(
        _ request: DeviceAuthCertificateRequest, issuer: DeviceAuthKeyPair?
    ) throws(TLSError) -> DeviceAuthKeyPair {
        let key: GnuTLSX509PrivateKey
        if let given = request.key {
            key = given
        } else {
            key = try GnuTLSX509PrivateKey.generateRSA(bits: request.keyBits)
        }
        let certificate = try GnuTLSX509Certificate()
        let crt = certificate.handle
        let failed = TLSError.Code.certificateGeneration
        try GnuTLSLibrary.check(gnutls_x509_crt_set_version(crt, 3), failed, "Setting the version failed")
        var serial = withUnsafeBytes(of: request.serialNumber.bigEndian) { Array($0) }
        while serial.count > 1, serial[0] == 0, serial[1] & 0x80 == 0 { serial.removeFirst() }
        if serial[0] & 0x80 != 0 { serial.insert(0, at: 0) }
        try GnuTLSLibrary.check(gnutls_x509_crt_set_serial(crt, serial, serial.count), failed, "Setting the serial failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_activation_time(crt, time_t(request.notBefore.timeIntervalSince1970.rounded(.down))),
            failed, "Setting notBefore failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_expiration_time(crt, time_t(request.notAfter.timeIntervalSince1970.rounded(.down))),
            failed, "Setting notAfter failed")
        let organization = Array(request.organization.utf8)
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_dn_by_oid(
                crt, castor_gnutls_oid_organization(), 0, organization, UInt32(organization.count)),
            failed, "Setting the organization failed")
        let name = Array(request.commonName.utf8)
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_dn_by_oid(crt, castor_gnutls_oid_common_name(), 0, name, UInt32(name.count)),
            failed, "Setting the common name failed")
        try GnuTLSLibrary.check(gnutls_x509_crt_set_key(crt, key.handle), failed, "Setting the key failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_basic_constraints(crt, request.isCA ? 1 : 0, Int32(request.pathLength ?? -1)),
            failed, "Setting basicConstraints failed")
        let usage =
            request.isCA
            ? castor_gnutls_ku_key_cert_sign() | castor_gnutls_ku_crl_sign()
            : castor_gnutls_ku_digital_signature()
        try GnuTLSLibrary.check(gnutls_x509_crt_set_key_usage(crt, usage), failed, "Setting keyUsage failed")
        for oid in request.policies {
            let result = oid.withCString { castor_gnutls_crt_add_policy(crt, $0) }
            try GnuTLSLibrary.check(result, failed, "Setting the certificate policy \(oid) failed")
        }
        var keyID = [UInt8](repeating: 0, count: 64)
        var keyIDSize = keyID.count
        try GnuTLSLibrary.check(gnutls_x509_crt_get_key_id(crt, 0, &keyID, &keyIDSize), failed, "Computing the key id failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_subject_key_id(crt, keyID, keyIDSize), failed, "Setting the subject key id failed")
        let signer = issuer ?? DeviceAuthKeyPair(certificate: certificate, key: key)
        try GnuTLSLibrary.check(
            gnutls_x509_crt_sign2(crt, signer.certificate.handle, signer.key.handle, request.digest, 0), failed,
            "Signing the certificate failed")
        // Round-trip through DER so the object reflects exactly what peers will parse.
        let der = try certificate.export(pem: false)
        return DeviceAuthKeyPair(certificate: try GnuTLSX509Certificate(bytes: der, pem: false), key: key)
    }

    /// Signs `data` with `key` (RSASSA-PKCS1-v1_5).
    static func sign(_ data: [UInt8], with key: GnuTLSX509PrivateKey, hash: CastDeviceAuthHashAlgorithm) throws(CastDeviceAuthError) -> [UInt8] {
        do {
            return try GnuTLSPrivateKey(key).sign(hash == .sha256 ? GNUTLS_DIG_SHA256 : GNUTLS_DIG_SHA1, data: data)
        } catch {
            throw CastDeviceAuthError(code: .signingFailed, message: "Signing with the \(hash.rawValue) hash failed", cause: error)
        }
    }
}
