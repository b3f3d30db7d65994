import Foundation
import Testing

@testable import CastTLS

@Suite("The embedded public Cast root certificates")
struct DeviceAuthRootCertificateTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        let der: [UInt8]
        let commonName: String
        let notBefore: String
        let notAfter: String
        let sha256: String
        var testDescription: String { commonName }
    }

    static let roots: [Expected] = [
        Expected(
            der: CastRootCertificates.castRootCA, commonName: "Cast Root CA",
            notBefore: "2014-04-02T17:34:26Z", notAfter: "2034-03-28T17:34:26Z",
            sha256: "809af14700b3fe2611ad597eb1584d6354313b64ccdb3390f097fa3e5826d6ca"),
        Expected(
            der: CastRootCertificates.eurekaRootCA, commonName: "Eureka Root CA",
            notBefore: "2012-12-17T22:39:33Z", notAfter: "2032-12-12T22:39:33Z",
            sha256: "caf6d1e37b532203e01a76bf07187bb731ccd38801565ab2211a2c0ab7f3bc46"),
        Expected(
            der: CastRootCertificates.castCRLRootCA, commonName: "Cast CRL Root CA",
            notBefore: "2016-08-01T21:47:47Z", notAfter: "2036-07-27T21:47:47Z",
            sha256: "8b77c60291f9d62764613083f49750b1c5caac2d9efbe5a28edf301f9d84831d"),
    ]

    @Test("each root parses, is a self-signed RSA-2048 CA with the expected subject, validity and fingerprint",
          arguments: roots)
    func rootIsValid(_ expected: Expected) throws {
        let certificate = try DeviceAuthCertificate(der: expected.der)
        #expect(certificate.commonName == expected.commonName)
        #expect(certificate.subjectDN == certificate.issuerDN)
        #expect(certificate.isIssued(by: certificate), "the self-signature verifies")
        #expect(certificate.basicConstraints?.isCA == true)
        #expect(certificate.isRSA)
        #expect(certificate.keyBits == 2048)
        #expect(certificate.notBefore == deviceAuthDate(expected.notBefore))
        #expect(certificate.notAfter == deviceAuthDate(expected.notAfter))
        let fingerprint = deviceAuthSHA256(expected.der).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprint == expected.sha256)
        let now = try #require(deviceAuthDate("2026-11-21T00:00:00Z"))
        #expect(certificate.notBefore < now && now < certificate.notAfter, "valid today")
    }

    @Test("the default trust store holds the Cast and Eureka roots for devices and the Cast CRL root for CRLs")
    func defaultTrustStore() {
        let store = CastTrustStore.cast
        #expect(store.deviceRootsDER == [CastRootCertificates.castRootCA, CastRootCertificates.eurekaRootCA])
        #expect(store.crlRootsDER == [CastRootCertificates.castCRLRootCA])
        #expect(store.parsedDeviceRoots().map(\.commonName) == ["Cast Root CA", "Eureka Root CA"])
        #expect(store.parsedCRLRoots().map(\.commonName) == ["Cast CRL Root CA"])
        #expect(CastDeviceAuthenticator().trustStore == store)
    }

    @Test("the Cast Root CA allows certificate signing with a path length of 2; Eureka has no key usage")
    func rootConstraints() throws {
        let cast = try DeviceAuthCertificate(der: CastRootCertificates.castRootCA)
        #expect(cast.basicConstraints?.pathLength == 2)
        #expect((cast.keyUsage ?? 0) & castorKeyUsageKeyCertSign != 0)
        let eureka = try DeviceAuthCertificate(der: CastRootCertificates.eurekaRootCA)
        #expect(eureka.keyUsage == nil)
        #expect(eureka.basicConstraints?.pathLength == nil)
    }
}

@Suite("Trust stores")
struct DeviceAuthTrustStoreTests {
    @Test("a trust store loads PEM roots and rejects garbage, empty input and truncated blocks")
    func pemLoading() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let store = try CastTrustStore(
            deviceRootsPEM: authority.rootCertificatePEM, crlRootsPEM: authority.crlRootCertificatePEM)
        #expect(store.deviceRootsDER.count == 1)
        #expect(store.crlRootsDER.count == 1)
        #expect(store == authority.trustStore)

        #expect(deviceAuthErrorCode { try CastTrustStore(deviceRootsPEM: "") } == .invalidCredentials)
        let garbage = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        #expect(deviceAuthErrorCode { try CastTrustStore(deviceRootsPEM: garbage) } == .invalidCredentials)
        let truncated = String(authority.rootCertificatePEM.prefix(100))
        #expect(deviceAuthErrorCode { try CastTrustStore(deviceRootsPEM: truncated) } == .invalidCredentials)
        #expect(deviceAuthErrorCode { try CastTrustStore(deviceRootsDER: [[0x30, 0x03, 0x02, 0x01, 0x01]]) } == .invalidCredentials)
    }

    @Test("merging adds the other store's roots once")
    func merging() throws {
        let test = try DeviceAuthFixtures.authority.get().trustStore
        let merged = CastTrustStore.cast.merging(test).merging(test)
        #expect(merged.deviceRootsDER.count == 3)
        #expect(merged.crlRootsDER.count == 2)
    }
}
