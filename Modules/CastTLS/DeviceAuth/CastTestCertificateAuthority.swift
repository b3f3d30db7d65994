public import Foundation
internal import SwiftProtobuf

/// A private Cast PKI for tests and development: a device root CA with an intermediate CA that issues
/// device certificates, and a CRL root CA with a CRL signer that signs CRL bundles.
///
/// Mirrors the shape of Google's PKI (root → intermediate → device; CRL root → signer) with RSA-2048
/// keys, so a sender trusting ``trustStore`` verifies devices issued here exactly as it verifies real
/// ones against the public Cast roots. Store it with ``write(to:)`` and reload it with
/// ``init(directory:)`` to share the root between an emulated receiver and a sender.
/// Immutable; certificates and keys are kept as PEM text.
public final class CastTestCertificateAuthority: Sendable {
    /// The device root CA certificate (PEM): add it to a sender's trust store.
    public let rootCertificatePEM: String
    /// The CRL root CA certificate (PEM).
    public let crlRootCertificatePEM: String
    let rootKeyPEM: String
    let intermediateCertificatePEM: String
    let intermediateKeyPEM: String
    let crlRootKeyPEM: String
    let crlSignerCertificatePEM: String
    let crlSignerKeyPEM: String

    /// The file names ``write(to:)`` uses, in a fixed order.
    static let fileNames = [
        "root.crt", "root.key", "intermediate.crt", "intermediate.key",
        "crl-root.crt", "crl-root.key", "crl-signer.crt", "crl-signer.key",
    ]

    /// A trust store holding this authority's device root and CRL root.
    public var trustStore: CastTrustStore {
        // Both PEMs were produced or validated by this class.
        (try? CastTrustStore(deviceRootsPEM: rootCertificatePEM, crlRootsPEM: crlRootCertificatePEM))
            ?? CastTrustStore.cast
    }

