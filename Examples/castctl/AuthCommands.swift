import ArgumentParser
import CastJSON
import CastTLS
import Foundation

/// `castctl auth`: Cast device authentication for people debugging a device and for scripted conformance checks.
struct Auth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check Cast device authentication: certificate paths, signatures, a device's answer.",
        discussion: """
            verify-path and verify-signature run the two steps of device authentication on files; show asks a \
            device. Results are named as Google's Open Screen test suite names them (SUCCESS, \
            PATH_VERIFICATION_FAILED, CRL_VERIFICATION_FAILED, REVOCATION_CHECK_FAILED, \
            REVOCATION_CHECK_FAILED_WITHOUT_CRL, CRL_EXPIRED_AFTER_INITIAL_VERIFICATION; and \
            SIGNATURE_VERIFICATION_FAILED, CHALLENGE_FAILED). With --json one object is printed: \
            {"result": R, "code": C, "message": M} (code null on success). Exit status: 0 only for SUCCESS, \
            1 for any other result, 2 when an input cannot be read or the device cannot be reached (one line on \
            standard error).
            """,
        subcommands: [VerifyPath.self, VerifySignature.self, AuthShow.self])
}

/// Options every `auth` subcommand shares: extra roots and JSON output.
struct AuthTrustOptions: ParsableArguments {
    @Option(name: .long, help: "A PEM file of extra trusted device roots, added to the public Cast roots.")
    var trustRoot: String?

    @Option(name: .long, help: "A PEM file of extra trusted CRL roots, added to the public Cast CRL root.")
    var crlRoot: String?

    @Flag(name: .long, help: "Print the result as one JSON object.")
    var json = false

    /// The public Cast roots plus the ones given.
    func trustStore() throws -> CastTrustStore {
        let extraDevice = try trustRoot.map { try pemDER($0, option: "--trust-root") } ?? []
        let extraCRL = try crlRoot.map { try pemDER($0, option: "--crl-root") } ?? []
        let cast = CastTrustStore.cast
        return try CastTrustStore(deviceRootsDER: cast.deviceRootsDER + extraDevice, crlRootsDER: cast.crlRootsDER + extraCRL)
    }

    private func pemDER(_ path: String, option: String) throws -> [[UInt8]] {
        let certificates: [[UInt8]]
        do {
            certificates = try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: AuthInput.bytes(path))
        } catch let error as CastDeviceAuthError {
            throw AuthInput.Failure(message: "\(option) \(path): \(error.message)")
        }
        guard !certificates.isEmpty else { throw AuthInput.Failure(message: "\(option) \(path): no certificate in the file") }
        return certificates
    }
}

