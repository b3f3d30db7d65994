/// Why device authentication failed: the receiver could not prove it is a genuine Cast device,
/// or test credentials could not be created or loaded.
///
/// Match on ``code``; new codes may be added later without breaking a `switch` over the ones you handle.
public struct CastDeviceAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case expiredTLSCertificate, tlsCertificateValidTooLong, invalidTLSCertificate
            case untrustedChain, weakKey, badSignature, nonceMismatch, revoked, unsupportedAlgorithm
            case receiverError, malformedResponse, invalidCRL, noResponse
            case malformedCertificate, missingCRL, crlExpiredAfterVerification
            case invalidCredentials, signingFailed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The TLS peer certificate is expired or not valid yet at the verification time.
        public static let expiredTLSCertificate = Code(.expiredTLSCertificate)
        /// The TLS peer certificate is valid for more than 4 days from now; genuine devices rotate it.
        public static let tlsCertificateValidTooLong = Code(.tlsCertificateValidTooLong)
        /// The TLS peer certificate is missing or cannot be parsed.
        public static let invalidTLSCertificate = Code(.invalidTLSCertificate)
        /// The device certificate chain does not build to a trusted root, or breaks a constraint
        /// (CA flag, key usage, path length, name constraints, validity, RSA key, unknown critical extension).
        public static let untrustedChain = Code(.untrustedChain)
        /// A certificate of the chain has an RSA key shorter than 2048 bits.
        public static let weakKey = Code(.weakKey)
        /// The challenge signature does not verify with the device certificate's key over
        /// the echoed nonce and the TLS peer certificate.
        public static let badSignature = Code(.badSignature)
        /// The reply does not echo the nonce that was sent (only when nonce enforcement is on).
        public static let nonceMismatch = Code(.nonceMismatch)
        /// The device's CRL revokes a certificate of the chain.
        public static let revoked = Code(.revoked)
        /// The reply's signature scheme is not RSASSA-PKCS1-v1_5, or the device certificate whose key should
        /// verify a signature does not hold an RSA key.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The receiver answered with an `AuthError` (see ``CastDeviceAuthError/receiverErrorType``).
        public static let receiverError = Code(.receiverError)
        /// The reply is not a binary `DeviceAuthMessage` on the device-auth namespace carrying a complete response.
        public static let malformedResponse = Code(.malformedResponse)
        /// The CRL bundle cannot be parsed, holds no version-0 CRL, is outside its validity window at its
        /// verification time, has a serial-number range that ends before it starts, or is not signed by a
        /// certificate chaining to a CRL root.
        public static let invalidCRL = Code(.invalidCRL)
        /// No CRL bundle was given and the CRL policy (``CastCRLPolicy/required``) requires one.
        public static let missingCRL = Code(.missingCRL)
        /// The CRL verified at its own verification time, but at the (later or earlier) certificate
        /// verification time it, or the certificate that signed it, is not valid: the revocation check cannot use it.
        public static let crlExpiredAfterVerification = Code(.crlExpiredAfterVerification)
        /// A certificate of the device's path cannot be parsed (or the path holds no certificate).
        public static let malformedCertificate = Code(.malformedCertificate)
        /// No reply arrived (timeout, or the connection ended first).
        public static let noResponse = Code(.noResponse)
        /// Certificates or keys given to a trust store or to device credentials cannot be used.
        public static let invalidCredentials = Code(.invalidCredentials)
        /// Generating keys or certificates, or signing, failed in GnuTLS.
        public static let signingFailed = Code(.signingFailed)

        /// The code's name.
        public var description: String { base.rawValue }

        /// The verification result this code reports, in the names of Open Screen's device-certificate test suite.
        ///
        /// Path-step codes (from `CastDeviceAuthenticator.verifyCertificatePath(_:crlBundle:crlPolicy:at:crlVerificationTime:)` in CastTLS)
        /// map to the suite's five failures, signature-step codes (from
        /// `CastDeviceAuthenticator.verifySignature(_:over:hashAlgorithm:deviceCertificateDER:)`) to
        /// ``CastDeviceVerificationResult/signatureVerificationFailed``, the rest of the exchange to
        /// ``CastDeviceVerificationResult/challengeFailed``. Credential-making codes (``invalidCredentials``,
        /// ``signingFailed``) are not verification outcomes and map to ``CastDeviceVerificationResult/challengeFailed`` too.
        public var verificationResult: CastDeviceVerificationResult {
            switch base {
            case .untrustedChain, .weakKey, .malformedCertificate: .pathVerificationFailed
            case .invalidCRL: .crlVerificationFailed
            case .revoked: .revocationCheckFailed
            case .missingCRL: .revocationCheckFailedWithoutCRL
            case .crlExpiredAfterVerification: .crlExpiredAfterInitialVerification
            case .badSignature, .unsupportedAlgorithm: .signatureVerificationFailed
            case .expiredTLSCertificate, .tlsCertificateValidTooLong, .invalidTLSCertificate, .nonceMismatch,
                .receiverError, .malformedResponse, .noResponse, .invalidCredentials, .signingFailed:
                .challengeFailed
            }
        }
    }

    /// The `AuthError.error_type` values a receiver may answer with (an extensible wire value).
    public struct ReceiverErrorType: Sendable, Hashable, CustomStringConvertible {
        /// The wire value of `AuthError.ErrorType`.
        public var rawValue: Int
        /// Creates a value from its wire number.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `INTERNAL_ERROR` (0): the receiver has no credentials or signing failed.
        public static let internalError = ReceiverErrorType(rawValue: 0)
        /// `NO_TLS` (1): the channel is not encrypted.
        public static let noTLS = ReceiverErrorType(rawValue: 1)
        /// `SIGNATURE_ALGORITHM_UNAVAILABLE` (2): the requested signature or hash algorithm is unsupported.
        public static let signatureAlgorithmUnavailable = ReceiverErrorType(rawValue: 2)
        /// The wire name, or the number for unknown values.
        public var description: String {
            switch rawValue {
            case 0: "INTERNAL_ERROR"
            case 1: "NO_TLS"
            case 2: "SIGNATURE_ALGORITHM_UNAVAILABLE"
            default: "\(rawValue)"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The receiver's `AuthError` type, for ``Code/receiverError``.
    public var receiverErrorType: ReceiverErrorType?
    /// The underlying error, if any (for example a GnuTLS `TLSError`).
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(
        code: Code, message: String, receiverErrorType: ReceiverErrorType? = nil, cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.receiverErrorType = receiverErrorType
        self.cause = cause
    }

    /// `code: message (cause)`.
    public var description: String {
        cause.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)"
    }

    /// Errors are equal when code, message and receiver error type are; the cause is informational.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.receiverErrorType == rhs.receiverErrorType
    }

    /// Hashes code, message and receiver error type.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(receiverErrorType)
    }
}
