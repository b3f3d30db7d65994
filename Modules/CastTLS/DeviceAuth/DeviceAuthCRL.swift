internal import CGnuTLS
import Foundation
internal import SwiftProtobuf

/// A verified Cast CRL (`TbsCrl` version 0): revoked SPKI SHA-256 hashes and serial ranges per issuer SPKI hash.
struct DeviceAuthCRL {
    let notBefore: Date
    /// The earlier of the CRL's own end and its signer certificate's end.
    let notAfter: Date
    let revokedKeyHashes: Set<[UInt8]>
    let revokedSerialRanges: [[UInt8]: [ClosedRange<UInt64>]]
    /// The end of the CRL's own window (before the signer's end is applied).
    let crlNotAfter: Date
    /// The certificate that signed the CRL.
    let signer: DeviceAuthCertificate

    /// Parses a serialized `CrlBundle` and verifies its first usable CRL (as openscreen does): the signer
    /// certificate chains to a CRL root, its RSA-PKCS1v1.5/SHA-256 signature over `tbs_crl` verifies, and
    /// `now` lies inside the CRL's validity window.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.invalidCRL`.
    init(bundle: [UInt8], roots: [DeviceAuthCertificate], now: Date) throws(CastDeviceAuthError) {
        let parsed: Cast_Certificate_CrlBundle
        do {
            parsed = try Cast_Certificate_CrlBundle(serializedBytes: bundle)
        } catch {
            throw CastDeviceAuthError(code: .invalidCRL, message: "The CRL bundle cannot be parsed", cause: error)
        }
        for crl in parsed.crls {
            guard let tbs = try? Cast_Certificate_TbsCrl(serializedBytes: crl.tbsCrl), tbs.version == 0 else {
                continue  // unknown versions and unparsable entries are skipped, like openscreen does
            }
            try self.init(crl: crl, tbs: tbs, roots: roots, now: now)
            return
        }
        throw CastDeviceAuthError(code: .invalidCRL, message: "The CRL bundle holds no usable version-0 CRL")
    }

    private init(
        crl: Cast_Certificate_Crl, tbs: Cast_Certificate_TbsCrl, roots: [DeviceAuthCertificate], now: Date
    ) throws(CastDeviceAuthError) {
        guard !roots.isEmpty else {
            throw CastDeviceAuthError(code: .invalidCRL, message: "The trust store has no CRL root to verify the CRL with")
        }
        let signer: DeviceAuthCertificate
        do {
            signer = try DeviceAuthCertificate(der: Array(crl.signerCert))
        } catch {
            throw CastDeviceAuthError(code: .invalidCRL, message: "The CRL signer certificate cannot be parsed", cause: error)
        }
        do {
            _ = try DeviceAuthPathBuilder.buildPath(
                target: signer, intermediates: [], anchors: roots, now: now, purpose: .crlSigner)
        } catch {
            throw CastDeviceAuthError(
                code: .invalidCRL, message: "The CRL signer is not trusted: \(error.message)", cause: error)
        }
        guard signer.publicKey.verify(GNUTLS_SIGN_RSA_SHA256, data: Array(crl.tbsCrl), signature: Array(crl.signature))
        else {
            throw CastDeviceAuthError(code: .invalidCRL, message: "The CRL signature does not verify")
        }
        // Seconds beyond the year 9999 are nonsense; cap them so the Date stays meaningful.
        let limit: UInt64 = 253_402_300_799
        let start = Date(timeIntervalSince1970: TimeInterval(min(tbs.notBeforeSeconds, limit)))
        let end = Date(timeIntervalSince1970: TimeInterval(min(tbs.notAfterSeconds, limit)))
        guard start <= now, now <= end else {
            throw CastDeviceAuthError(
                code: .invalidCRL, message: "The CRL is valid from \(start) to \(end), not at \(now)")
        }
        var ranges: [[UInt8]: [ClosedRange<UInt64>]] = [:]
        for range in tbs.revokedSerialNumberRanges {
            guard range.firstSerialNumber <= range.lastSerialNumber else {
                throw CastDeviceAuthError(code: .invalidCRL, message: "The CRL has a serial number range that ends before it starts")
            }
            ranges[Array(range.issuerPublicKeyHash), default: []].append(range.firstSerialNumber...range.lastSerialNumber)
        }
        notBefore = start
        notAfter = min(end, signer.notAfter)
        crlNotAfter = end
        self.signer = signer
        revokedKeyHashes = Set(tbs.revokedPublicKeyHashes.map { Array($0) })
        revokedSerialRanges = ranges
    }

    /// Throws `CastDeviceAuthError.Code.revoked` when the CRL lists a certificate of `path`
    /// (target first, anchor last), by SPKI hash or by serial number under its issuer's SPKI hash.
    /// - Throws: `CastDeviceAuthError.Code.crlExpiredAfterVerification` when `now` lies outside the CRL's
    ///   window (its own, ended early by its signer certificate's end), as Open Screen's `CheckRevocation` refuses it.
    func checkRevocation(of path: [DeviceAuthCertificate], now: Date) throws(CastDeviceAuthError) {
        guard notBefore <= now, now <= notAfter else {
            throw CastDeviceAuthError(
                code: .crlExpiredAfterVerification,
                message: "The CRL is usable from \(notBefore) to \(notAfter) (its own window ended by its signer's), not at \(now)")
        }
        for index in path.indices.reversed() {
            let certificate = path[index]
            let keyHash = deviceAuthSHA256(certificate.subjectPublicKeyInfo)
            if revokedKeyHashes.contains(keyHash) {
                throw CastDeviceAuthError(
                    code: .revoked, message: "The CRL revokes the public key of \(certificate.displayName)")
            }
            guard index > 0, let ranges = revokedSerialRanges[keyHash] else { continue }
            let subordinate = path[index - 1]
            guard let serial = subordinate.serialNumberUInt64 else { continue }  // only 64-bit serials are revocable by range
            if ranges.contains(where: { $0.contains(serial) }) {
                throw CastDeviceAuthError(
                    code: .revoked,
                    message: "The CRL revokes serial number \(serial) of \(subordinate.displayName) issued by \(certificate.displayName)")
            }
        }
    }
}
