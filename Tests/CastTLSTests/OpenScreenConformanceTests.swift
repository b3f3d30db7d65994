import Foundation
import Testing

@testable import CastTLS

/// Device authentication against the test data Google's own Cast implementations must pass (Open Screen,
/// `test/data/cast/common/certificate/`; see `OpenScreen/README.md`). Expected results come from that data
/// and from Open Screen's runners (`cast_crl_unittest.cc`, `cast_cert_validator_unittest.cc`), not from us.
/// Serialized: the tests are synchronous CPU work, and one at a time leaves the other cooperative threads to
/// the suites whose real-time heartbeats must keep ticking.
@Suite("Open Screen conformance: device-certificate suite, real chains, signed data", .serialized)
struct OpenScreenConformanceTests {
    // MARK: testsuite1.pb

    @Test("testsuite1.json is the conversion of the committed testsuite1.pb")
    func suiteMatchesItsSource() throws {
        let suite = try OpenScreenTestData.suite()
        #expect(suite.source.sha256 == deviceAuthHex(deviceAuthSHA256(try OpenScreenTestData.data("testsuite/testsuite1.pb"))))
        #expect(suite.cases.count == 32)
        #expect(Set(suite.cases.map(\.expectedResult)) == Set(CastDeviceVerificationResult.allCases.prefix(6).map(\.rawValue)))
    }

    @Test("every case of Open Screen's device-certificate test suite gets its expected result")
    func deviceCertTestSuite() throws {
        let suite = try OpenScreenTestData.suite()
        var met = 0
        for testCase in suite.cases {
            let authenticator = CastDeviceAuthenticator(trustStore: try OpenScreenTestData.trustStore(testCase.trustAnchors))
            let result = verificationResult { () throws(CastDeviceAuthError) in
                _ = try authenticator.verifyCertificatePath(
                    testCase.chainDER, crlBundle: testCase.crlDER, crlPolicy: testCase.policy, at: testCase.time,
                    crlVerificationTime: testCase.crlVerificationTime)
            }
            #expect(result.rawValue == testCase.expectedResult, "\(testCase.testDescription)")
            if result.rawValue == testCase.expectedResult { met += 1 }
        }
        print("Open Screen testsuite1: \(met) of \(suite.cases.count) cases met their expected result")
        #expect(met == suite.cases.count)
    }

    @Test("each suite case also passes the separate steps Google's runner (cast_crl_unittest.cc) checks")
    func runnerSteps() throws {
        for testCase in try OpenScreenTestData.suite().cases {
            let authenticator = CastDeviceAuthenticator(trustStore: try OpenScreenTestData.trustStore(testCase.trustAnchors))
            let crlTime = testCase.crlVerificationTime ?? testCase.time
            // The path alone, CRL optional and none given (TestVerifyCertificate).
            let pathAlone = verificationResult { () throws(CastDeviceAuthError) in
                _ = try authenticator.verifyCertificatePath(testCase.chainDER, crlPolicy: .optional, at: testCase.time)
            }
            // The CRL alone (TestVerifyCRL).
            let crlVerifies = testCase.crlDER.map { (try? authenticator.verifyCRL($0, at: crlTime)) != nil } ?? false
            switch testCase.expectedResult {
            case "PATH_VERIFICATION_FAILED":
                #expect(pathAlone == .pathVerificationFailed, "\(testCase.testDescription)")
            case "CRL_VERIFICATION_FAILED", "REVOCATION_CHECK_FAILED_WITHOUT_CRL":
                #expect(!crlVerifies, "\(testCase.testDescription)")
                if testCase.expectedResult != "CRL_VERIFICATION_FAILED" {
                    #expect(pathAlone == .success, "\(testCase.testDescription)")
                }
            case "REVOCATION_CHECK_FAILED", "CRL_EXPIRED_AFTER_INITIAL_VERIFICATION":
                #expect(pathAlone == .success && crlVerifies, "\(testCase.testDescription)")
            case "SUCCESS":
                #expect(pathAlone == .success, "\(testCase.testDescription)")
                #expect(testCase.crlDER == nil || crlVerifies, "\(testCase.testDescription)")
            default:
                Issue.record("unknown expected result \(testCase.expectedResult)")
            }
        }
    }

