import Foundation

/// A fixed verification context for fuzzing: the public Cast roots, the Cast Root CA's bytes standing in
/// for the TLS peer certificate (it parses), a fixed nonce and a fixed time (2026-01-01).
private let fuzzNonce = [UInt8](repeating: 0xA5, count: 16)
private let fuzzNow = Date(timeIntervalSince1970: 1_767_225_600)

/// libFuzzer-friendly entry point: parses and verifies arbitrary bytes as a `DeviceAuthMessage` reply
/// payload (with nonce enforcement off and on), then as a CRL bundle and as a certificate. It must
/// return normally for every input; outcomes are discarded.
///
/// SPI rather than `package` so that the separate libFuzzer package (`Tests/Fuzz`) can call it with
/// `@_spi(Fuzzing) import CastTransport`.
@_spi(Fuzzing) public func fuzzAuthResponse(_ bytes: [UInt8]) {
    let peer = CastRootCertificates.castRootCA
    for policy in [CastDeviceAuthPolicy.report, CastDeviceAuthPolicy(mode: .require, enforceNonce: true, requireCRL: true)] {
        let authenticator = CastDeviceAuthenticator(trustStore: .cast, policy: policy)
        _ = try? authenticator.verify(responsePayload: bytes, nonce: fuzzNonce, peerCertificateDER: peer, now: fuzzNow)
    }
    _ = try? DeviceAuthCRL(bundle: bytes, roots: CastTrustStore.cast.parsedCRLRoots(), now: fuzzNow)
    _ = derFirstElementOfSequence(bytes)
    _ = try? DeviceAuthCertificate(der: bytes)
}
