public import CastCore
public import Foundation

/// Google's device authentication as a `CastDeviceVerifier`: the checks of ``CastDeviceAuthenticator``
/// (the device's chain to a Cast root, its CRL, and its signature over the nonce and the TLS certificate).
///
/// ``TLSCastTransport`` offers one as its `deviceVerifier`, so a `CastConnection` over TLS checks the
/// device unless its configuration turns the check off. Give one to a connection over a transport of
/// your own that has the device's TLS certificate.
public struct CastGenuineDeviceVerifier: CastDeviceVerifier {
    /// Creates the verifier.
    public init() {}

    /// A challenge with a fresh 16-byte nonce, asking for a SHA-256 signature.
    public func makeChallenge() -> CastDeviceAuthChallenge {
        CastDeviceAuthenticator().makeChallenge(nonce: CastDeviceAuthenticator.randomNonce(), hashAlgorithm: .sha256)
    }

    /// ``CastDeviceAuthenticator/evaluate(reply:to:peerCertificateDER:now:)`` with `trustStore` and `policy`.
    public func evaluate(
        reply: CastMessage?, to challenge: CastDeviceAuthChallenge, peerCertificateDER: [UInt8]?, trustStore: CastTrustStore,
        policy: CastDeviceAuthPolicy, now: Date
    ) -> CastDeviceAuthStatus {
        CastDeviceAuthenticator(trustStore: trustStore, policy: policy)
            .evaluate(reply: reply, to: challenge, peerCertificateDER: peerCertificateDER, now: now)
    }
}