    @Test("a suite CRL that verified revokes by key hash and serial range with the details shown")
    func suiteCRLDetails() throws {
        let suite = try OpenScreenTestData.suite()
        let testCase = try #require(suite.cases.first { $0.description == "Valid cert/path, valid CRL with one SPKI hash that does not match anything." })
        let authenticator = CastDeviceAuthenticator(trustStore: try OpenScreenTestData.trustStore(.test))
        let path = try authenticator.verifyCertificatePath(
            testCase.chainDER, crlBundle: testCase.crlDER, crlPolicy: .required, at: testCase.time)
        let crl = try #require(path.crl)
        #expect(crl.revokedPublicKeyCount == 1)
        #expect(crl.revokedSerialRangeCount == 0)
        #expect(crl.notBefore <= testCase.time && testCase.time <= crl.usableUntil && crl.usableUntil <= crl.notAfter)
        #expect(path.certificates.map(\.commonName) == ["Cast Test Untrusted Device", "Cast Test Untrusted ICA", "Cast Test Untrusted Root CA"])
    }

    // MARK: certificates/: real device chains against the production roots

    struct RealChain: Sendable, CustomTestStringConvertible {
        let file: String
        let commonName: String
        let audioOnly: Bool
        let anchor: String
        /// A time inside the validity of every certificate of the chain (Open Screen's unit-test time).
        let validAt: Date
        var testDescription: String { file }
    }

    static let realChains: [RealChain] = [
        RealChain(file: "chromecast_gen1.pem", commonName: "2ZZBG9 FA8FCA3EF91A", audioOnly: false, anchor: "Eureka Root CA",
                  validAt: openScreenDate(2016, 4, 1)),
        RealChain(file: "chromecast_gen1_reissue.pem", commonName: "2ZZBG9 FA8FCA3EF91A", audioOnly: false, anchor: "Cast Root CA",
                  validAt: openScreenDate(2016, 4, 1)),
        RealChain(file: "chromecast_gen2.pem", commonName: "3ZZAK6 FA8FCA3F0D35", audioOnly: false, anchor: "Cast Root CA",
                  validAt: openScreenDate(2016, 4, 1)),
        RealChain(file: "chromecast_audio.pem", commonName: "4ZZDZJ FA8FCA7EFE3C", audioOnly: true, anchor: "Cast Root CA",
                  validAt: openScreenDate(2016, 4, 1)),
        RealChain(file: "fugu.pem", commonName: "-6394818897508095075", audioOnly: false, anchor: "Cast Root CA",
                  validAt: openScreenDate(2016, 4, 1)),
        RealChain(file: "vizio.pem", commonName: "9V0000VB FA8FCA784D01", audioOnly: false, anchor: "Cast Root CA",
                  validAt: openScreenDate(2016, 4, 1)),
        RealChain(file: "mtk_audio_dev.pem", commonName: "MediaTek Audio Dev Test", audioOnly: true, anchor: "Cast Root CA",
                  validAt: openScreenDate(2015, 1, 1)),
        RealChain(file: "audio_ref_dev_test_chain_3.pem", commonName: "Audio Reference Dev Test", audioOnly: true,
                  anchor: "Cast Root CA", validAt: openScreenDate(2016, 4, 1)),
    ]

