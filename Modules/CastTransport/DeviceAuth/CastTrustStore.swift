import Foundation

/// The root certificates device authentication trusts: device roots anchor the certificate chains
/// devices present, CRL roots anchor the signers of the CRLs they ship.
///
/// ``cast`` holds the public Cast Root CA and Eureka Root CA (device roots) and the Cast CRL Root CA,
/// embedded from Chromium's sources. Tests and development setups use their own roots, for example
/// ``CastTestCertificateAuthority/trustStore``. Values are immutable certificate bytes, cheap to copy.
public struct CastTrustStore: Sendable, Hashable {
    /// DER certificates that anchor device certificate chains.
    public let deviceRootsDER: [[UInt8]]
    /// DER certificates that anchor CRL signer certificates.
    public let crlRootsDER: [[UInt8]]

    /// The public Cast roots: Cast Root CA and Eureka Root CA for devices, Cast CRL Root CA for CRLs.
    public static let cast = CastTrustStore(
        uncheckedDeviceRoots: [CastRootCertificates.castRootCA, CastRootCertificates.eurekaRootCA],
        crlRoots: [CastRootCertificates.castCRLRootCA])

    /// Creates a trust store from DER certificates.
    /// - Throws: ``CastDeviceAuthError`` with code ``CastDeviceAuthError/Code/invalidCredentials`` when a
    ///   certificate does not parse, or when `deviceRootsDER` is empty.
    public init(deviceRootsDER: [[UInt8]], crlRootsDER: [[UInt8]] = []) throws(CastDeviceAuthError) {
        guard !deviceRootsDER.isEmpty else {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "A trust store needs at least one device root")
        }
        for der in deviceRootsDER + crlRootsDER {
            do {
                _ = try DeviceAuthCertificate(der: der)
            } catch {
                throw CastDeviceAuthError(
                    code: .invalidCredentials, message: "A trust store root certificate cannot be parsed", cause: error)
            }
        }
        self.init(uncheckedDeviceRoots: deviceRootsDER, crlRoots: crlRootsDER)
    }

    /// Creates a trust store from PEM text, each argument holding one or more `CERTIFICATE` blocks.
    /// - Throws: ``CastDeviceAuthError`` with code ``CastDeviceAuthError/Code/invalidCredentials`` when a
    ///   block does not parse or `deviceRootsPEM` holds no certificate.
    public init(deviceRootsPEM: String, crlRootsPEM: String = "") throws(CastDeviceAuthError) {
        try self.init(
            deviceRootsDER: try pemCertificatesToDER(deviceRootsPEM), crlRootsDER: try pemCertificatesToDER(crlRootsPEM))
    }

    private init(uncheckedDeviceRoots: [[UInt8]], crlRoots: [[UInt8]]) {
        deviceRootsDER = uncheckedDeviceRoots
        crlRootsDER = crlRoots
    }

    /// This store plus the roots of `other` (for example the public Cast roots plus a developer root).
    public func merging(_ other: CastTrustStore) -> CastTrustStore {
        CastTrustStore(
            uncheckedDeviceRoots: deviceRootsDER + other.deviceRootsDER.filter { !deviceRootsDER.contains($0) },
            crlRoots: crlRootsDER + other.crlRootsDER.filter { !crlRootsDER.contains($0) })
    }

    /// Parses the device roots; unparsable ones are skipped (they were checked when the store was made).
    func parsedDeviceRoots() -> [DeviceAuthCertificate] {
        deviceRootsDER.compactMap { try? DeviceAuthCertificate(der: $0) }
    }

    /// Parses the CRL roots.
    func parsedCRLRoots() -> [DeviceAuthCertificate] {
        crlRootsDER.compactMap { try? DeviceAuthCertificate(der: $0) }
    }
}

/// The DER bytes of each `CERTIFICATE` block of `pem`, in order.
func pemCertificatesToDER(_ pem: String) throws(CastDeviceAuthError) -> [[UInt8]] {
    try pemBlocks(pem, label: "CERTIFICATE").map { block throws(CastDeviceAuthError) in
        do {
            return try GnuTLSX509Certificate(bytes: Array(block.utf8), pem: true).export(pem: false)
        } catch {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "A PEM certificate cannot be parsed", cause: error)
        }
    }
}

/// The complete `-----BEGIN <label>----- … -----END <label>-----` blocks of `text`, in order.
func pemBlocks(_ text: String, label: String) throws(CastDeviceAuthError) -> [String] {
    let begin = "-----BEGIN \(label)-----"
    let end = "-----END \(label)-----"
    var blocks: [String] = []
    var rest = text[...]
    while let start = rest.range(of: begin) {
        guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
            throw CastDeviceAuthError(code: .invalidCredentials, message: "A PEM \(label) block has no END line")
        }
        blocks.append(String(rest[start.lowerBound..<stop.upperBound]) + "\n")
        rest = rest[stop.upperBound...]
    }
    return blocks
}
