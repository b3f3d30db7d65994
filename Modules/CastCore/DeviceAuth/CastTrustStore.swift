import Foundation

/// The root certificates device authentication trusts: device roots anchor the certificate chains
/// devices present, CRL roots anchor the signers of the CRLs they ship.
///
/// ``cast`` holds the public Cast Root CA and Eureka Root CA (device roots) and the Cast CRL Root CA,
/// embedded from Chromium's sources. Tests and development setups use their own roots, for example
/// `CastTestCertificateAuthority.trustStore` (CastTLS). Values are immutable certificate bytes, cheap to copy.
public struct CastTrustStore: Sendable, Hashable {
    /// DER certificates that anchor device certificate chains.
    public let deviceRootsDER: [[UInt8]]
    /// DER certificates that anchor CRL signer certificates.
    public let crlRootsDER: [[UInt8]]

    /// The public Cast roots: Cast Root CA and Eureka Root CA for devices, Cast CRL Root CA for CRLs.
    public static let cast = CastTrustStore(
        uncheckedDeviceRoots: [CastRootCertificates.castRootCA, CastRootCertificates.eurekaRootCA],
        crlRoots: [CastRootCertificates.castCRLRootCA])

    /// A store of roots that are not checked here (CastTLS's `init(deviceRootsDER:crlRootsDER:)` parses them).
    package init(uncheckedDeviceRoots: [[UInt8]], crlRoots: [[UInt8]]) {
        deviceRootsDER = uncheckedDeviceRoots
        crlRootsDER = crlRoots
    }

    /// This store plus the roots of `other` (for example the public Cast roots plus a developer root).
    public func merging(_ other: CastTrustStore) -> CastTrustStore {
        CastTrustStore(
            uncheckedDeviceRoots: deviceRootsDER + other.deviceRootsDER.filter { !deviceRootsDER.contains($0) },
            crlRoots: crlRootsDER + other.crlRootsDER.filter { !crlRootsDER.contains($0) })
    }
}
