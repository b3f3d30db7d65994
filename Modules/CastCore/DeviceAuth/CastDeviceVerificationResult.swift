/// The outcome of device authentication named as Google's Open Screen test suite names it.
///
/// The first six cases are the `VerificationResult` values of Open Screen's device-certificate test suite
/// (`cast/common/certificate/proto/test_suite.proto`), which every Cast sender implementation is checked
/// against; ``CastDeviceAuthError/Code/verificationResult`` maps each error code to one of them. The last two
/// name failures outside the certificate path: a signature that does not verify, and everything else the
/// challenge/response exchange can fail on (reply shape, TLS certificate, nonce, receiver error, no reply).
public enum CastDeviceVerificationResult: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The path verified (and the CRL, when one was given or required, verified and revokes nothing).
    case success = "SUCCESS"
    /// The device certificate or its path is invalid: no path to a trusted root, a broken constraint,
    /// a weak key, a certificate outside its validity, or a certificate that cannot be parsed.
    case pathVerificationFailed = "PATH_VERIFICATION_FAILED"
    /// The CRL bundle does not verify at the CRL verification time.
    case crlVerificationFailed = "CRL_VERIFICATION_FAILED"
    /// The CRL revokes a certificate of the path.
    case revocationCheckFailed = "REVOCATION_CHECK_FAILED"
    /// No CRL was given, but the CRL policy requires one.
    case revocationCheckFailedWithoutCRL = "REVOCATION_CHECK_FAILED_WITHOUT_CRL"
    /// The CRL verified at its own verification time, but is no longer valid at the certificate verification time.
    case crlExpiredAfterInitialVerification = "CRL_EXPIRED_AFTER_INITIAL_VERIFICATION"
    /// The signature does not verify with the device certificate's key (not a result of the suite's path cases).
    case signatureVerificationFailed = "SIGNATURE_VERIFICATION_FAILED"
    /// The challenge/response exchange failed before or around the two verification steps (not a suite result).
    case challengeFailed = "CHALLENGE_FAILED"

    /// The result's name, as the suite spells it (`SUCCESS`, `PATH_VERIFICATION_FAILED`, …).
    public var description: String { rawValue }

    /// The result of a verification that threw `error`, or ``success`` when `error` is `nil`.
    public init(_ error: CastDeviceAuthError?) {
        self = error.map { $0.code.verificationResult } ?? .success
    }
}

/// Whether a device certificate path must come with a CRL bundle (Open Screen's `CRLPolicy`).
public enum CastCRLPolicy: String, Sendable, Hashable, CaseIterable {
    /// A CRL bundle that verifies must revoke nothing in the path; one that does not verify is set aside
    /// (Chrome and Open Screen do the same), and without one revocation is not checked.
    case optional
    /// A CRL bundle must be given, verify, and revoke nothing in the path.
    case required
}
