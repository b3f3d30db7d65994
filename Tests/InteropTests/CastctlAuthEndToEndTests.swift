import CastJSON
import CastEmulator
import CastTLS
import Foundation
import Testing

/// `castctl auth` run as a user runs it: Open Screen's device-certificate suite and signed data through
/// `verify-path` and `verify-signature`, and `show` against emulated receivers.
@Suite("castctl auth end to end", .serialized)
struct CastctlAuthEndToEndTests {
    /// Open Screen's test data, committed with the CastTransport tests.
    static let data = TestPaths.packageRoot.appendingPathComponent("Tests/CastTLSTests/OpenScreen")

    struct SuiteCase: Decodable {
        let description: String
        let expectedResult: String
        let certificatePath: [String]
        let crlBundle: String?
        let certificateTime: UInt64
        let crlTime: UInt64?
        let trustAnchors: String
        let crlPolicy: String
    }

    struct SuiteFile: Decodable { let cases: [SuiteCase] }

    private func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs castctl and returns its exit status and the JSON object it printed.
    private func castctl(_ arguments: [String]) async throws -> (status: Int32, json: JSONValue, stderr: String) {
        let result = try await runProgram(TestPaths.program("castctl"), arguments)
        let json = (try? JSONValue(parsing: result.stdout.last ?? "")) ?? .null
        return (result.status, json, result.stderr)
    }

    @Test("every case of Open Screen's device-certificate suite through castctl auth verify-path --json")
    func suiteThroughVerifyPath() async throws {
        let suite = try JSONDecoder().decode(
            SuiteFile.self, from: Data(contentsOf: Self.data.appendingPathComponent("testsuite/testsuite1.json")))
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var met = 0
        for (index, testCase) in suite.cases.enumerated() {
            let chain = directory.appendingPathComponent("chain-\(index).der")
            let der = testCase.certificatePath.compactMap { Data(base64Encoded: $0) }.reduce(Data(), +)
            try der.write(to: chain)
            var arguments = ["auth", "verify-path", chain.path, "--at", String(testCase.certificateTime), "--json"]
            if let bundle = testCase.crlBundle.flatMap({ Data(base64Encoded: $0) }) {
                let file = directory.appendingPathComponent("crl-\(index).pb")
                try bundle.write(to: file)
                arguments += ["--crl", file.path]
            }
            if let crlTime = testCase.crlTime { arguments += ["--crl-at", String(crlTime)] }
            if testCase.crlPolicy == "required" { arguments.append("--require-crl") }
            if testCase.trustAnchors == "test" {
                arguments += [
                    "--trust-root", Self.data.appendingPathComponent("certificates/cast_test_root_ca.pem").path,
                    "--crl-root", Self.data.appendingPathComponent("certificates/cast_crl_test_root_ca.pem").path,
                ]
            }
            let run = try await castctl(arguments)
            let result = run.json["result"]?.stringValue
            #expect(result == testCase.expectedResult, "\(testCase.description): \(run.json) \(run.stderr)")
            #expect((run.status == 0) == (testCase.expectedResult == "SUCCESS"), "exit \(run.status): \(testCase.description)")
            #expect(run.json.objectValue.map { Set($0.keys) } == ["result", "code", "message"])
            #expect((run.json["code"] == .null) == (testCase.expectedResult == "SUCCESS"))
            if result == testCase.expectedResult && (run.status == 0) == (result == "SUCCESS") { met += 1 }
        }
        print("castctl auth verify-path: \(met) of \(suite.cases.count) Open Screen suite cases met their expected result")
        #expect(met == suite.cases.count)
    }

