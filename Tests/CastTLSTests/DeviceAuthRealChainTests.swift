import Foundation
import Testing

@testable import CastTLS

/// A real Chromecast Audio certificate chain (public test data of Chromium): device certificate
/// `CN=4ZZDZJ FA8FCA7EFE3C` (sha1WithRSA, EKU clientAuth, audio-only policy) issued by
/// `CN=Chromecast ICA 4 (Audio)` (valid 2015-03-12 to 2025-03-09, pathlen 0, audio-only policy), issued by
/// the Cast Root CA. Source: repository chromium/chromium, path
/// components/test/data/media_router/common/providers/cast/certificate/certificates/chromecast_audio.pem,
/// commit e130f1dae679001dad2affdd42d979c98689a380 (the two PEM blocks, without the text dumps).
/// There is no private key: it checks path building against the embedded public roots, not signatures.
private let chromecastAudioChainPEM = """
-----BEGIN CERTIFICATE-----
MIIDxDCCAqygAwIBAgIEVXie1jANBgkqhkiG9w0BAQUFADCBgTELMAkGA1UEBhMCVVMxEzARBgN
VBAgMCkNhbGlmb3JuaWExFjAUBgNVBAcMDU1vdW50YWluIFZpZXcxEzARBgNVBAoMCkdvb2dsZS
BJbmMxDTALBgNVBAsMBENhc3QxITAfBgNVBAMMGENocm9tZWNhc3QgSUNBIDQgKEF1ZGlvKTAeF
w0xNTA2MTAyMDMyMjJaFw0zNTA2MDUyMDMyMjJaMHwxCzAJBgNVBAYTAlVTMQ0wCwYDVQQLDARD
YXN0MRMwEQYDVQQKDApHb29nbGUgSW5jMRMwEQYDVQQIDApDYWxpZm9ybmlhMRYwFAYDVQQHDA1
Nb3VudGFpbiBWaWV3MRwwGgYDVQQDDBM0WlpEWkogRkE4RkNBN0VGRTNDMIIBIjANBgkqhkiG9w
0BAQEFAAOCAQ8AMIIBCgKCAQEAxD7q+FYNcVjywE4GWd1nOhQqrPnpMF2+9+PgVcb71CWenF3Ql
X3NMlS/3+kM8IEOu5QonU2X9ys8K5am/vwi9ENKwxEOkW06egCcwwAFpwUEfhSFeSHvMuHR0Jge
kjJzGjx3owYUCkQ/rPQ2UQdJ9OOkXBADAQgLtEobbrzvKuFEc9WE145ynOhq+2PuU/qIFjF3+VU
aNzGJFRVmR3SKugymOM10AIj+1QjwA6bkehdLIo7pbHgsTB/4EcaqJLJow+2GyLxUzc9o7Uj402
TGwkvf63DdlxCfz6bLvXCbRGVPsLN4zJasasnwF/7TpZD8eH8eUA/OrBsFcNzlZzDDvQIDAQABo
0gwRjAJBgNVHRMEAjAAMAsGA1UdDwQEAwIHgDATBgNVHSUEDDAKBggrBgEFBQcDAjAXBgNVHSAE
EDAOMAwGCisGAQQB1nkCBQIwDQYJKoZIhvcNAQEFBQADggEBAHv0mppfIgtrRBTRpBE1U3cl2vX
zu7izNzmkMFar3Cx8rkQ2WTeGyyMBu9lgbZzi9dKstvNak8U8sY0jqXtEDeZfzHs3KYYgwPn0VT
3UUU2heZvFlDtBPX/6XRWONJm0SkKhZHuJbPcg6K8NVhWGh7JayCLKAzkfblfsv60cnFMkXwSIQ
i5uIid26CG2aPLtVeIJi9klU99G5PZdROHSgC0l0f0oCrTu96/NOETR1vQcUmw9MK5UY3Lj0SpB
wauoQfe8U2PQB3IS8Vvfv3xRj9jenLzFPuQxpI+AQuxVMlWqq+NgTkE1r/1pv6T55LneKha9IMq
EiSbWcAJgOTkRPq4=
-----END CERTIFICATE-----
-----BEGIN CERTIFICATE-----
MIID6zCCAtOgAwIBAgIBJTANBgkqhkiG9w0BAQsFADB1MQswCQYDVQQGEwJVUzETMBEGA1UECAw
KQ2FsaWZvcm5pYTEWMBQGA1UEBwwNTW91bnRhaW4gVmlldzETMBEGA1UECgwKR29vZ2xlIEluYz
ENMAsGA1UECwwEQ2FzdDEVMBMGA1UEAwwMQ2FzdCBSb290IENBMB4XDTE1MDMxMjE2NDQ1N1oXD
TI1MDMwOTE2NDQ1N1owgYExCzAJBgNVBAYTAlVTMRMwEQYDVQQIDApDYWxpZm9ybmlhMRYwFAYD
VQQHDA1Nb3VudGFpbiBWaWV3MRMwEQYDVQQKDApHb29nbGUgSW5jMQ0wCwYDVQQLDARDYXN0MSE
wHwYDVQQDDBhDaHJvbWVjYXN0IElDQSA0IChBdWRpbykwggEiMA0GCSqGSIb3DQEBAQUAA4IBDw
AwggEKAoIBAQCsqb1tAE4pGWrJrjq0FIlL4klNM5As+7csDInDoMlbQGPj0beD+STcOcRsxKCfN
7Ucjs3EybsyzbVrKLfyGNlMuCPMo01NSdb4bf59qeqRn9mue4x9ahZWO+5WzAzd1W5C2DFtpj+Z
pkDeAaFjVlg9tz85xFiHehVfLW0vnuhq46J6GwfwqynQVH3tl4x1MyKZt91jOx/XPtkASvSyA/k
w9M2CCwCXM2vnnASTOX52FfU9bLmBdbHmxq6Auk7dSHffRxKZAe3818mLy2H4kAd7k4lXNo+7aE
od19VJ1uBNxgJ67lwKLIy3bRMAy39KPnwmHXEA9SelW8go6ydRDBW9AgMBAAGjeTB3MA8GA1UdE
wQIMAYBAf8CAQAwHQYDVR0OBBYEFBPhXUQF/8gfsVMwLVWwhf6LLQ2cMB8GA1UdIwQYMBaAFHya
Hn3feVS818xeypmGRXlldCgZMAsGA1UdDwQEAwIBBjAXBgNVHSAEEDAOMAwGCisGAQQB1nkCBQI
wDQYJKoZIhvcNAQELBQADggEBAJfV37jQR/1QSCaLfaUWctCQdW6MZ6SLb1B+HLchPBZAtU502U
SYXFoL7Qcu8usyBW51f7sYklg4riBxrZpQOt/stY0R+2K3lm/gMrdLZoziq4xI05NKvoFLJU6CV
LGkPFSbFkQUPl68D/8eEi4MrV9AbvGSaVdIAOJKI4qMBrxu8MmQYkjeqUMuz19BJBfZHUwB/0JL
xKAEIUZLyVgsA1NpNKUHeEbXhzJMGJbQjICQClXs26V6vYgrtC/OU6Rfi42z+zALLUDQdk5QsDo
/stb68dZC8LENo9ukzk0qBCTJbvg6ne3wam5N3lCvVuum6it/dIefhRTHqcDdwfMltbM=
-----END CERTIFICATE-----
"""

