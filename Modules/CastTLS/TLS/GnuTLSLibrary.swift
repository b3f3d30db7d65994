internal import CGnuTLS

/// Process-wide GnuTLS initialisation, done once and lazily.
enum GnuTLSLibrary {
    /// The result of the one `gnutls_global_init()` call (Swift runs a static initialiser once, thread-safely).
    private static let initResult: Int32 = gnutls_global_init()

    /// Makes sure `gnutls_global_init()` ran; throws if it failed.
    static func ensureInitialized() throws(TLSError) {
        let result = initResult
        guard result >= 0 else {
            throw TLSError(code: .libraryFailure, message: "gnutls_global_init failed", gnutls: result)
        }
    }

    /// Throws a ``TLSError`` with `code` when `result` is a GnuTLS error.
    static func check(_ result: Int32, _ code: TLSError.Code, _ what: @autoclosure () -> String) throws(TLSError) {
        if result < 0 {
            throw TLSError(code: code, message: what(), gnutls: result)
        }
    }
}
