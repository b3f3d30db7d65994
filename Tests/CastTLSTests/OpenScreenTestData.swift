import Foundation
import Testing

@testable import CastTLS

/// Google's Open Screen device-authentication test data, committed under `OpenScreen/` (see its README.md
/// for origin, commit and licence): the device-certificate test suite converted to JSON, real and crafted
/// certificate chains, and real signatures by real device keys.
enum OpenScreenTestData {
    /// The `OpenScreen` folder next to this file.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("OpenScreen")

    /// The bytes of a file under `OpenScreen/`.
    static func data(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(path)))
    }

    /// The DER certificates of `certificates/<name>`, in file order.
    static func chain(_ name: String) throws -> [[UInt8]] {
        try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: data("certificates/\(name)"))
    }

    /// The trust store the suite's `use_test_trust_anchors` selects: the suite's test roots
    /// (`cast_test_root_ca.pem`, `cast_crl_test_root_ca.pem`), or the production Cast roots.
    static func trustStore(_ anchors: SuiteCase.Anchors) throws -> CastTrustStore {
        switch anchors {
        case .production:
            return .cast
        case .test:
            return try CastTrustStore(
                deviceRootsDER: chain("cast_test_root_ca.pem"), crlRootsDER: chain("cast_crl_test_root_ca.pem"))
        }
    }

    /// One case of `testsuite/testsuite1.json` (made by `convert_testsuite.py` from `testsuite1.pb`).
    struct SuiteCase: Decodable, Sendable, CustomTestStringConvertible {
        enum Anchors: String, Decodable, Sendable { case test, production }
        let description: String
        let expectedResult: String
        let certificatePath: [String]
        let crlBundle: String?
        let certificateTime: UInt64
        let crlTime: UInt64?
        let trustAnchors: Anchors
        let crlPolicy: String

        var chainDER: [[UInt8]] { certificatePath.compactMap { Data(base64Encoded: $0).map(Array.init) } }
        var crlDER: [UInt8]? { crlBundle.flatMap { Data(base64Encoded: $0).map(Array.init) } }
        var time: Date { Date(timeIntervalSince1970: TimeInterval(certificateTime)) }
        var crlVerificationTime: Date? { crlTime.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
        var policy: CastCRLPolicy { crlPolicy == "required" ? .required : .optional }
        var testDescription: String { "\(expectedResult): \(description)" }
    }

    struct Suite: Decodable {
        struct Source: Decodable { let sha256: String }
        let source: Source
        let cases: [SuiteCase]
    }

    /// The converted suite.
    static func suite() throws -> Suite {
        try JSONDecoder().decode(Suite.self, from: Data(data("testsuite/testsuite1.json")))
    }

    /// A `signeddata/` file: a message and its SHA-1 and SHA-256 RSASSA-PKCS1-v1_5 signatures by a device key.
    struct SignedData {
        let message: [UInt8]
        let sha1: [UInt8]
        let sha256: [UInt8]
    }

    static func signedData(_ name: String) throws -> SignedData {
        let text = String(decoding: try data("signeddata/\(name)"), as: UTF8.self)
        func block(_ label: String) throws -> [UInt8] {
            let blocks = try pemBlocks(text, label: label)
            guard blocks.count == 1 else { throw CastDeviceAuthError(code: .invalidCredentials, message: "\(name): \(label) ×\(blocks.count)") }
            let body = blocks[0].split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            guard let bytes = Data(base64Encoded: body) else {
                throw CastDeviceAuthError(code: .invalidCredentials, message: "\(name): \(label) is not base64")
            }
            return Array(bytes)
        }
        return SignedData(message: try block("MESSAGE"), sha1: try block("SIGNATURE SHA1"), sha256: try block("SIGNATURE SHA256"))
    }
}

/// Midnight UTC of a day, as the Open Screen unit tests build their verification times.
func openScreenDate(_ year: Int, _ month: Int, _ day: Int) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day))!
}

/// The verification result `body` ends with, in the suite's terms.
func verificationResult(_ body: () throws(CastDeviceAuthError) -> Void) -> CastDeviceVerificationResult {
    do {
        try body()
        return .success
    } catch {
        return CastDeviceVerificationResult(error)
    }
}
