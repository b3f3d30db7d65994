import CastTestSupport
import Foundation
import Testing

@testable import CastTLS

/// The path checks Google's test data does not reach, on chains OpenSSL makes (an independent X.509 encoder):
/// policy mappings to or from anyPolicy, DNS name constraints (checked through GnuTLS), and name-constraint
/// kinds nobody here can check (refused). Needs the `openssl` program (`scripts/bootstrap.sh test` installs it).
@Suite("Device paths made by OpenSSL: policy mappings and name constraints", .serialized,
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs /usr/bin/openssl"))
struct DeviceAuthOpenSSLChainTests {
    /// A scratch folder with one RSA-2048 key and a self-signed root; every certificate below reuses the key.
    final class Workshop {
        let directory: URL
        var key: String { directory.appendingPathComponent("key.pem").path }
        var root: String { directory.appendingPathComponent("root.pem").path }

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("castor-openssl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try await openssl(["genrsa", "-out", key, "2048"])
            try await openssl([
                "req", "-x509", "-key", key, "-out", root, "-subj", "/CN=OpenSSL Root", "-days", "30",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ])
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Issues `name` under `issuer` (a PEM path) with the given `-addext` extensions; returns its PEM path.
        func issue(_ name: String, under issuer: String, extensions: [String]) async throws -> String {
            let out = directory.appendingPathComponent("\(name).pem").path
            try await openssl(
                ["req", "-x509", "-key", key, "-out", out, "-subj", "/CN=\(name)", "-days", "30", "-CA", issuer, "-CAkey", key]
                    + extensions.flatMap { ["-addext", $0] })
            return out
        }

        /// Issues an intermediate with `extensions` and a device under it with `deviceExtensions`, and verifies the
        /// device path (device, intermediate) against the root.
        func verify(intermediate: [String], device: [String]) async throws -> CastDeviceVerificationResult {
            let ica = try await issue(
                "ICA-\(UUID().uuidString.prefix(8))", under: root,
                extensions: ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign"] + intermediate)
            let leaf = try await issue(
                "Device-\(UUID().uuidString.prefix(8))", under: ica,
                extensions: ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature"] + device)
            let store = try CastTrustStore(deviceRootsPEM: String(contentsOfFile: root, encoding: .utf8))
            let chain = try [leaf, ica].flatMap { try pemCertificatesToDER(String(contentsOfFile: $0, encoding: .utf8)) }
            return verificationResult { () throws(CastDeviceAuthError) in
                _ = try CastDeviceAuthenticator(trustStore: store).verifyCertificatePath(chain, at: Date())
            }
        }

        private func openssl(_ arguments: [String]) async throws {
            let child = try ChildProcess("/usr/bin/openssl", arguments)
            let status = await child.waitForExit()
            guard status == 0 else {
                throw CastDeviceAuthError(code: .signingFailed, message: "openssl \(arguments): \(child.errorOutput)")
            }
        }
    }

    @Test("an intermediate mapping a policy from anyPolicy is refused; an ordinary mapping is fine")
    func anyPolicyMapping() async throws {
        let workshop = try await Workshop()
        #expect(try await workshop.verify(intermediate: ["policyMappings=1.2.3.5:1.2.3.4"], device: []) == .success)
        #expect(try await workshop.verify(intermediate: ["policyMappings=2.5.29.32.0:1.2.3.4"], device: []) == .pathVerificationFailed)
        #expect(try await workshop.verify(intermediate: ["policyMappings=1.2.3.4:2.5.29.32.0"], device: []) == .pathVerificationFailed)
    }

    @Test("DNS name constraints hold for the device's names; an uncheckable constraint kind is refused")
    func dnsAndUnsupportedConstraints() async throws {
        let workshop = try await Workshop()
        let permitted = "nameConstraints=critical,permitted;DNS:castor.test"
        #expect(try await workshop.verify(intermediate: [permitted], device: ["subjectAltName=DNS:tv.castor.test"]) == .success)
        #expect(try await workshop.verify(intermediate: [permitted], device: ["subjectAltName=DNS:tv.evil.test"]) == .pathVerificationFailed)
        let excluded = "nameConstraints=critical,excluded;DNS:evil.test"
        #expect(try await workshop.verify(intermediate: [excluded], device: ["subjectAltName=DNS:tv.evil.test"]) == .pathVerificationFailed)
        #expect(try await workshop.verify(intermediate: [excluded], device: ["subjectAltName=DNS:tv.castor.test"]) == .success)
        // A URI subtree: Castor cannot check URI names, so it refuses the path rather than ignore the constraint.
        let uri = "nameConstraints=critical,permitted;URI:.castor.test"
        #expect(try await workshop.verify(intermediate: [uri], device: []) == .pathVerificationFailed)
    }
}
