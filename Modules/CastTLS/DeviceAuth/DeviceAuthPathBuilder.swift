import Foundation

/// Builds and checks a certificate path from a target certificate to a trust anchor
/// (RFC 5280 style, restricted to what Cast chains use).
enum DeviceAuthPathBuilder {
    /// The longest path considered, anchor included.
    static let maximumPathLength = 8
    /// The smallest accepted RSA modulus.
    static let minimumRSABits = 2048

    /// What the path is for: the target certificate's requirements differ.
    enum Purpose {
        /// A device certificate: keyUsage digitalSignature, a subject CN, clientAuth if it lists EKUs.
        case device
        /// A CRL signer: no extra requirement on the target.
        case crlSigner
    }

    /// Finds a path `[target, intermediates…, anchor]` and checks it at `now`.
    /// - Throws: `CastDeviceAuthError` with `CastDeviceAuthError.Code.untrustedChain` or
    ///   `CastDeviceAuthError.Code.weakKey`.
    static func buildPath(
        target: DeviceAuthCertificate, intermediates: [DeviceAuthCertificate], anchors: [DeviceAuthCertificate],
        now: Date, purpose: Purpose
    ) throws(CastDeviceAuthError) -> [DeviceAuthCertificate] {
        let path: [DeviceAuthCertificate]
        if purpose == .crlSigner, anchors.contains(where: { $0.der == target.der }) {
            path = [target]  // the CRL is signed by the root itself
        } else if let found = search([target], intermediates: intermediates, anchors: anchors) {
            path = found
        } else {
            let issuer = target.issuerDN == target.subjectDN ? "itself" : "an unknown issuer"
            throw CastDeviceAuthError(
                code: .untrustedChain,
                message: "No path from \(target.displayName) (issued by \(issuer)) through \(intermediates.count) "
                    + "intermediate certificate(s) to a trusted root")
        }
        try check(path, now: now, purpose: purpose)
        return path
    }

    /// Depth-first search: extends `path` with an anchor or an unused intermediate that issued its last certificate.
    private static func search(
        _ path: [DeviceAuthCertificate], intermediates: [DeviceAuthCertificate], anchors: [DeviceAuthCertificate]
    ) -> [DeviceAuthCertificate]? {
        guard let last = path.last, path.count < maximumPathLength else { return nil }
        if let anchor = anchors.first(where: { last.isIssued(by: $0) }) {
            return path + [anchor]
        }
        for candidate in intermediates where !path.contains(where: { $0.der == candidate.der }) {
            guard last.isIssued(by: candidate) else { continue }
            if let found = search(path + [candidate], intermediates: intermediates, anchors: anchors) {
                return found
            }
        }
        return nil
    }

    /// Checks keys, validity, CA and key-usage constraints, path lengths and critical extensions along `path`
    /// (target first, anchor last).
    private static func check(_ path: [DeviceAuthCertificate], now: Date, purpose: Purpose) throws(CastDeviceAuthError) {
        for certificate in path {
            guard certificate.isRSA else {
                throw CastDeviceAuthError(
                    code: .untrustedChain, message: "Certificate \(certificate.displayName) does not have an RSA key")
            }
            guard certificate.keyBits >= minimumRSABits else {
                throw CastDeviceAuthError(
                    code: .weakKey,
                    message: "Certificate \(certificate.displayName) has a \(certificate.keyBits)-bit RSA key; "
                        + "at least \(minimumRSABits) bits are required")
            }
        }
        // Every certificate but the anchor must be valid now and carry no unknown critical extension.
        for certificate in path.dropLast() where path.count > 1 {
            guard certificate.notBefore <= now else {
                throw CastDeviceAuthError(
                    code: .untrustedChain,
                    message: "Certificate \(certificate.displayName) is not valid before \(certificate.notBefore)")
            }
            guard now <= certificate.notAfter else {
                throw CastDeviceAuthError(
                    code: .untrustedChain, message: "Certificate \(certificate.displayName) expired at \(certificate.notAfter)")
            }
            if let oid = certificate.unknownCriticalExtensions.first {
                throw CastDeviceAuthError(
                    code: .untrustedChain,
                    message: "Certificate \(certificate.displayName) has an unsupported critical extension \(oid)")
            }
        }
        // Issuers: CA, keyCertSign when key usage is listed, path length.
        for (index, issuer) in path.enumerated() where index > 0 {
            guard let constraints = issuer.basicConstraints, constraints.isCA else {
                throw CastDeviceAuthError(
                    code: .untrustedChain, message: "Issuer \(issuer.displayName) is not a CA (basicConstraints)")
            }
            if let usage = issuer.keyUsage, usage & castorKeyUsageKeyCertSign == 0 {
                throw CastDeviceAuthError(
                    code: .untrustedChain, message: "Issuer \(issuer.displayName) may not sign certificates (keyUsage)")
            }
            if issuer.mapsAnyPolicy {
                throw CastDeviceAuthError(
                    code: .untrustedChain, message: "Issuer \(issuer.displayName) maps a policy from or to anyPolicy")
            }
            // Name constraints bind every certificate below the issuer: the target always, the others unless self-issued.
            if let nameConstraints = issuer.nameConstraints {
                for (depth, subject) in path.prefix(index).enumerated()
                where depth == 0 || subject.subjectDN != subject.issuerDN {
                    guard nameConstraints.permits(subject) else {
                        throw CastDeviceAuthError(
                            code: .untrustedChain,
                            message: "Certificate \(subject.displayName) violates the name constraints of \(issuer.displayName)")
                    }
                }
            }
            // Intermediate CA certificates between this issuer and the target.
            let intermediateCount = index - 1
            if let limit = constraints.pathLength, intermediateCount > limit {
                throw CastDeviceAuthError(
                    code: .untrustedChain,
                    message: "Issuer \(issuer.displayName) allows \(limit) intermediate certificate(s) below it, "
                        + "the path has \(intermediateCount)")
            }
        }
        guard purpose == .device, let target = path.first else { return }
        guard let usage = target.keyUsage, usage & castorKeyUsageDigitalSignature != 0 else {
            throw CastDeviceAuthError(
                code: .untrustedChain,
                message: "Device certificate \(target.displayName) lacks the digitalSignature key usage")
        }
        guard let name = target.commonName, !name.isEmpty else {
            throw CastDeviceAuthError(code: .untrustedChain, message: "Device certificate has no subject common name")
        }
        if let purposes = target.extendedKeyUsages,
            !purposes.contains(castorExtendedKeyUsageClientAuth), !purposes.contains(castorExtendedKeyUsageAny)
        {
            throw CastDeviceAuthError(
                code: .untrustedChain, message: "Device certificate \(target.displayName) is not valid for clientAuth")
        }
    }
}