@Suite("A real Cast device chain against the embedded public roots")
struct DeviceAuthRealChainTests {
    private func chain() throws -> (device: DeviceAuthCertificate, intermediates: [DeviceAuthCertificate]) {
        let ders = try pemCertificatesToDER(chromecastAudioChainPEM)
        #expect(ders.count == 2)
        let device = try DeviceAuthCertificate(der: ders[0])
        return (device, try ders.dropFirst().map { try DeviceAuthCertificate(der: $0) })
    }

    @Test("in 2020 the Chromecast Audio chain builds to the Cast Root CA and is audio-only")
    func buildsIn2020() throws {
        let (device, intermediates) = try chain()
        let now = try #require(deviceAuthDate("2020-01-01T00:00:00Z"))
        let path = try DeviceAuthPathBuilder.buildPath(
            target: device, intermediates: intermediates, anchors: CastTrustStore.cast.parsedDeviceRoots(), now: now,
            purpose: .device)
        #expect(path.map(\.commonName) == ["4ZZDZJ FA8FCA7EFE3C", "Chromecast ICA 4 (Audio)", "Cast Root CA"])
        #expect(path.contains { $0.policies.contains(CastDeviceAuthResult.audioOnlyPolicyOID) })
        #expect(device.serialNumberUInt64 == 0x5578_9ED6)
    }

    @Test("after the intermediate expired (2025-03-09) the chain is untrusted; without the intermediate too")
    func untrustedLaterOrIncomplete() throws {
        let (device, intermediates) = try chain()
        let later = try #require(deviceAuthDate("2026-01-01T00:00:00Z"))
        let roots = CastTrustStore.cast.parsedDeviceRoots()
        #expect(deviceAuthErrorCode {
            try DeviceAuthPathBuilder.buildPath(target: device, intermediates: intermediates, anchors: roots, now: later, purpose: .device)
        } == .untrustedChain)
        let then = try #require(deviceAuthDate("2020-01-01T00:00:00Z"))
        #expect(deviceAuthErrorCode {
            try DeviceAuthPathBuilder.buildPath(target: device, intermediates: [], anchors: roots, now: then, purpose: .device)
        } == .untrustedChain)
        // Only the Eureka root trusted: no path.
        let eureka = [try DeviceAuthCertificate(der: CastRootCertificates.eurekaRootCA)]
        #expect(deviceAuthErrorCode {
            try DeviceAuthPathBuilder.buildPath(target: device, intermediates: intermediates, anchors: eureka, now: then, purpose: .device)
        } == .untrustedChain)
    }

    @Test("a CRL (signed by a 2019 test CRL root) revoking the real device's serial under its intermediate revokes the chain")
    func realChainRevocation() throws {
        let (device, intermediates) = try chain()
        let now = try #require(deviceAuthDate("2020-01-01T00:00:00Z"))
        let path = try DeviceAuthPathBuilder.buildPath(
            target: device, intermediates: intermediates, anchors: CastTrustStore.cast.parsedDeviceRoots(), now: now,
            purpose: .device)
        let authority = try CastTestCertificateAuthority.generate(name: "Castor 2019", now: now.addingTimeInterval(-30 * 24 * 3600))
        let bundle = try authority.makeCRLBundle(
            revokingSerialNumbers: [(intermediates[0].der, 0x5578_9ED6...0x5578_9ED6)], now: now)
        let crl = try DeviceAuthCRL(bundle: bundle, roots: authority.trustStore.parsedCRLRoots(), now: now)
        #expect(deviceAuthErrorCode { try crl.checkRevocation(of: path, now: now) } == .revoked)
        let other = try authority.makeCRLBundle(revokingSerialNumbers: [(intermediates[0].der, 1...0x5578_9ED5)], now: now)
        let clean = try DeviceAuthCRL(bundle: other, roots: authority.trustStore.parsedCRLRoots(), now: now)
        try clean.checkRevocation(of: path, now: now)
    }
}
