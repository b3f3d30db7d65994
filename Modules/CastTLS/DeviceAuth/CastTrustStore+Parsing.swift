public import CastCore
import Foundation

// The trust store's validating initializers and parsed roots (GnuTLS parses the certificates).

extension CastTrustStore {
    /// Creates a trust store from DER certificates.
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.invalidCredentials` when a
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
    /// - Throws: `CastDeviceAuthError` with code `CastDeviceAuthError.Code.invalidCredentials` when a
    ///   block does not parse or `deviceRootsPEM` holds no certificate.
    public init(deviceRootsPEM: String, crlRootsPEM: String = "") throws(CastDeviceAuthError) {
        try self.init(
            deviceRootsDER: try pemCertificatesToDER(deviceRootsPEM), crlRootsDER: try pemCertificatesToDER(crlRootsPEM))
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