    @Test("every real device chain verifies against the production roots inside its validity, and not after it",
          arguments: realChains)
    func realChain(_ chain: RealChain) throws {
        let der = try OpenScreenTestData.chain(chain.file)
        let authenticator = CastDeviceAuthenticator(trustStore: .cast)
        let path = try authenticator.verifyCertificatePath(der, crlPolicy: .optional, at: chain.validAt)
        #expect(path.device.commonName == chain.commonName)
        #expect(path.isAudioOnly == chain.audioOnly)
        #expect(path.certificates.last?.commonName == chain.anchor)
        #expect(path.certificates.count == der.count + 1)
        #expect(zip(path.certificates, der).allSatisfy { $0.der == $1 })
        // The validity window matters: far after it (2037-03-01) every chain has expired.
        #expect(verificationResult { () throws(CastDeviceAuthError) in
            _ = try authenticator.verifyCertificatePath(der, at: openScreenDate(2037, 3, 1))
        } == .pathVerificationFailed)
        // Without any intermediate, no real chain reaches a root.
        #expect(verificationResult { () throws(CastDeviceAuthError) in
            _ = try authenticator.verifyCertificatePath([der[0]], at: chain.validAt)
        } == .pathVerificationFailed)
    }

    @Test("the Chromecast gen2 chain is refused before its validity (2015-01-01) and after it (2037-03-01)")
    func gen2OutsideValidity() throws {
        let der = try OpenScreenTestData.chain("chromecast_gen2.pem")
        let authenticator = CastDeviceAuthenticator(trustStore: .cast)
        for date in [openScreenDate(2015, 1, 1), openScreenDate(2037, 3, 1)] {
            do {
                _ = try authenticator.verifyCertificatePath(der, at: date)
                Issue.record("accepted at \(date)")
            } catch {
                #expect(error.code == .untrustedChain)
                #expect(error.message.contains("not valid before") || error.message.contains("expired"), "\(error)")
            }
        }
    }

    @Test("our embedded Cast Root CA is byte for byte Open Screen's cast_root_ca.pem")
    func embeddedRootMatches() throws {
        #expect(try OpenScreenTestData.chain("cast_root_ca.pem") == [CastRootCertificates.castRootCA])
    }

    // MARK: certificates/: crafted chains (cast_cert_validator_unittest.cc)

    struct CraftedChain: Sendable, CustomTestStringConvertible {
        let file: String
        /// The chain's last certificate is its own trust anchor (TRUST_STORE_FROM_TEST_FILE); else the production roots.
        let ownRoot: Bool
        let at: Date
        let expected: CastDeviceVerificationResult
        var expectedCode: CastDeviceAuthError.Code? = nil
        var audioOnly = false
        var testDescription: String { "\(file) → \(expected)" }
    }

    static let craftedChains: [CraftedChain] = {
        let april2016 = openScreenDate(2016, 4, 1)
        var chains = [
            CraftedChain(file: "unchained.pem", ownRoot: false, at: april2016, expected: .pathVerificationFailed),
            // The Cast Root CA as a device certificate: trusted, but no digitalSignature key usage.
            CraftedChain(file: "cast_root_ca.pem", ownRoot: false, at: april2016, expected: .pathVerificationFailed),
            // An expired trust anchor is still an anchor (expiry is not an anchor constraint).
            CraftedChain(file: "expired_root.pem", ownRoot: true, at: april2016, expected: .success),
            // The root's pathlen=1 is violated by two intermediates below it.
            CraftedChain(file: "violates_root_pathlen_constraint.pem", ownRoot: true, at: april2016, expected: .pathVerificationFailed),
            CraftedChain(file: "rsa1024_device_cert.pem", ownRoot: true, at: april2016, expected: .pathVerificationFailed,
                         expectedCode: .weakKey),
            CraftedChain(file: "rsa2048_device_cert.pem", ownRoot: true, at: april2016, expected: .success),
            // An intermediate with a directoryName name constraint: the device inside it, then outside it.
            CraftedChain(file: "nc.pem", ownRoot: true, at: openScreenDate(2020, 4, 1), expected: .success),
            CraftedChain(file: "nc_fail.pem", ownRoot: true, at: openScreenDate(2020, 4, 1), expected: .pathVerificationFailed),
        ]
        // Policies: any audio-only policy in the path (not anyPolicy, not "foo") makes the device audio-only.
        for ica in ["anypolicy", "audioonly", "none"] {
            for leaf in ["anypolicy", "audioonly", "foo", "none"] {
                chains.append(CraftedChain(
                    file: "policies_ica_\(ica)_leaf_\(leaf).pem", ownRoot: true, at: april2016, expected: .success,
                    audioOnly: ica == "audioonly" || leaf == "audioonly"))
            }
        }
        return chains
    }()

    @Test("every crafted chain gets the result Open Screen's validator tests expect", arguments: craftedChains)
    func craftedChain(_ chain: CraftedChain) throws {
        var der = try OpenScreenTestData.chain(chain.file)
        var store = CastTrustStore.cast
        if chain.ownRoot {
            store = try CastTrustStore(deviceRootsDER: [der.removeLast()])
        }
        let authenticator = CastDeviceAuthenticator(trustStore: store)
        var path: CastDeviceCertificatePath?
        var failure: CastDeviceAuthError?
        do {
            path = try authenticator.verifyCertificatePath(der, at: chain.at)
        } catch {
            failure = error
        }
        let code = failure?.code
        #expect(CastDeviceVerificationResult(failure) == chain.expected, "\(String(describing: failure))")
        if let expectedCode = chain.expectedCode { #expect(code == expectedCode) }
        if let path { #expect(path.isAudioOnly == chain.audioOnly) }
    }

    // MARK: signeddata/

    struct SignedVector: Sendable, CustomTestStringConvertible {
        let file: String
        let chain: String
        var testDescription: String { file }
    }

    static let signedVectors: [SignedVector] = [
        SignedVector(file: "2ZZBG9_FA8FCA3EF91A.pem", chain: "chromecast_gen1.pem"),
        SignedVector(file: "2ZZBG9_FA8FCA3EF91A.pem", chain: "chromecast_gen1_reissue.pem"),
        SignedVector(file: "AudioReferenceDevTest.pem", chain: "audio_ref_dev_test_chain_3.pem"),
        SignedVector(file: "rsa2048_device_cert_data.pem", chain: "rsa2048_device_cert.pem"),
    ]

    @Test("every signeddata vector verifies with SHA-1 and SHA-256; one flipped bit, or the other hash, is rejected",
          arguments: signedVectors)
    func signedData(_ vector: SignedVector) throws {
        let data = try OpenScreenTestData.signedData(vector.file)
        let device = try #require(try OpenScreenTestData.chain(vector.chain).first)
        var checked = 0
        for (hash, signature) in [(CastDeviceAuthHashAlgorithm.sha1, data.sha1), (.sha256, data.sha256)] {
            try CastDeviceAuthenticator.verifySignature(signature, over: data.message, hashAlgorithm: hash, deviceCertificateDER: device)
            let other: CastDeviceAuthHashAlgorithm = hash == .sha1 ? .sha256 : .sha1
            var flippedSignature = signature
            flippedSignature[flippedSignature.count / 2] ^= 0x01
            var flippedMessage = data.message
            flippedMessage[0] ^= 0x80
            for (bytes, message, algorithm) in [
                (flippedSignature, data.message, hash), (signature, flippedMessage, hash), (signature, data.message, other),
                ([UInt8](), data.message, hash),
            ] {
                do {
                    try CastDeviceAuthenticator.verifySignature(bytes, over: message, hashAlgorithm: algorithm, deviceCertificateDER: device)
                    Issue.record("\(vector.file) \(hash): a corrupted vector verified")
                } catch {
                    #expect(error.code == .badSignature)
                    #expect(error.code.verificationResult == .signatureVerificationFailed)
                }
            }
            checked += 1
        }
        #expect(checked == 2)
        // The key of another device does not verify these signatures.
        let stranger = try #require(try OpenScreenTestData.chain("chromecast_gen2.pem").first)
        #expect(verificationResult { () throws(CastDeviceAuthError) in
            try CastDeviceAuthenticator.verifySignature(data.sha256, over: data.message, hashAlgorithm: .sha256, deviceCertificateDER: stranger)
        } == .signatureVerificationFailed)
    }

    // MARK: Our receiver's credentials through the same API

    @Test("CastDeviceCredentials chain through the path and signature steps with a trust root the user adds")
    func receiverCredentials() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let chain = [device.deviceCertificateDER] + device.intermediateCertificatesDER
        let now = Date()
        // The public roots alone do not know the test root; with the user's root added, the path and its CRL verify.
        #expect(verificationResult { () throws(CastDeviceAuthError) in
            _ = try CastDeviceAuthenticator().verifyCertificatePath(chain, at: now)
        } == .pathVerificationFailed)
        let userStore = CastTrustStore.cast.merging(authority.trustStore)
        let authenticator = CastDeviceAuthenticator(trustStore: userStore)
        let path = try authenticator.verifyCertificatePath(chain, crlBundle: device.crlBundle, crlPolicy: .required, at: now)
        #expect(path.device.commonName == "Castor-Test-Device-01")
        #expect(path.crl != nil)
        #expect(path.certificates.count == 3)
        // The signature step over a challenge's signed data, from the credentials' real reply.
        for hash in CastDeviceAuthHashAlgorithm.allCases {
            let challenge = authenticator.makeChallenge(hashAlgorithm: hash)
            let reply = try #require(device.respond(to: challenge.message, tlsCertificateDER: tls.certificateDER))
            guard case .binary(let payload) = reply.payload else { throw CastDeviceAuthError(code: .malformedResponse, message: "text") }
            let response = try CastDeviceAuthResponse(payload: Array(payload))
            #expect(response.certificateChainDER == chain)
            #expect(response.crlBundle == device.crlBundle)
            #expect(response.hashAlgorithm == hash)
            try CastDeviceAuthenticator.verifySignature(
                response.signature, over: challenge.nonce + tls.certificateDER, hashAlgorithm: hash,
                deviceCertificateDER: device.deviceCertificateDER)
            var flipped = response.signature
            flipped[0] ^= 0x01
            #expect(verificationResult { () throws(CastDeviceAuthError) in
                try CastDeviceAuthenticator.verifySignature(
                    flipped, over: challenge.nonce + tls.certificateDER, hashAlgorithm: hash, deviceCertificateDER: device.deviceCertificateDER)
            } == .signatureVerificationFailed)
        }
        // A CRL that revokes the device, checked through the same step.
        let revoked = try authority.makeCRLBundle(revokingPublicKeysOf: [device.deviceCertificateDER])
        #expect(verificationResult { () throws(CastDeviceAuthError) in
            _ = try authenticator.verifyCertificatePath(chain, crlBundle: revoked, crlPolicy: .required, at: now)
        } == .revocationCheckFailed)
    }

    // MARK: Reading chains

    @Test("chains read from PEM and from concatenated DER are the same; junk is malformedCertificate")
    func chainFormats() throws {
        let pem = try OpenScreenTestData.chain("fugu.pem")
        #expect(pem.count == 3)
        #expect(try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: pem.flatMap { $0 }) == pem)
        #expect(try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: []) == [])
        for junk: [UInt8] in [[0x30, 0x03, 0x01, 0x01, 0x00], Array(pem[0].dropLast()), Array("hello".utf8), pem[0] + [0x04]] {
            #expect(deviceAuthErrorCode { try CastDeviceAuthenticator.certificatesDER(fromPEMOrDER: junk) } == .malformedCertificate)
        }
        let info = try CastDeviceCertificateInfo(der: pem[0])
        #expect(info.commonName == "-6394818897508095075")
        #expect(info.publicKeyAlgorithm == "RSA" && info.publicKeyBits == 2048)
        #expect(!info.isCertificateAuthority)
        #expect(info.sha256Fingerprint.count == 64)
        #expect(info.subject.contains("CN=-6394818897508095075"))
    }
}
