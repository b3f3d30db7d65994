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
/// `@_spi(Fuzzing) import CastTLS`.
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

/// The time the certificate-path fuzz target verifies at: 2016-08-03, when the production chain and CRL of
/// Open Screen's test suite (its seeds) are valid, so mutations of them reach the path and revocation checks.
private let fuzzPathTime = Date(timeIntervalSince1970: 1_470_182_400)

/// libFuzzer-friendly entry point for CRL bundle and certificate path parsing: the input is tried as a CRL
/// bundle (CRL required, no chain), as a certificate chain (PEM or concatenated DER, through
/// ``CastDeviceAuthenticator/certificatesDER(fromPEMOrDER:)``) and, when its first two bytes give a length
/// `n` (big-endian) that fits, as a chain of `n` bytes followed by a CRL bundle, verified together against the
/// public Cast roots. It must return normally for every input; outcomes are discarded.
@_spi(Fuzzing) public func fuzzCertificatePath(_ bytes: [UInt8]) {
    let authenticator = CastDeviceAuthenticator(trustStore: .cast)
    _ = try? authenticator.verifyCertificatePath([], crlBundle: bytes, crlPolicy: .required, at: fuzzPathTime)
    if let chain = try? CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: bytes) {
        _ = try? authenticator.verifyCertificatePath(chain, at: fuzzPathTime)
    }
    guard bytes.count >= 2 else { return }
    let chainLength = Int(bytes[0]) << 8 | Int(bytes[1])
    guard chainLength <= bytes.count - 2 else { return }
    let chainBytes = Array(bytes[2..<(2 + chainLength)])
    let crl = Array(bytes[(2 + chainLength)...])
    guard let chain = try? CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: chainBytes) else { return }
    _ = try? authenticator.verifyCertificatePath(chain, crlBundle: crl, crlPolicy: .optional, at: fuzzPathTime)
    for certificate in chain {
        _ = try? CastDeviceCertificateInfo(der: certificate)
    }
}
