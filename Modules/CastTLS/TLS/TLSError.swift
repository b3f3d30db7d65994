internal import CGnuTLS

/// A failure of the TLS layer (GnuTLS): a failed handshake, a broken record stream, a peer that
/// vanished without `close_notify`, unusable credentials.
///
/// The GnuTLS error number and its text are kept when GnuTLS reported the failure.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case handshakeFailed, uncleanShutdown, recordFailed, closed
            case invalidCredentials, certificateGeneration, validityTooLong, invalidParameter, libraryFailure
        }
        private let base: Base
        /// The TLS handshake failed (the peer does not speak TLS, sent an alert, closed mid-handshake, …).
        public static let handshakeFailed = Code(base: .handshakeFailed)
        /// The connection ended after the handshake without the peer's `close_notify` alert.
        public static let uncleanShutdown = Code(base: .uncleanShutdown)
        /// Encrypting or decrypting application data failed (corrupt or unexpected record, fatal alert).
        public static let recordFailed = Code(base: .recordFailed)
        /// Data was written after the TLS connection was shut down or failed.
        public static let closed = Code(base: .closed)
        /// A certificate or private key could not be parsed, or they do not belong together.
        public static let invalidCredentials = Code(base: .invalidCredentials)
        /// Generating a key or self-signed certificate failed.
        public static let certificateGeneration = Code(base: .certificateGeneration)
        /// A requested certificate validity is longer than the permitted maximum (3 days).
        public static let validityTooLong = Code(base: .validityTooLong)
        /// A parameter is out of range (for example a non-positive validity or an odd key size).
        public static let invalidParameter = Code(base: .invalidParameter)
        /// GnuTLS itself could not be initialised or set up a session.
        public static let libraryFailure = Code(base: .libraryFailure)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The GnuTLS error number (negative, e.g. -110 for `GNUTLS_E_PREMATURE_TERMINATION`), when GnuTLS reported it.
    public var gnutlsErrorCode: Int?
    /// GnuTLS's description of ``gnutlsErrorCode`` (`gnutls_strerror`), when there is one.
    public var gnutlsDescription: String?

    /// Creates an error.
    public init(code: Code, message: String, gnutlsErrorCode: Int? = nil, gnutlsDescription: String? = nil) {
        self.code = code
        self.message = message
        self.gnutlsErrorCode = gnutlsErrorCode
        self.gnutlsDescription = gnutlsDescription
    }

    /// `code: message (GnuTLS <number>: <text>)`.
    public var description: String {
        var text = "\(code): \(message)"
        if let gnutlsErrorCode {
            text += " (GnuTLS \(gnutlsErrorCode)"
            if let gnutlsDescription { text += ": \(gnutlsDescription)" }
            text += ")"
        }
        return text
    }
}

extension TLSError {
    /// An error carrying GnuTLS's number, symbolic name and text for `result`.
    init(code: Code, message: String, gnutls result: Int32) {
        var described = message
        if let name = gnutls_strerror_name(result) {
            described += " [\(String(cString: name))]"
        }
        self.init(
            code: code, message: described, gnutlsErrorCode: Int(result),
            gnutlsDescription: gnutls_strerror(result).map { String(cString: $0) })
    }
}
