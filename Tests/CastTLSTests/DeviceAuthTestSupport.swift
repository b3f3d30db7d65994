import Foundation
import Testing

@testable import CastTLS

/// Shared device-auth fixtures: one test authority, one genuine device, one TLS certificate
/// (RSA generation is the slow part, so they are made once).
enum DeviceAuthFixtures {
    static let authority: Result<CastTestCertificateAuthority, CastDeviceAuthError> = Result {
        () throws(CastDeviceAuthError) in try CastTestCertificateAuthority.generate(name: "Castor Unit Test")
    }

    static let device: Result<CastDeviceCredentials, CastDeviceAuthError> = Result {
        () throws(CastDeviceAuthError) in try authority.get().issueDevice(deviceID: "Castor-Test-Device-01")
    }

    static let tls: Result<TLSCredentials, TLSError> = Result {
        () throws(TLSError) in try TLSCredentials.selfSigned(commonName: "Castor Test TLS")
    }

    /// An authenticator trusting the test authority, with `policy`.
    static func authenticator(_ policy: CastDeviceAuthPolicy = .report) throws -> CastDeviceAuthenticator {
        CastDeviceAuthenticator(trustStore: try authority.get().trustStore, policy: policy)
    }
}

/// Runs one challenge/response in memory (no transport) and verifies the reply.
func deviceAuthExchange(
    _ credentials: CastDeviceCredentials, authenticator: CastDeviceAuthenticator, tlsCertificateDER: [UInt8],
    hash: CastDeviceAuthHashAlgorithm = .sha256, now: Date = Date()
) throws(CastDeviceAuthError) -> CastDeviceAuthResult {
    let challenge = authenticator.makeChallenge(hashAlgorithm: hash)
    guard let reply = credentials.respond(to: challenge.message, tlsCertificateDER: tlsCertificateDER) else {
        throw CastDeviceAuthError(code: .noResponse, message: "The test credentials ignored the challenge")
    }
    return try authenticator.verify(reply: reply, to: challenge, peerCertificateDER: tlsCertificateDER, now: now)
}

/// The ``CastDeviceAuthError`` code `body` throws, or `nil` when it does not throw (other errors are recorded as issues).
func deviceAuthErrorCode(_ body: () throws -> some Any) -> CastDeviceAuthError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as CastDeviceAuthError {
        return error.code
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// Parses an ISO 8601 UTC timestamp (`2014-04-02T17:34:26Z`).
func deviceAuthDate(_ text: String) -> Date? {
    ISO8601DateFormatter().date(from: text)
}
