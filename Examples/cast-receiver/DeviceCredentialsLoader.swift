import CastTLS
import Foundation

/// The device-authentication credentials `cast-receiver` answers challenges with, and the test root
/// that vouches for them (when known).
struct DeviceCredentialsLoader {
    /// File names of a provisioned device in a `--credentials` directory.
    static let chainFile = "device.crt"
    static let keyFile = "device.key"

    struct Loaded {
        var credentials: CastDeviceCredentials
        /// The PEM of the root that issued the chain, when the directory (or the generator) has it.
        var rootPEM: String?
        /// What was done, for the start-up line.
        var summary: String
    }

    /// Loads or makes credentials for `deviceID`:
    /// - no directory: a fresh test authority (root → intermediate → device), kept in memory;
    /// - a directory with `device.crt` (device certificate, then intermediates) and `device.key`: those;
    /// - a directory with a test authority (`root.crt`, `root.key`, `intermediate.*`, `crl-*`, as written
    ///   by `CastTestCertificateAuthority.write(to:)`): a device certificate issued by it;
    /// - an empty or missing directory: a new test authority written there, then as above, so the next
    ///   run (and `castctl --trust-root DIR/root.crt`) uses the same root.
    static func load(directory: String?, deviceID: String) throws -> Loaded {
        guard let directory else {
            let authority = try CastTestCertificateAuthority.generate()
            return Loaded(credentials: try issue(authority, deviceID), rootPEM: authority.rootCertificatePEM,
                          summary: "a fresh test root (root → intermediate → device)")
        }
        let folder = URL(fileURLWithPath: directory)
        let files = FileManager.default
        let chain = folder.appendingPathComponent(chainFile)
        let key = folder.appendingPathComponent(keyFile)
        let root = folder.appendingPathComponent("root.crt")
        if files.fileExists(atPath: chain.path) {
            let credentials = try CastDeviceCredentials(
                chainPEM: String(contentsOf: chain, encoding: .utf8), privateKeyPEM: String(contentsOf: key, encoding: .utf8))
            let rootPEM = try? String(contentsOf: root, encoding: .utf8)
            return Loaded(credentials: credentials, rootPEM: rootPEM, summary: "the device chain in \(directory)")
        }
        let authority: CastTestCertificateAuthority
        let summary: String
        if files.fileExists(atPath: root.path) {
            authority = try CastTestCertificateAuthority(directory: folder)
            summary = "a device certificate from the test root in \(directory)"
        } else {
            authority = try CastTestCertificateAuthority.generate()
            try authority.write(to: folder)
            summary = "a new test root written to \(directory)"
        }
        return Loaded(credentials: try issue(authority, deviceID), rootPEM: authority.rootCertificatePEM, summary: summary)
    }

    /// A device certificate from `authority`, sent without a CRL: a sender trusting only the exported
    /// device root (`castctl --trust-root`) could not verify the test CRL signer, and a missing CRL is
    /// what most devices send.
    private static func issue(_ authority: CastTestCertificateAuthority, _ deviceID: String) throws -> CastDeviceCredentials {
        try authority.issueDevice(deviceID: deviceID, includeCRL: false)
    }
}