    /// Generates a new authority: four RSA-2048 keys, CA certificates valid from a day before `now` for `validity`.
    /// - Parameters:
    ///   - name: the prefix of the certificates' common names.
    ///   - now: the time the certificates are issued at.
    ///   - validity: how long after `now` the certificates stay valid.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.signingFailed` when GnuTLS fails.
    public static func generate(
        name: String = "Castor Test", now: Date = Date(), validity: TimeInterval = 20 * 365 * 24 * 3600
    ) throws(CastDeviceAuthError) -> CastTestCertificateAuthority {
        let start = now.addingTimeInterval(-24 * 3600)
        let end = now.addingTimeInterval(validity)
        let root = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: "\(name) Root CA", isCA: true, pathLength: 2, notBefore: start, notAfter: end), issuer: nil)
        let intermediate = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: "\(name) Intermediate CA", isCA: true, pathLength: 0, notBefore: start, notAfter: end),
            issuer: root)
        let crlRoot = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: "\(name) CRL Root CA", isCA: true, pathLength: 1, notBefore: start, notAfter: end), issuer: nil)
        let crlSigner = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: "\(name) CRL Signer", isCA: false, notBefore: start, notAfter: end), issuer: crlRoot)
        return CastTestCertificateAuthority(
            root: root, intermediate: intermediate, crlRoot: crlRoot, crlSigner: crlSigner)
    }

    init(root: DeviceAuthKeyPair, intermediate: DeviceAuthKeyPair, crlRoot: DeviceAuthKeyPair, crlSigner: DeviceAuthKeyPair) {
        rootCertificatePEM = root.certificatePEM
        rootKeyPEM = root.keyPEM
        intermediateCertificatePEM = intermediate.certificatePEM
        intermediateKeyPEM = intermediate.keyPEM
        crlRootCertificatePEM = crlRoot.certificatePEM
        crlRootKeyPEM = crlRoot.keyPEM
        crlSignerCertificatePEM = crlSigner.certificatePEM
        crlSignerKeyPEM = crlSigner.keyPEM
    }

    /// Loads an authority written by ``write(to:)``.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.invalidCredentials` when a file is
    ///   missing or does not parse.
    public convenience init(directory: URL) throws(CastDeviceAuthError) {
        var texts: [String] = []
        for name in Self.fileNames {
            do {
                texts.append(try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            } catch {
                throw CastDeviceAuthError(
                    code: .invalidCredentials, message: "Cannot read \(name) in \(directory.path)", cause: error)
            }
        }
        self.init(
            root: try DeviceAuthKeyPair(certificatePEM: texts[0], keyPEM: texts[1]),
            intermediate: try DeviceAuthKeyPair(certificatePEM: texts[2], keyPEM: texts[3]),
            crlRoot: try DeviceAuthKeyPair(certificatePEM: texts[4], keyPEM: texts[5]),
            crlSigner: try DeviceAuthKeyPair(certificatePEM: texts[6], keyPEM: texts[7]))
    }

    /// Writes the certificates and keys as PEM files (`root.crt`, `root.key`, `intermediate.*`,
    /// `crl-root.*`, `crl-signer.*`) into `directory`, creating it; keys are written with mode 0600.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.invalidCredentials` on I/O errors.
    public func write(to directory: URL) throws(CastDeviceAuthError) {
        let texts = [
            rootCertificatePEM, rootKeyPEM, intermediateCertificatePEM, intermediateKeyPEM,
            crlRootCertificatePEM, crlRootKeyPEM, crlSignerCertificatePEM, crlSignerKeyPEM,
        ]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in zip(Self.fileNames, texts) {
                let url = directory.appendingPathComponent(name)
                try Data(text.utf8).write(to: url, options: .atomic)
                if name.hasSuffix(".key") {
                    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
                }
            }
        } catch {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "Cannot write to \(directory.path)", cause: error)
        }
    }

    /// Issues device credentials: a fresh device key and certificate (CN = `deviceID`, keyUsage
    /// digitalSignature) under the intermediate CA, with a CRL bundle that revokes nothing of this chain.
    /// - Parameters:
    ///   - deviceID: the device certificate's common name.
    ///   - now: the time the certificate starts (one hour earlier, to tolerate clock skew).
    ///   - validity: how long the device certificate is valid.
    ///   - keyBits: the device key size (below 2048 only to test rejection of weak keys).
    ///   - audioOnly: adds the audio-only certificate policy (OID 1.3.6.1.4.1.11129.2.5.2) to the device certificate.
    ///   - includeCRL: whether the replies ship a CRL bundle.
    ///   - misbehaviour: how the credentials misbehave; some need extra material made here.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.signingFailed` when GnuTLS fails.
    public func issueDevice(
        deviceID: String, now: Date = Date(), validity: TimeInterval = 365 * 24 * 3600, keyBits: Int = 2048,
        audioOnly: Bool = false, includeCRL: Bool = true, misbehaviour: CastDeviceAuthMisbehaviour = .none
    ) throws(CastDeviceAuthError) -> CastDeviceCredentials {
        var intermediate = try DeviceAuthKeyPair(certificatePEM: intermediateCertificatePEM, keyPEM: intermediateKeyPEM)
        let start = now.addingTimeInterval(-3600)
        let intermediateName = intermediate.certificate.subjectCommonName ?? "Castor Test Intermediate CA"
        if misbehaviour == .chainToOtherRoot {
            // A rogue root (not in anyone's trust store) certifies an intermediate with the same name and key.
            let rogueRoot = try DeviceAuthCertificateIssuer.issue(
                .init(commonName: "Castor Rogue Root CA", organization: "Castor Rogue", isCA: true, pathLength: 2,
                      notBefore: start, notAfter: now.addingTimeInterval(validity)),
                issuer: nil)
            intermediate = try DeviceAuthCertificateIssuer.issue(
                .init(commonName: "\(intermediateName) (rogue)", organization: "Castor Rogue", isCA: true, pathLength: 0,
                      key: intermediate.key, notBefore: start, notAfter: now.addingTimeInterval(validity)),
                issuer: rogueRoot)
        }
        let device = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: deviceID, isCA: false, keyBits: keyBits, notBefore: start,
                  notAfter: now.addingTimeInterval(validity),
                  policies: audioOnly ? [CastDeviceAuthResult.audioOnlyPolicyOID] : []),
            issuer: intermediate)

        var crl: [UInt8]? = nil
        switch misbehaviour {
        case .revokedByPublicKey:
            crl = try makeCRLBundle(revokingPublicKeysOf: [device.certificateDER], now: now)
        case .revokedBySerialNumber:
            let serial = (try? DeviceAuthCertificate(der: device.certificateDER))?.serialNumberUInt64 ?? 0
            crl = try makeCRLBundle(
                revokingSerialNumbers: [(issuerCertificateDER: intermediate.certificateDER, range: serial...serial)], now: now)
        case .invalidCRL:
            crl = try makeCRLBundle(now: now, corruptSignature: true)
        default:
            if includeCRL { crl = try makeCRLBundle(revokingPublicKeysOf: [], now: now) }
        }
        return CastDeviceCredentials(
            deviceCertificateDER: device.certificateDER, intermediateCertificatesDER: [intermediate.certificateDER],
            privateKeyPEM: device.keyPEM, crlBundle: crl, misbehaviour: misbehaviour, authority: self)
    }

    /// Makes a serialized `CrlBundle` signed by the CRL signer (RSA-PKCS1v1.5/SHA-256 over `tbs_crl`).
    /// - Parameters:
    ///   - certificatesDER: certificates (DER) whose SPKI SHA-256 hashes are revoked.
    ///   - revokingSerialNumbers: serial ranges revoked under each issuer certificate's SPKI hash.
    ///   - now: the CRL is valid from a day before `now` for `validity`.
    ///   - validity: how long after `now` the CRL stays valid.
    /// - Throws: `CastDeviceAuthError` with `CastDeviceAuthError.Code.invalidCredentials` for unparsable
    ///   certificates, `CastDeviceAuthError.Code.signingFailed` when signing fails.
    public func makeCRLBundle(
        revokingPublicKeysOf certificatesDER: [[UInt8]] = [],
        revokingSerialNumbers: [(issuerCertificateDER: [UInt8], range: ClosedRange<UInt64>)] = [],
        now: Date = Date(), validity: TimeInterval = 30 * 24 * 3600
    ) throws(CastDeviceAuthError) -> [UInt8] {
        try makeCRLBundle(
            revokingPublicKeysOf: certificatesDER, revokingSerialNumbers: revokingSerialNumbers, now: now,
            validity: validity, corruptSignature: false)
    }

    func makeCRLBundle(
        revokingPublicKeysOf certificatesDER: [[UInt8]] = [],
        revokingSerialNumbers: [(issuerCertificateDER: [UInt8], range: ClosedRange<UInt64>)] = [],
        now: Date, validity: TimeInterval = 30 * 24 * 3600, corruptSignature: Bool
    ) throws(CastDeviceAuthError) -> [UInt8] {
        func keyHash(_ der: [UInt8]) throws(CastDeviceAuthError) -> Data {
            do {
                return Data(deviceAuthSHA256(try DeviceAuthCertificate(der: der).subjectPublicKeyInfo))
            } catch {
                throw CastDeviceAuthError(code: .invalidCredentials, message: "A certificate to revoke cannot be parsed", cause: error)
            }
        }
        var tbs = Cast_Certificate_TbsCrl()
        tbs.version = 0
        tbs.notBeforeSeconds = UInt64(max(0, now.timeIntervalSince1970 - 24 * 3600))
        tbs.notAfterSeconds = UInt64(max(0, now.timeIntervalSince1970 + validity))
        // An unrelated entry so that even an "empty" CRL exercises the lookups.
        tbs.revokedPublicKeyHashes = [Data(deviceAuthRandomBytes(32))]
        for der in certificatesDER { tbs.revokedPublicKeyHashes.append(try keyHash(der)) }
        for entry in revokingSerialNumbers {
            var range = Cast_Certificate_SerialNumberRange()
            range.issuerPublicKeyHash = try keyHash(entry.issuerCertificateDER)
            range.firstSerialNumber = entry.range.lowerBound
            range.lastSerialNumber = entry.range.upperBound
            tbs.revokedSerialNumberRanges.append(range)
        }
        let signer = try DeviceAuthKeyPair(certificatePEM: crlSignerCertificatePEM, keyPEM: crlSignerKeyPEM)
        let tbsBytes: [UInt8]
        do { tbsBytes = try tbs.serializedBytes() } catch {
            throw CastDeviceAuthError(code: .signingFailed, message: "The TbsCrl cannot be serialized", cause: error)
        }
        var signature = try DeviceAuthCertificateIssuer.sign(tbsBytes, with: signer.key, hash: .sha256)
        if corruptSignature, !signature.isEmpty { signature[signature.count / 2] ^= 0x5A }
        var crl = Cast_Certificate_Crl()
        crl.tbsCrl = Data(tbsBytes)
        crl.signerCert = Data(signer.certificateDER)
        crl.signature = Data(signature)
        var bundle = Cast_Certificate_CrlBundle()
        bundle.crls = [crl]
        do { return try bundle.serializedBytes() } catch {
            throw CastDeviceAuthError(code: .signingFailed, message: "The CrlBundle cannot be serialized", cause: error)
        }
    }
}
