import Foundation

/// A certificate and its private key, presented by the TLS server side (the emulated receiver).
///
/// Immutable after creation and safe to share between any number of connections and threads.
/// Create one with ``selfSigned(commonName:validity:keyBits:)`` or from PEM/DER files.
public final class TLSCredentials: Sendable {
    /// The longest validity a generated certificate may have: 3 days.
    public static let maximumValidity: Duration = .seconds(3 * 24 * 3600)

    /// The certificate in DER form (what a TLS peer receives).
    public let certificateDER: [UInt8]
    /// The certificate in PEM form.
    public let certificatePEM: String
    /// The private key in PEM form (PKCS#1 for generated RSA keys); for device-authentication signing.
    package let privateKeyPEM: String
    /// The start of the certificate's validity period.
    public let notBefore: Date
    /// The end of the certificate's validity period.
    public let notAfter: Date
    /// The subject's common name (CN), if it has one.
    public let commonName: String?
    /// The GnuTLS credentials handle every server session shares.
    let gnutlsCredentials: GnuTLSCertificateCredentials

    /// Loads a PEM certificate and its unencrypted PEM private key.
    /// - Throws: ``TLSError`` with code ``TLSError/Code/invalidCredentials`` when either does not parse
    ///   or the key does not belong to the certificate.
    public convenience init(certificatePEM: String, privateKeyPEM: String) throws(TLSError) {
        let certificate = try GnuTLSX509Certificate(bytes: Array(certificatePEM.utf8), pem: true)
        let key = try GnuTLSX509PrivateKey(bytes: Array(privateKeyPEM.utf8), pem: true)
        try self.init(certificate: certificate, key: key)
    }

    /// Loads a DER certificate and its unencrypted DER private key (PKCS#1 or PKCS#8).
    /// - Throws: ``TLSError`` with code ``TLSError/Code/invalidCredentials`` when either does not parse
    ///   or the key does not belong to the certificate.
    public convenience init(certificateDER: [UInt8], privateKeyDER: [UInt8]) throws(TLSError) {
        let certificate = try GnuTLSX509Certificate(bytes: certificateDER, pem: false)
        let key = try GnuTLSX509PrivateKey(bytes: privateKeyDER, pem: false)
        try self.init(certificate: certificate, key: key)
    }

    /// Builds credentials from parsed GnuTLS objects (normalising both to PEM for GnuTLS).
    init(certificate: GnuTLSX509Certificate, key: GnuTLSX509PrivateKey) throws(TLSError) {
        let certificatePEMBytes = try certificate.export(pem: true)
        let keyPEMBytes = try key.export(pem: true)
        gnutlsCredentials = try GnuTLSCertificateCredentials(certificatePEM: certificatePEMBytes, privateKeyPEM: keyPEMBytes)
        certificateDER = try certificate.export(pem: false)
        certificatePEM = String(decoding: certificatePEMBytes, as: UTF8.self)
        privateKeyPEM = String(decoding: keyPEMBytes, as: UTF8.self)
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        commonName = certificate.subjectCommonName
    }
}
