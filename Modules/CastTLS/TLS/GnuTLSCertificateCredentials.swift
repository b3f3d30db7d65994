internal import CGnuTLS

/// Owns a `gnutls_certificate_credentials_t`; freed in deinit.
///
/// `@unchecked Sendable` is safe because the handle is configured completely inside `init` and never
/// mutated afterwards; GnuTLS documents certificate credentials as safe to share read-only between
/// sessions on different threads once set up.
final class GnuTLSCertificateCredentials: @unchecked Sendable {
    let handle: gnutls_certificate_credentials_t

    /// Credentials without a certificate (a client that presents none and verifies nothing itself).
    init() throws(TLSError) {
        try GnuTLSLibrary.ensureInitialized()
        var credentials: gnutls_certificate_credentials_t?
        try GnuTLSLibrary.check(
            gnutls_certificate_allocate_credentials(&credentials), .libraryFailure,
            "gnutls_certificate_allocate_credentials failed")
        guard let credentials else {
            throw TLSError(code: .libraryFailure, message: "gnutls_certificate_allocate_credentials returned no handle")
        }
        handle = credentials
    }

    /// Credentials presenting `certificatePEM` with its `privateKeyPEM`.
    convenience init(certificatePEM: [UInt8], privateKeyPEM: [UInt8]) throws(TLSError) {
        try self.init()
        let result = try withGnuTLSDatum(certificatePEM) { certificate throws(TLSError) in
            try withGnuTLSDatum(privateKeyPEM) { key in
                gnutls_certificate_set_x509_key_mem(handle, &certificate, &key, GNUTLS_X509_FMT_PEM)
            }
        }
        try GnuTLSLibrary.check(result, .invalidCredentials, "The certificate and private key cannot be used together")
    }

    deinit { gnutls_certificate_free_credentials(handle) }
}
