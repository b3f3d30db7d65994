/// How a connection treats device authentication.
///
/// ``Mode-swift.enum/report`` (the default) challenges the device and exposes the outcome while the
/// session continues whatever it is; ``Mode-swift.enum/require`` refuses a device that does not prove it is
/// genuine; ``Mode-swift.enum/off`` sends no challenge (like pychromecast and most open-source senders).
public struct CastDeviceAuthPolicy: Sendable, Hashable {
    /// Whether to challenge, and what to do with the outcome.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Send no challenge; the status stays ``CastDeviceAuthStatus/notChecked``.
        case off
        /// Challenge and verify, expose the status, continue the session whatever it is.
        case report
        /// Challenge and verify; close the connection unless the device is verified genuine.
        case require
    }

    /// Whether to challenge, and what to do with the outcome.
    public var mode: Mode
    /// Whether the reply must echo the nonce that was sent. Chrome leaves this off by default (some
    /// firmware omits the echo); with it off a missing or different echo is only reported in
    /// ``CastDeviceAuthResult/nonce``, and the signature is still checked over the echoed value.
    public var enforceNonce: Bool
    /// Whether the reply must carry a CRL bundle that verifies. Off by default (Open Screen's default):
    /// a CRL that verifies is then enforced, one that does not is set aside as Chrome and Open Screen do
    /// (``CastDeviceCertificatePath/unusedCRLReason`` says why), and a missing one is fine.
    public var requireCRL: Bool

    /// ``requireCRL`` as the CRL policy of the certificate path step.
    public var crlPolicy: CastCRLPolicy { requireCRL ? .required : .optional }

    /// Creates a policy.
    public init(mode: Mode = .report, enforceNonce: Bool = false, requireCRL: Bool = false) {
        self.mode = mode
        self.enforceNonce = enforceNonce
        self.requireCRL = requireCRL
    }

    /// No challenge.
    public static let off = CastDeviceAuthPolicy(mode: .off)
    /// Challenge, report, continue (the default).
    public static let report = CastDeviceAuthPolicy(mode: .report)
    /// Challenge and refuse devices that are not verified genuine.
    public static let require = CastDeviceAuthPolicy(mode: .require)

    /// Whether a connection may continue with a device whose authentication ended in `status`:
    /// always, except in ``Mode-swift.enum/require`` mode when the device is not verified.
    public func admits(_ status: CastDeviceAuthStatus) -> Bool {
        switch mode {
        case .off, .report: true
        case .require: status.isVerified
        }
    }
}
