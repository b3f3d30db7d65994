public import CastCore
import Foundation

// Reading certificates and CRLs into the descriptions of CastCore (GnuTLS parses them).

extension CastDeviceCertificateInfo {
    /// Reads a DER certificate.
    /// - Throws: `CastDeviceAuthError` with `malformedCertificate` when it does not parse.
    public init(der: [UInt8]) throws(CastDeviceAuthError) {
        self.init(try DeviceAuthCertificate.parse(der))
    }

    init(_ certificate: DeviceAuthCertificate) {
        let hex = deviceAuthHex(certificate.serialNumber).drop(while: { $0 == "0" })
        self.init(
            der: certificate.der, subject: certificate.subjectText, issuer: certificate.issuerText,
            commonName: certificate.commonName, serialNumber: hex.isEmpty ? "0" : String(hex),
            notBefore: certificate.notBefore, notAfter: certificate.notAfter,
            publicKeyAlgorithm: certificate.publicKeyAlgorithmName, publicKeyBits: certificate.keyBits,
            isCertificateAuthority: certificate.basicConstraints?.isCA ?? false,
            pathLengthConstraint: certificate.basicConstraints?.pathLength, policies: certificate.policies,
            sha256Fingerprint: deviceAuthHex(deviceAuthSHA256(certificate.der)))
    }
}

extension CastDeviceCRLInfo {
    init(_ crl: DeviceAuthCRL) {
        self.init(
            notBefore: crl.notBefore, notAfter: crl.crlNotAfter, usableUntil: crl.notAfter,
            signer: CastDeviceCertificateInfo(crl.signer), revokedPublicKeyCount: crl.revokedKeyHashes.count,
            revokedSerialRangeCount: crl.revokedSerialRanges.values.reduce(0) { $0 + $1.count })
    }
}

extension CastDeviceCertificatePath {
    init(path: [DeviceAuthCertificate], crl: DeviceAuthCRL?, unusedCRLReason: CastDeviceAuthError?) {
        self.init(
            certificates: path.map(CastDeviceCertificateInfo.init),
            isAudioOnly: path.contains { $0.policies.contains(CastDeviceAuthResult.audioOnlyPolicyOID) },
            crl: crl.map(CastDeviceCRLInfo.init), unusedCRLReason: unusedCRLReason)
    }
}

/// Lowercase hexadecimal.
func deviceAuthHex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return text
}
