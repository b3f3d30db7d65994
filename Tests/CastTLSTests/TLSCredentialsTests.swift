import Foundation
import Testing

@testable import CastTLS

@Suite("TLSCredentials")
struct TLSCredentialsTests {
    @Test("self-signed generation: CN, validity at most 3 days, PEM and DER agree")
    func selfSigned() throws {
        let before = Date()
        let credentials = try TLSCredentials.selfSigned(commonName: "Living Room TV", validity: .seconds(3 * 24 * 3600), keyBits: 1024)
        #expect(credentials.commonName == "Living Room TV")
        #expect(credentials.notAfter.timeIntervalSince(credentials.notBefore) == 3 * 24 * 3600)
        #expect(credentials.notBefore <= before.addingTimeInterval(1))
        #expect(credentials.notBefore >= before.addingTimeInterval(-1).rounded)
        #expect(credentials.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(credentials.privateKeyPEM.contains("PRIVATE KEY-----"))
        #expect(credentials.certificateDER.first == 0x30)  // an ASN.1 SEQUENCE

        let reloaded = try TLSCredentials(certificatePEM: credentials.certificatePEM, privateKeyPEM: credentials.privateKeyPEM)
        #expect(reloaded.certificateDER == credentials.certificateDER)
        #expect(reloaded.notAfter == credentials.notAfter)
        #expect(reloaded.commonName == "Living Room TV")
    }

    @Test("the default is a 2048-bit key, the default name and 2 days")
    func defaults() throws {
        let credentials = try TLSTestFixtures.credentials.get()
        #expect(credentials.commonName == "Castor Emulated Receiver")
        #expect(credentials.notAfter.timeIntervalSince(credentials.notBefore) == 2 * 24 * 3600)
        let certificate = try GnuTLSX509Certificate(bytes: credentials.certificateDER, pem: false)
        #expect(certificate.publicKeyBits == 2048)
        let small = try GnuTLSX509Certificate(bytes: try TLSCredentials.selfSigned(keyBits: 1024).certificateDER, pem: false)
        #expect(small.publicKeyBits == 1024)
    }

    @Test("validity over 3 days is refused unless explicitly allowed")
    func validityLimit() throws {
        let error = #expect(throws: TLSError.self) {
            try TLSCredentials.selfSigned(validity: .seconds(3 * 24 * 3600 + 1), keyBits: 1024)
        }
        #expect(error?.code == .validityTooLong)

        let long = try TLSCredentials.selfSigned(
            commonName: "Device", validity: .seconds(365 * 24 * 3600), keyBits: 1024,
            notBefore: Date(timeIntervalSince1970: 1_700_000_000), allowLongValidity: true)
        #expect(long.notBefore == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(long.notAfter == Date(timeIntervalSince1970: 1_700_000_000 + 365 * 24 * 3600))
    }

    @Test("bad parameters are typed errors")
    func badParameters() {
        #expect(throws: TLSError.self) { try TLSCredentials.selfSigned(validity: .zero, keyBits: 1024) }
        #expect(throws: TLSError.self) { try TLSCredentials.selfSigned(keyBits: 512) }
        #expect(throws: TLSError.self) { try TLSCredentials.selfSigned(commonName: "", keyBits: 1024) }
    }

    @Test("garbage PEM, garbage DER and a key that does not match the certificate are invalidCredentials")
    func invalidInput() throws {
        let a = try TLSCredentials.selfSigned(keyBits: 1024)
        let b = try TLSCredentials.selfSigned(keyBits: 1024)
        var error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificatePEM: "not a certificate", privateKeyPEM: a.privateKeyPEM)
        }
        #expect(error?.code == .invalidCredentials)
        #expect(error?.gnutlsErrorCode != nil)
        error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificatePEM: a.certificatePEM, privateKeyPEM: "garbage")
        }
        #expect(error?.code == .invalidCredentials)
        error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificatePEM: a.certificatePEM, privateKeyPEM: b.privateKeyPEM)
        }
        #expect(error?.code == .invalidCredentials)
        error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificateDER: [0x30, 0x03, 0x02, 0x01], privateKeyDER: [1, 2, 3])
        }
        #expect(error?.code == .invalidCredentials)
    }

    @Test("DER certificate and key load too")
    func derInput() throws {
        let source = try TLSCredentials.selfSigned(keyBits: 1024)
        let keyDER = try GnuTLSX509PrivateKey(bytes: Array(source.privateKeyPEM.utf8), pem: true).export(pem: false)
        let loaded = try TLSCredentials(certificateDER: source.certificateDER, privateKeyDER: keyDER)
        #expect(loaded.certificatePEM == source.certificatePEM)
        #expect(loaded.privateKeyPEM == source.privateKeyPEM)
    }

    @Test("TLSError describes code, message and the GnuTLS number and text")
    func errorDescription() {
        let error = TLSError(code: .handshakeFailed, message: "boom", gnutlsErrorCode: -110, gnutlsDescription: "The TLS connection was non-properly terminated.")
        #expect(error.description == "handshakeFailed: boom (GnuTLS -110: The TLS connection was non-properly terminated.)")
    }
}

extension Date {
    /// Truncated to whole seconds (X.509 times have second precision).
    fileprivate var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
