internal import CGnuTLS
import Foundation

/// Runs `body` with a `gnutls_datum_t` that points at `bytes` (GnuTLS only reads it).
func withGnuTLSDatum<R>(_ bytes: [UInt8], _ body: (inout gnutls_datum_t) throws(TLSError) -> R) throws(TLSError) -> R {
    var copy = bytes
    return try copy.withUnsafeMutableBufferPointer { buffer throws(TLSError) -> R in
        var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
        return try body(&datum)
    }
}

/// Copies a datum GnuTLS allocated into a Swift array and frees it.
func takeGnuTLSDatum(_ datum: inout gnutls_datum_t) -> [UInt8] {
    defer {
        castor_gnutls_free(datum.data)
        datum.data = nil
        datum.size = 0
    }
    guard let data = datum.data, datum.size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: Int(datum.size)))
}

/// Owns a `gnutls_x509_crt_t`; freed in deinit.
final class GnuTLSX509Certificate {
    let handle: gnutls_x509_crt_t

    /// An empty certificate to fill in.
    init() throws(TLSError) {
        try GnuTLSLibrary.ensureInitialized()
        var crt: gnutls_x509_crt_t?
        try GnuTLSLibrary.check(gnutls_x509_crt_init(&crt), .libraryFailure, "gnutls_x509_crt_init failed")
        guard let crt else { throw TLSError(code: .libraryFailure, message: "gnutls_x509_crt_init returned no handle") }
        handle = crt
    }

    /// Parses a PEM or DER certificate.
    convenience init(bytes: [UInt8], pem: Bool) throws(TLSError) {
        try self.init()
        let result = try withGnuTLSDatum(bytes) { datum in
            gnutls_x509_crt_import(handle, &datum, pem ? GNUTLS_X509_FMT_PEM : GNUTLS_X509_FMT_DER)
        }
        try GnuTLSLibrary.check(result, .invalidCredentials, "The certificate could not be parsed as \(pem ? "PEM" : "DER")")
    }

    deinit { gnutls_x509_crt_deinit(handle) }

    /// The certificate encoded as DER or PEM.
    func export(pem: Bool) throws(TLSError) -> [UInt8] {
        var datum = gnutls_datum_t(data: nil, size: 0)
        let result = gnutls_x509_crt_export2(handle, pem ? GNUTLS_X509_FMT_PEM : GNUTLS_X509_FMT_DER, &datum)
        try GnuTLSLibrary.check(result, .invalidCredentials, "The certificate could not be exported")
        return takeGnuTLSDatum(&datum)
    }

    /// The end of the validity period.
    var notAfter: Date {
        Date(timeIntervalSince1970: TimeInterval(gnutls_x509_crt_get_expiration_time(handle)))
    }

    /// The start of the validity period.
    var notBefore: Date {
        Date(timeIntervalSince1970: TimeInterval(gnutls_x509_crt_get_activation_time(handle)))
    }

    /// The public key's size in bits (the RSA modulus size for RSA keys).
    var publicKeyBits: Int {
        var bits: UInt32 = 0
        _ = gnutls_x509_crt_get_pk_algorithm(handle, &bits)
        return Int(bits)
    }

    /// The first common name (CN) of the subject, if any.
    var subjectCommonName: String? {
        var size = 0
        let oid = castor_gnutls_oid_common_name()
        _ = gnutls_x509_crt_get_dn_by_oid(handle, oid, 0, 0, nil, &size)
        guard size > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: size + 1)
        guard gnutls_x509_crt_get_dn_by_oid(handle, oid, 0, 0, &buffer, &size) >= 0 else { return nil }
        return String(decoding: buffer.prefix(size).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Owns a `gnutls_x509_privkey_t`; freed in deinit.
final class GnuTLSX509PrivateKey {
    let handle: gnutls_x509_privkey_t

    /// An empty key to generate or import into.
    init() throws(TLSError) {
        try GnuTLSLibrary.ensureInitialized()
        var key: gnutls_x509_privkey_t?
        try GnuTLSLibrary.check(gnutls_x509_privkey_init(&key), .libraryFailure, "gnutls_x509_privkey_init failed")
        guard let key else { throw TLSError(code: .libraryFailure, message: "gnutls_x509_privkey_init returned no handle") }
        handle = key
    }

    /// Parses an unencrypted PEM or DER private key (PKCS#1 or PKCS#8).
    convenience init(bytes: [UInt8], pem: Bool) throws(TLSError) {
        try self.init()
        let result = try withGnuTLSDatum(bytes) { datum in
            gnutls_x509_privkey_import2(handle, &datum, pem ? GNUTLS_X509_FMT_PEM : GNUTLS_X509_FMT_DER, nil, 0)
        }
        try GnuTLSLibrary.check(result, .invalidCredentials, "The private key could not be parsed as \(pem ? "PEM" : "DER")")
    }

    /// Generates a fresh RSA key.
    static func generateRSA(bits: Int) throws(TLSError) -> GnuTLSX509PrivateKey {
        let key = try GnuTLSX509PrivateKey()
        let result = gnutls_x509_privkey_generate(key.handle, GNUTLS_PK_RSA, UInt32(bits), 0)
        try GnuTLSLibrary.check(result, .certificateGeneration, "Generating a \(bits)-bit RSA key failed")
        return key
    }

    deinit { gnutls_x509_privkey_deinit(handle) }

    /// The key encoded as DER or PEM (PKCS#1 for RSA).
    func export(pem: Bool) throws(TLSError) -> [UInt8] {
        var datum = gnutls_datum_t(data: nil, size: 0)
        let result = gnutls_x509_privkey_export2(handle, pem ? GNUTLS_X509_FMT_PEM : GNUTLS_X509_FMT_DER, &datum)
        try GnuTLSLibrary.check(result, .invalidCredentials, "The private key could not be exported")
        return takeGnuTLSDatum(&datum)
    }
}