/// Reading the files the `auth` commands take, and ending with the documented exit status.
enum AuthInput {
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw Failure(message: "cannot read \(path): \(error.localizedDescription)")
        }
    }

    static func text(_ path: String) throws -> String { String(decoding: try bytes(path), as: UTF8.self) }

    /// Runs `body`, which prints the result and returns it; exits 0 for SUCCESS, 1 for another result,
    /// 2 (one line on standard error) when an input cannot be read.
    static func run(_ body: () async throws -> CastDeviceVerificationResult) async throws {
        let result: CastDeviceVerificationResult
        do {
            result = try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("castctl: \(Output.describe(error))\n".utf8))
            throw ExitCode(2)
        }
        if result != .success { throw ExitCode(1) }
    }

    /// Prints `{"result", "code", "message"}` as JSON, or one line of text.
    static func printVerdict(_ error: CastDeviceAuthError?, success: String, json: Bool) -> CastDeviceVerificationResult {
        let result = CastDeviceVerificationResult(error)
        let message = error?.message ?? success
        if json {
            let code: JSONValue = error.map { .string($0.code.description) } ?? .null
            print(JSONValue.object(["result": .string(result.rawValue), "code": code, "message": .string(message)]).serialized())
        } else if let error {
            print("\(result) (\(error.code)): \(error.description)")
        } else {
            print("\(result): \(message)")
        }
        return result
    }

    static func unixTime(_ seconds: UInt64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

struct VerifyPath: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-path",
        abstract: "Verify a device certificate path at a given time, with an optional CRL bundle.",
        discussion: """
            The checks of device authentication's first step, as Chrome and Open Screen make them: the CRL \
            (verified at --crl-at, default --at), the path to a trusted root at --at, then revocation. Without \
            --require-crl, a CRL that does not verify is set aside, as Chrome does.
            """)

    @Argument(help: "The chain: PEM or concatenated DER, device certificate first, root excluded (may be empty with --crl).")
    var chain: String

    @Option(name: .long, help: "A serialized CrlBundle, as devices send it in AuthResponse.crl.")
    var crl: String?

    @Option(name: .long, help: ArgumentHelp("The verification time, in seconds since 1970.", valueName: "unix-seconds"))
    var at: UInt64

    @Option(name: .long, help: ArgumentHelp("When to verify the CRL, in seconds since 1970 (default: --at).", valueName: "unix-seconds"))
    var crlAt: UInt64?

    @Flag(name: .long, help: "Fail without a CRL that verifies (REVOCATION_CHECK_FAILED_WITHOUT_CRL when none is given).")
    var requireCRL = false

    @OptionGroup var trust: AuthTrustOptions

    func run() async throws {
        try await AuthInput.run {
            let chainDER: [[UInt8]]
            do {
                chainDER = try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: AuthInput.bytes(chain))
            } catch let error as CastDeviceAuthError {
                return AuthInput.printVerdict(error, success: "", json: trust.json)
            }
            let crlBundle = try crl.map(AuthInput.bytes)
            let authenticator = CastDeviceAuthenticator(trustStore: try trust.trustStore())
            do {
                let path = try authenticator.verifyCertificatePath(
                    chainDER, crlBundle: crlBundle, crlPolicy: requireCRL ? .required : .optional, at: AuthInput.unixTime(at),
                    crlVerificationTime: crlAt.map(AuthInput.unixTime))
                return AuthInput.printVerdict(nil, success: path.summary, json: trust.json)
            } catch let error as CastDeviceAuthError {
                return AuthInput.printVerdict(error, success: "", json: trust.json)
            }
        }
    }
}

struct VerifySignature: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-signature",
        abstract: "Verify an RSASSA-PKCS1-v1_5 signature over data with a device certificate's key.",
        discussion: "The second step of device authentication; only the signature is checked, not the chain.")

    @Option(name: .long, help: "The chain (PEM or concatenated DER); its first certificate's key is used.")
    var chain: String

    @Option(name: .long, help: "The signed data (raw bytes).")
    var data: String

    @Option(name: .long, help: "The signature (raw bytes).")
    var signature: String

    @Option(name: .long, help: "The hash: sha1 or sha256.")
    var hash: CastDeviceAuthHashAlgorithm

    @Flag(name: .long, help: "Print the result as one JSON object.")
    var json = false

    func run() async throws {
        try await AuthInput.run {
            let signed = try AuthInput.bytes(data)
            let signatureBytes = try AuthInput.bytes(signature)
            do {
                let chainDER = try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: AuthInput.bytes(chain))
                guard let device = chainDER.first else {
                    throw CastDeviceAuthError(code: .malformedCertificate, message: "The chain holds no certificate")
                }
                try CastDeviceAuthenticator.verifySignature(
                    signatureBytes, over: signed, hashAlgorithm: hash, deviceCertificateDER: device)
                let name = (try? CastDeviceCertificateInfo(der: device).commonName).flatMap { $0 } ?? "the device certificate"
                return AuthInput.printVerdict(
                    nil, success: "the \(hash.rawValue.uppercased()) signature verifies with the key of \(name)", json: json)
            } catch let error as CastDeviceAuthError {
                return AuthInput.printVerdict(error, success: "", json: json)
            }
        }
    }
}

extension CastDeviceAuthHashAlgorithm: ExpressibleByArgument {}

extension CastDeviceCertificatePath {
    /// One line: the device, whether it is audio-only, the anchor, the CRL.
    var summary: String {
        var text = "'\(device.commonName ?? "(no CN)")'\(isAudioOnly ? " (audio-only)" : "") chains to "
            + "'\(certificates.last?.commonName ?? "?")' through \(certificates.count - 2) intermediate(s)"
        if let crl {
            text += "; CRL checked (\(crl.revokedPublicKeyCount) key(s), \(crl.revokedSerialRangeCount) serial range(s) revoked)"
        } else if let reason = unusedCRLReason {
            text += "; CRL set aside: \(reason.message)"
        } else {
            text += "; no CRL"
        }
        return text
    }
}
