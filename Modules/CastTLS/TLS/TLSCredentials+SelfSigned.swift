internal import CGnuTLS
import Foundation

extension TLSCredentials {
    /// Generates an RSA key and a self-signed X.509 certificate for it, valid from now for `validity`.
    ///
    /// This is what the emulated receiver presents; Cast senders do not verify the TLS certificate
    /// (trust comes from device authentication). Generating a 2048-bit key takes up to about a second.
    /// - Parameters:
    ///   - commonName: the subject and issuer common name (CN).
    ///   - validity: how long the certificate is valid; at most ``maximumValidity`` (3 days).
    ///   - keyBits: the RSA modulus size, 1024 to 8192 bits.
    /// - Throws: ``TLSError`` with code ``TLSError/Code/validityTooLong`` for a validity over 3 days,
    ///   ``TLSError/Code/invalidParameter`` for a non-positive validity, a bad key size or an empty
    ///   common name, ``TLSError/Code/certificateGeneration`` when GnuTLS fails.
    public static func selfSigned(
        commonName: String = "Castor Emulated Receiver",
        validity: Duration = .seconds(2 * 24 * 3600),
        keyBits: Int = 2048
    ) throws(TLSError) -> TLSCredentials {
        try selfSigned(commonName: commonName, validity: validity, keyBits: keyBits, notBefore: Date(), allowLongValidity: false)
    }

    /// Like the public ``selfSigned(commonName:validity:keyBits:)`` but with the start time given and,
    /// when `allowLongValidity` is true, no 3-day limit (device-authentication tests need long-lived certificates).
    package static func selfSigned(
        commonName: String,
        validity: Duration,
        keyBits: Int,
        notBefore: Date,
        allowLongValidity: Bool
    ) throws(TLSError) -> TLSCredentials {
        guard validity > .zero else {
            throw TLSError(code: .invalidParameter, message: "The certificate validity must be positive, not \(validity)")
        }
        guard allowLongValidity || validity <= maximumValidity else {
            throw TLSError(
                code: .validityTooLong,
                message: "A self-signed certificate may be valid for at most 3 days; \(validity) was requested")
        }
        guard (1024...8192).contains(keyBits) else {
            throw TLSError(code: .invalidParameter, message: "RSA key size must be 1024 to 8192 bits, not \(keyBits)")
        }
        guard !commonName.isEmpty else {
            throw TLSError(code: .invalidParameter, message: "The certificate common name must not be empty")
        }

        let key = try GnuTLSX509PrivateKey.generateRSA(bits: keyBits)
        let certificate = try GnuTLSX509Certificate()
        let crt = certificate.handle
        let start = notBefore.timeIntervalSince1970.rounded(.down)
        let seconds = validity.components.seconds
        let generationFailed = TLSError.Code.certificateGeneration

        try GnuTLSLibrary.check(gnutls_x509_crt_set_version(crt, 3), generationFailed, "Setting the certificate version failed")
        var serial = [UInt8](repeating: 0, count: 16)
        try GnuTLSLibrary.check(
            gnutls_rnd(GNUTLS_RND_NONCE, &serial, serial.count), generationFailed, "Generating a serial number failed")
        serial[0] = (serial[0] & 0x7F) | 0x01  // positive and exactly 16 bytes long
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_serial(crt, serial, serial.count), generationFailed, "Setting the serial number failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_activation_time(crt, time_t(start)), generationFailed, "Setting notBefore failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_expiration_time(crt, time_t(start) + time_t(seconds)), generationFailed,
            "Setting notAfter failed")
        let name = Array(commonName.utf8)
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_dn_by_oid(crt, castor_gnutls_oid_common_name(), 0, name, UInt32(name.count)),
            generationFailed, "Setting the subject common name failed")
        try GnuTLSLibrary.check(gnutls_x509_crt_set_key(crt, key.handle), generationFailed, "Setting the public key failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_basic_constraints(crt, 0, -1), generationFailed, "Setting basic constraints failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_key_usage(
                crt, castor_gnutls_ku_digital_signature() | castor_gnutls_ku_key_encipherment()),
            generationFailed, "Setting the key usage failed")
        var keyID = [UInt8](repeating: 0, count: 64)
        var keyIDSize = keyID.count
        try GnuTLSLibrary.check(
            gnutls_x509_crt_get_key_id(crt, 0, &keyID, &keyIDSize), generationFailed, "Computing the key id failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_set_subject_key_id(crt, keyID, keyIDSize), generationFailed,
            "Setting the subject key id failed")
        try GnuTLSLibrary.check(
            gnutls_x509_crt_sign2(crt, crt, key.handle, GNUTLS_DIG_SHA256, 0), generationFailed,
            "Self-signing the certificate failed")
        return try TLSCredentials(certificate: certificate, key: key)
    }
}
