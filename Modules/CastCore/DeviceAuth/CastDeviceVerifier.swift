public import Foundation

/// Checks that the device at the other end of a transport is a genuine Cast device: Google's
/// device authentication, one challenge and its answer, checked against the TLS certificate the
/// transport saw.
///
/// A connection (`CastConnection` in CastChannels) runs the exchange; the check itself needs X.509
/// and RSA, so it lives with the TLS implementation: CastTLS's `TLSCastTransport` offers its
/// verifier as ``CastTransport/deviceVerifier``, and a connection uses it unless it is given
/// another. A transport without TLS (``InMemoryCastTransport``) offers none, and the check is
/// skipped (``CastDeviceAuthStatus/notChecked``).
///
/// Implementation requirements: both methods are pure (no I/O, time given as a parameter) and may
/// be called from any thread.
public protocol CastDeviceVerifier: Sendable {
    /// A new challenge, to send as the first message after the TLS handshake.
    func makeChallenge() -> CastDeviceAuthChallenge

    /// The outcome of the exchange.
    /// - Parameters:
    ///   - reply: the first message received on the device-authentication namespace; `nil` when none
    ///     came in time (a ``CastDeviceAuthError/Code/noResponse`` failure).
    ///   - challenge: the challenge that was sent.
    ///   - peerCertificateDER: the TLS certificate the transport saw; `nil` when it saw none.
    ///   - trustStore: the roots a genuine device must chain to.
    ///   - policy: nonce and CRL requirements; ``CastDeviceAuthStatus/notChecked`` when its mode is `.off`.
    ///   - now: the verification time.
    func evaluate(
        reply: CastMessage?, to challenge: CastDeviceAuthChallenge, peerCertificateDER: [UInt8]?, trustStore: CastTrustStore,
        policy: CastDeviceAuthPolicy, now: Date
    ) -> CastDeviceAuthStatus
}