    @Test("castctl auth verify-signature accepts each signeddata vector and rejects a flipped bit")
    func signedDataThroughVerifySignature() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vectors = [
            ("2ZZBG9_FA8FCA3EF91A.pem", "chromecast_gen1.pem"), ("AudioReferenceDevTest.pem", "audio_ref_dev_test_chain_3.pem"),
            ("rsa2048_device_cert_data.pem", "rsa2048_device_cert.pem"),
        ]
        var checked = 0
        for (file, chain) in vectors {
            let text = try String(contentsOf: Self.data.appendingPathComponent("signeddata/\(file)"), encoding: .utf8)
            func block(_ label: String) throws -> Data {
                let begin = try #require(text.range(of: "-----BEGIN \(label)-----"))
                let end = try #require(text.range(of: "-----END \(label)-----"))
                let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
                return try #require(Data(base64Encoded: String(body)))
            }
            let message = directory.appendingPathComponent("message")
            try block("MESSAGE").write(to: message)
            for (hash, label) in [("sha1", "SIGNATURE SHA1"), ("sha256", "SIGNATURE SHA256")] {
                var signature = try block(label)
                let signatureFile = directory.appendingPathComponent("signature")
                try signature.write(to: signatureFile)
                let arguments = [
                    "auth", "verify-signature", "--chain", Self.data.appendingPathComponent("certificates/\(chain)").path,
                    "--data", message.path, "--signature", signatureFile.path, "--hash", hash, "--json",
                ]
                let good = try await castctl(arguments)
                #expect(good.status == 0 && good.json["result"] == "SUCCESS", "\(file) \(hash): \(good.json) \(good.stderr)")
                signature[signature.count - 1] ^= 0x01
                try signature.write(to: signatureFile)
                let bad = try await castctl(arguments)
                #expect(bad.status == 1, "\(file) \(hash)")
                #expect(bad.json["result"] == "SIGNATURE_VERIFICATION_FAILED" && bad.json["code"] == "badSignature")
                checked += 1
            }
        }
        #expect(checked == 6)
    }

    @Test("castctl auth show verifies an emulated receiver with device credentials against the root the user adds")
    func showInProcessReceiverWithCredentials() async throws {
        let credentials = try CastDeviceCredentials.generate(deviceID: "Castor-Show-Device")
        let authority = try #require(credentials.authority)
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("root.pem")
        try authority.rootCertificatePEM.write(to: root, atomically: true, encoding: .utf8)
        let crlRoot = directory.appendingPathComponent("crl-root.der")
        try Data(authority.trustStore.crlRootsDER[0]).write(to: crlRoot)
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "Auth Show TV", deviceCredentials: credentials))
        try await receiver.start()
        let port = try #require(await receiver.port)
        defer { Task { await receiver.stop() } }

        let trusted = try await castctl([
            "auth", "show", "127.0.0.1", "--port", String(port), "--trust-root", root.path, "--crl-root", crlRoot.path,
            "--require-crl", "--json",
        ])
        #expect(trusted.status == 0, "\(trusted.json) \(trusted.stderr)")
        #expect(trusted.json["result"] == "SUCCESS" && trusted.json["code"] == .null)
        #expect(trusted.json["chain"]?.arrayValue?.count == 2)
        #expect(trusted.json["chain"]?[0]?["commonName"] == "Castor-Show-Device")
        let rootName = try CastDeviceCertificateInfo(der: authority.trustStore.deviceRootsDER[0]).commonName
        #expect(trusted.json["path"]?.arrayValue?.last == rootName.map(JSONValue.string))
        #expect(trusted.json["nonce"] == "matched" && trusted.json["hash"] == "sha256")
        #expect(trusted.json["crl"]?["verified"] == true)
        #expect(trusted.json["tlsCertificate"]?["subject"] != nil)

        // Only the device root: the device is genuine, its CRL (signed under a CRL root nobody added) is set aside.
        let sha1 = try await castctl(["auth", "show", "127.0.0.1", "--port", String(port), "--trust-root", root.path, "--hash", "sha1", "--json"])
        #expect(sha1.status == 0 && sha1.json["result"] == "SUCCESS" && sha1.json["hash"] == "sha1", "\(sha1.json)")
        #expect(sha1.json["crl"]?["verified"] == false)
        // … unless a CRL that verifies is required.
        let required = try await castctl(["auth", "show", "127.0.0.1", "--port", String(port), "--trust-root", root.path, "--require-crl", "--json"])
        #expect(required.status == 1 && required.json["result"] == "CRL_VERIFICATION_FAILED" && required.json["code"] == "invalidCRL")

        // Without the user's root the chain is not trusted; the text form names the result and prints the chain.
        let untrusted = try await runProgram(TestPaths.program("castctl"), ["auth", "show", "127.0.0.1", "--port", String(port)])
        #expect(untrusted.status == 1)
        let text = untrusted.stdout.joined(separator: "\n")
        #expect(text.contains("result: PATH_VERIFICATION_FAILED (untrustedChain)"), "\(text)")
        #expect(text.contains("[0] ") && text.contains("CN=Castor-Show-Device"), "\(text)")
        #expect(text.contains("CRL: does not verify"), "the test CRL signer is not under the public CRL root: \(text)")
        await receiver.stop()
    }

    @Test("castctl auth show against the cast-receiver program")
    func showCastReceiverProgram() async throws {
        let help = try await runProgram(TestPaths.program("cast-receiver"), ["--help"])
        let exportsRoot = help.stdout.joined(separator: "\n").contains("--export-trust-root")
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("root.pem")
        let receiver = try await ReceiverProcess.start(exportsRoot ? ["--export-trust-root", root.path] : [])
        let port = String(receiver.port)
        if exportsRoot {
            // cast-receiver answers with device credentials under its own test root, which it wrote for us.
            let shown = try await castctl(["auth", "show", "127.0.0.1", "--port", port, "--trust-root", root.path, "--json"])
            #expect(shown.status == 0 && shown.json["result"] == "SUCCESS", "\(shown.json) \(shown.stderr)")
            #expect((shown.json["chain"]?.arrayValue?.count ?? 0) >= 1)
        } else {
            // cast-receiver without device credentials answers every challenge with AuthError INTERNAL_ERROR.
            let shown = try await castctl(["auth", "show", "127.0.0.1", "--port", port, "--json"])
            #expect(shown.status == 1)
            #expect(shown.json["result"] == "CHALLENGE_FAILED" && shown.json["code"] == "receiverError", "\(shown.json)")
            #expect(shown.json["tlsCertificate"]?["commonName"] != nil)
        }
        // Nothing listens on port 1: one line on standard error, exit status 2.
        let refused = try await runProgram(TestPaths.program("castctl"), ["auth", "show", "127.0.0.1", "--port", "1", "--timeout", "2"])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("castctl: ") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        _ = await receiver.child.terminate()
    }
}
