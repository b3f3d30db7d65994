import Foundation
import SwiftProtobuf
import Testing

@testable import CastTLS

@Suite("Device authentication: challenge, response and verification")
struct DeviceAuthVerificationTests {
    // MARK: Genuine devices

    @Test("a genuine device (test root in the trust store) is verified with SHA-256 and SHA-1",
          arguments: CastDeviceAuthHashAlgorithm.allCases)
    func genuineAccepted(_ hash: CastDeviceAuthHashAlgorithm) throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        for policy in [CastDeviceAuthPolicy.report, CastDeviceAuthPolicy(mode: .require, enforceNonce: true, requireCRL: true)] {
            let result = try deviceAuthExchange(
                device, authenticator: DeviceAuthFixtures.authenticator(policy), tlsCertificateDER: tls.certificateDER,
                hash: hash)
            #expect(result.deviceCommonName == "Castor-Test-Device-01")
            #expect(result.hashAlgorithm == hash)
            #expect(result.nonce == .matched)
            #expect(result.crlChecked)
            #expect(!result.isAudioOnly)
            #expect(result.chainCommonNames == [
                "Castor-Test-Device-01", "Castor Unit Test Intermediate CA", "Castor Unit Test Root CA",
            ])
        }
    }

    @Test("the challenge is a binary DeviceAuthMessage from sender-0 to receiver-0 with a 16-byte nonce and SHA-256")
    func challengeShape() throws {
        let authenticator = CastDeviceAuthenticator()
        let challenge = authenticator.makeChallenge()
        #expect(challenge.nonce.count == 16)
        #expect(challenge.nonce != authenticator.makeChallenge().nonce, "fresh random nonces")
        #expect(challenge.message.sourceId == "sender-0")
        #expect(challenge.message.destinationId == "receiver-0")
        #expect(challenge.message.namespace == "urn:x-cast:com.google.cast.tp.deviceauth")
        #expect(CastDeviceAuthenticator.isDeviceAuthMessage(challenge.message))
        guard case .binary(let payload) = challenge.message.payload else {
            Issue.record("the challenge payload is not binary")
            return
        }
        let parsed = try Cast_Channel_DeviceAuthMessage(serializedBytes: payload)
        #expect(parsed.hasChallenge && !parsed.hasResponse && !parsed.hasError)
        #expect([UInt8](parsed.challenge.senderNonce) == challenge.nonce)
        #expect(parsed.challenge.hashAlgorithm == .sha256)
        #expect(parsed.challenge.signatureAlgorithm == .rsassaPkcs1V15)
    }

    @Test("the exchange works over an in-memory transport pair, and the reply swaps the ids")
    func inMemoryTransport() async throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator(CastDeviceAuthPolicy(mode: .require, enforceNonce: true))
        let (sender, receiver) = InMemoryCastTransport.pair()
        let receiverTask = Task {
            for try await message in receiver.inbound {
                if let reply = device.respond(to: message, tlsCertificateDER: tls.certificateDER) {
                    try receiver.send(reply)
                }
            }
        }
        let challenge = authenticator.makeChallenge()
        // A message on another namespace first: the credentials ignore it.
        try sender.send(CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:test", json: ["type": "PING"]))
        try sender.send(challenge.message)
        var iterator = sender.inbound.makeAsyncIterator()
        let reply = try #require(try await iterator.next())
        #expect(reply.sourceId == "receiver-0" && reply.destinationId == "sender-0")
        let status = authenticator.evaluate(reply: reply, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        #expect(status.isVerified)
        #expect(authenticator.policy.admits(status))
        #expect(status.description == "genuine (Castor-Test-Device-01)")
        await sender.close()
        await receiver.close()
        receiverTask.cancel()
    }

    @Test("an audio-only device is verified and reported as audio-only")
    func audioOnly() throws {
        let device = try DeviceAuthFixtures.authority.get().issueDevice(deviceID: "Castor-Audio", audioOnly: true)
        let tls = try DeviceAuthFixtures.tls.get()
        let result = try deviceAuthExchange(device, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER)
        #expect(result.isAudioOnly)
        #expect(CastDeviceAuthStatus.verified(result).description == "genuine (Castor-Audio, audio-only)")
    }

    // MARK: Misbehaving devices

    struct MisbehaviourCase: Sendable, CustomTestStringConvertible {
        let misbehaviour: CastDeviceAuthMisbehaviour
        let expected: CastDeviceAuthError.Code
        let enforceNonce: Bool
        var requireCRL = false
        var testDescription: String {
            "\(misbehaviour) → \(expected)\(enforceNonce ? " (nonce enforced)" : "")\(requireCRL ? " (CRL required)" : "")"
        }
    }

    static let misbehaviours: [MisbehaviourCase] = [
        MisbehaviourCase(misbehaviour: .chainToOtherRoot, expected: .untrustedChain, enforceNonce: false),
        MisbehaviourCase(misbehaviour: .signOverOtherCertificate, expected: .badSignature, enforceNonce: false),
        MisbehaviourCase(misbehaviour: .ignoreNonce, expected: .nonceMismatch, enforceNonce: true),
        MisbehaviourCase(misbehaviour: .echoWrongNonce, expected: .nonceMismatch, enforceNonce: true),
        MisbehaviourCase(misbehaviour: .answerWithError, expected: .receiverError, enforceNonce: false),
        MisbehaviourCase(misbehaviour: .revokedByPublicKey, expected: .revoked, enforceNonce: false),
        MisbehaviourCase(misbehaviour: .revokedBySerialNumber, expected: .revoked, enforceNonce: false),
        MisbehaviourCase(misbehaviour: .invalidCRL, expected: .invalidCRL, enforceNonce: false, requireCRL: true),
    ]

    @Test("each misbehaviour is rejected with its own error code", arguments: misbehaviours)
    func misbehaviourRejected(_ testCase: MisbehaviourCase) throws {
        let device = try DeviceAuthFixtures.authority.get().issueDevice(
            deviceID: "Castor-Misbehaving", misbehaviour: testCase.misbehaviour)
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator(
            CastDeviceAuthPolicy(mode: .require, enforceNonce: testCase.enforceNonce, requireCRL: testCase.requireCRL))
        for hash in CastDeviceAuthHashAlgorithm.allCases {
            let code = deviceAuthErrorCode {
                try deviceAuthExchange(device, authenticator: authenticator, tlsCertificateDER: tls.certificateDER, hash: hash)
            }
            #expect(code == testCase.expected, "\(hash)")
        }
        let challenge = authenticator.makeChallenge()
        let reply = device.respond(to: challenge.message, tlsCertificateDER: tls.certificateDER)
        let status = authenticator.evaluate(reply: reply, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        #expect(!status.isVerified)
        #expect(!authenticator.policy.admits(status), "require mode refuses the device")
        #expect(CastDeviceAuthPolicy.report.admits(status), "report mode continues")
        #expect(status.description.hasPrefix("failed: \(testCase.expected):"))
    }

    @Test("an AuthError reply carries the receiver's error type")
    func receiverErrorType() throws {
        let device = try DeviceAuthFixtures.device.get().withMisbehaviour(.answerWithError)
        let tls = try DeviceAuthFixtures.tls.get()
        do {
            _ = try deviceAuthExchange(device, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER)
            Issue.record("an AuthError reply was accepted")
        } catch let error as CastDeviceAuthError {
            #expect(error.code == .receiverError)
            #expect(error.receiverErrorType == .internalError)
        }
    }

    @Test("with nonce enforcement off, a missing or wrong echo is reported, and the signature over it still checked")
    func nonceNotEnforced() throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator(.report)
        let missing = try deviceAuthExchange(
            device.withMisbehaviour(.ignoreNonce), authenticator: authenticator, tlsCertificateDER: tls.certificateDER)
        #expect(missing.nonce == .missing)
        let wrong = try deviceAuthExchange(
            device.withMisbehaviour(.echoWrongNonce), authenticator: authenticator, tlsCertificateDER: tls.certificateDER)
        #expect(wrong.nonce == .mismatched)
        // Echo the right nonce but sign over another one: the signature fails.
        let challenge = authenticator.makeChallenge()
        let otherChallenge = authenticator.makeChallenge()
        let reply = try #require(device.respond(to: otherChallenge.message, tlsCertificateDER: tls.certificateDER))
        let rewritten = try rewriteResponse(reply) { $0.senderNonce = Data(challenge.nonce) }
        #expect(deviceAuthErrorCode {
            try authenticator.verify(reply: rewritten, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        } == .badSignature)
    }

    @Test("the real Cast roots do not trust a test device")
    func untrustedWithDefaultRoots() throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(device, authenticator: CastDeviceAuthenticator(), tlsCertificateDER: tls.certificateDER)
        } == .untrustedChain)
    }

    @Test("a chain without its intermediate, or a device certificate that expired, is untrusted")
    func incompleteOrExpiredChain() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator()
        let noIntermediate = CastDeviceCredentials(
            deviceCertificateDER: device.deviceCertificateDER, intermediateCertificatesDER: [],
            privateKeyPEM: device.privateKeyPEM, crlBundle: nil, misbehaviour: .none)
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(noIntermediate, authenticator: authenticator, tlsCertificateDER: tls.certificateDER)
        } == .untrustedChain)

        let expired = try authority.issueDevice(
            deviceID: "Castor-Expired", now: Date().addingTimeInterval(-10 * 24 * 3600), validity: 24 * 3600, includeCRL: false)
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(expired, authenticator: authenticator, tlsCertificateDER: tls.certificateDER)
        } == .untrustedChain)
    }

    @Test("a device certificate issued by a non-CA certificate, or lacking digitalSignature, is untrusted")
    func constraintViolations() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator()
        let start = Date().addingTimeInterval(-3600)
        let end = Date().addingTimeInterval(24 * 3600)
        let intermediate = try DeviceAuthKeyPair(
            certificatePEM: authority.intermediateCertificatePEM, keyPEM: authority.intermediateKeyPEM)
        let deviceKey = try GnuTLSX509PrivateKey(bytes: Array(device.privateKeyPEM.utf8), pem: true)
        // The genuine device certificate (not a CA) issues another "device" certificate.
        let genuine = try DeviceAuthKeyPair(
            certificatePEM: String(decoding: try GnuTLSX509Certificate(bytes: device.deviceCertificateDER, pem: false).export(pem: true), as: UTF8.self),
            keyPEM: device.privateKeyPEM)
        let subordinate = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: "Castor-Subordinate", isCA: false, key: deviceKey, notBefore: start, notAfter: end), issuer: genuine)
        let fake = CastDeviceCredentials(
            deviceCertificateDER: subordinate.certificateDER,
            intermediateCertificatesDER: [device.deviceCertificateDER, intermediate.certificateDER],
            privateKeyPEM: device.privateKeyPEM, crlBundle: nil, misbehaviour: .none)
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(fake, authenticator: authenticator, tlsCertificateDER: tls.certificateDER)
        } == .untrustedChain)

        // A CA certificate (keyCertSign, no digitalSignature) used as the device certificate.
        let caAsDevice = try DeviceAuthCertificateIssuer.issue(
            .init(commonName: "Castor-CA-As-Device", isCA: true, pathLength: 0, key: deviceKey, notBefore: start, notAfter: end),
            issuer: intermediate)
        let misused = CastDeviceCredentials(
            deviceCertificateDER: caAsDevice.certificateDER, intermediateCertificatesDER: [intermediate.certificateDER],
            privateKeyPEM: device.privateKeyPEM, crlBundle: nil, misbehaviour: .none)
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(misused, authenticator: authenticator, tlsCertificateDER: tls.certificateDER)
        } == .untrustedChain)
    }

    @Test("a device key below 2048 bits is rejected as weak")
    func weakKey() throws {
        let device = try DeviceAuthFixtures.authority.get().issueDevice(deviceID: "Castor-Weak", keyBits: 1024)
        let tls = try DeviceAuthFixtures.tls.get()
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(device, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER)
        } == .weakKey)
    }

    // MARK: TLS certificate validity

    @Test("the TLS certificate must be valid now and for at most 4 more days")
    func tlsCertificateValidity() throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator()
        func code(_ der: [UInt8], now: Date) -> CastDeviceAuthError.Code? {
            deviceAuthErrorCode {
                try deviceAuthExchange(device, authenticator: authenticator, tlsCertificateDER: der, now: now)
            }
        }
        #expect(code(tls.certificateDER, now: tls.notAfter.addingTimeInterval(1)) == .expiredTLSCertificate)
        #expect(code(tls.certificateDER, now: tls.notBefore.addingTimeInterval(-1)) == .expiredTLSCertificate)
        #expect(code([0x30, 0x00], now: Date()) == .invalidTLSCertificate)
        // Valid from now for 5 days: too long (a long-lived TLS certificate).
        let longLived = try TLSCredentials.selfSigned(
            commonName: "Castor Long-Lived TLS", validity: .seconds(5 * 24 * 3600), keyBits: 2048, notBefore: Date(),
            allowLongValidity: true)
        #expect(code(longLived.certificateDER, now: Date()) == .tlsCertificateValidTooLong)
        // The same certificate is fine once less than 4 days remain.
        #expect(code(longLived.certificateDER, now: longLived.notAfter.addingTimeInterval(-3 * 24 * 3600)) == nil)
    }

    // MARK: Malformed replies and algorithms

    @Test("malformed replies are rejected as malformedResponse")
    func malformedReplies() throws {
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator()
        let challenge = authenticator.makeChallenge()
        let namespace = CastDeviceAuthenticator.namespace
        let replies: [CastMessage] = [
            CastMessage(sourceId: "receiver-0", destinationId: "sender-0", namespace: namespace, payload: .string("{}")),
            CastMessage(sourceId: "receiver-0", destinationId: "sender-0", namespace: "urn:x-cast:other", payload: .binary(Data())),
            CastMessage(sourceId: "receiver-0", destinationId: "sender-0", namespace: namespace, payload: .binary(Data([0xFF, 0xFF, 0xFF]))),
            CastMessage(sourceId: "receiver-0", destinationId: "sender-0", namespace: namespace, payload: .binary(Data())),
            // The challenge echoed back: no response.
            challenge.message.reply(challenge.message.payload),
        ]
        for reply in replies {
            #expect(deviceAuthErrorCode {
                try authenticator.verify(reply: reply, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
            } == .malformedResponse, "\(reply)")
        }
        let device = try DeviceAuthFixtures.device.get()
        let reply = try #require(device.respond(to: challenge.message, tlsCertificateDER: tls.certificateDER))
        // A response whose device certificate is garbage: the path step reports it.
        let garbled = try rewriteResponse(reply) { $0.clientAuthCertificate = Data([0x30, 0x03, 0x01, 0x01, 0x00]) }
        #expect(deviceAuthErrorCode {
            try authenticator.verify(reply: garbled, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        } == .malformedCertificate)
    }

    @Test("a reply signed with RSASSA-PSS is an unsupported algorithm; a PSS challenge gets SIGNATURE_ALGORITHM_UNAVAILABLE")
    func unsupportedAlgorithms() throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authenticator = try DeviceAuthFixtures.authenticator()
        let challenge = authenticator.makeChallenge()
        let reply = try #require(device.respond(to: challenge.message, tlsCertificateDER: tls.certificateDER))
        let pss = try rewriteResponse(reply) { $0.signatureAlgorithm = .rsassaPss }
        #expect(deviceAuthErrorCode {
            try authenticator.verify(reply: pss, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        } == .unsupportedAlgorithm)

        var request = Cast_Channel_DeviceAuthMessage()
        request.challenge.signatureAlgorithm = .rsassaPss
        request.challenge.senderNonce = Data(challenge.nonce)
        let pssChallenge = CastMessage(
            sourceId: "sender-0", destinationId: "receiver-0", namespace: CastDeviceAuthenticator.namespace,
            payload: .binary(Data(try request.serializedBytes() as [UInt8])))
        let errorReply = try #require(device.respond(to: pssChallenge, tlsCertificateDER: tls.certificateDER))
        do {
            _ = try authenticator.verify(reply: errorReply, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
            Issue.record("an AuthError reply was accepted")
        } catch {
            #expect(error.code == .receiverError)
            #expect(error.receiverErrorType == .signatureAlgorithmUnavailable)
        }
    }

    @Test("the credentials ignore messages that are not pure challenges")
    func credentialsIgnoreNonChallenges() throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let namespace = CastDeviceAuthenticator.namespace
        let challenge = CastDeviceAuthenticator().makeChallenge()
        let reply = try #require(device.respond(to: challenge.message, tlsCertificateDER: tls.certificateDER))
        let ignored: [CastMessage] = [
            CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: namespace, payload: .string("x")),
            CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: namespace, payload: .binary(Data([1, 2, 3]))),
            CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:other", payload: challenge.message.payload),
            reply,  // a response, not a challenge
        ]
        for message in ignored {
            #expect(device.respond(to: message, tlsCertificateDER: tls.certificateDER) == nil, "\(message)")
        }
    }

    // MARK: CRL policy

    @Test("without a CRL the device is verified unless the policy requires one (missingCRL)")
    func crlRequirement() throws {
        let device = try DeviceAuthFixtures.authority.get().issueDevice(deviceID: "Castor-No-CRL", includeCRL: false)
        let tls = try DeviceAuthFixtures.tls.get()
        let result = try deviceAuthExchange(device, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER)
        #expect(!result.crlChecked)
        #expect(deviceAuthErrorCode {
            try deviceAuthExchange(
                device, authenticator: DeviceAuthFixtures.authenticator(CastDeviceAuthPolicy(requireCRL: true)),
                tlsCertificateDER: tls.certificateDER)
        } == .missingCRL)
    }

    @Test("a CRL outside its validity window, signed under an untrusted CRL root, or garbage is invalidCRL when required, set aside when optional")
    func crlWindowAndRoot() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let stale = try authority.makeCRLBundle(now: Date().addingTimeInterval(-60 * 24 * 3600), validity: 24 * 3600)
        func withCRL(_ bundle: [UInt8]) -> CastDeviceCredentials {
            CastDeviceCredentials(
                deviceCertificateDER: device.deviceCertificateDER, intermediateCertificatesDER: device.intermediateCertificatesDER,
                privateKeyPEM: device.privateKeyPEM, crlBundle: bundle, misbehaviour: .none)
        }
        // Trust the device root but the public Cast CRL root: the test CRL signer is untrusted.
        let mixed = try CastTrustStore(deviceRootsPEM: authority.rootCertificatePEM).merging(
            CastTrustStore(deviceRootsDER: [CastRootCertificates.castRootCA], crlRootsDER: [CastRootCertificates.castCRLRootCA]))
        let cases: [(CastDeviceCredentials, CastTrustStore)] = [
            (withCRL(stale), authority.trustStore), (device, mixed), (withCRL([0x0A, 0x05, 0x01]), authority.trustStore),
        ]
        for (credentials, store) in cases {
            let required = CastDeviceAuthenticator(trustStore: store, policy: CastDeviceAuthPolicy(requireCRL: true))
            #expect(deviceAuthErrorCode {
                try deviceAuthExchange(credentials, authenticator: required, tlsCertificateDER: tls.certificateDER)
            } == .invalidCRL)
            // Optional (the default), as Chrome and Open Screen: verified without the CRL, and the reason is kept.
            let result = try deviceAuthExchange(
                credentials, authenticator: CastDeviceAuthenticator(trustStore: store), tlsCertificateDER: tls.certificateDER)
            #expect(!result.crlChecked)
            #expect(result.certificatePath?.crl == nil)
            #expect(result.certificatePath?.unusedCRLReason?.code == .invalidCRL)
        }
    }

    @Test("a CRL revoking the intermediate's key or a serial range around the device rejects the chain")
    func crlRevokesIssuers() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let intermediate = try #require(device.intermediateCertificatesDER.first)
        let serial = try #require(try DeviceAuthCertificate(der: device.deviceCertificateDER).serialNumberUInt64)
        let bundles = [
            try authority.makeCRLBundle(revokingPublicKeysOf: [intermediate]),
            try authority.makeCRLBundle(revokingSerialNumbers: [(intermediate, serial > 0 ? serial - 1...serial : serial...serial)]),
        ]
        for bundle in bundles {
            let revoked = CastDeviceCredentials(
                deviceCertificateDER: device.deviceCertificateDER, intermediateCertificatesDER: device.intermediateCertificatesDER,
                privateKeyPEM: device.privateKeyPEM, crlBundle: bundle, misbehaviour: .none)
            #expect(deviceAuthErrorCode {
                try deviceAuthExchange(revoked, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER)
            } == .revoked)
        }
        // A range under the wrong issuer (the device's own key) revokes nothing.
        let unrelated = try authority.makeCRLBundle(revokingSerialNumbers: [(device.deviceCertificateDER, 0...UInt64.max)])
        let fine = CastDeviceCredentials(
            deviceCertificateDER: device.deviceCertificateDER, intermediateCertificatesDER: device.intermediateCertificatesDER,
            privateKeyPEM: device.privateKeyPEM, crlBundle: unrelated, misbehaviour: .none)
        #expect(try deviceAuthExchange(fine, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER).crlChecked)
    }

    // MARK: Policy and status

    @Test("policy off reports notChecked; a missing reply is noResponse; require refuses both, report admits both")
    func policyOutcomes() throws {
        let tls = try DeviceAuthFixtures.tls.get()
        let off = CastDeviceAuthenticator(policy: .off)
        let challenge = off.makeChallenge()
        let notChecked = off.evaluate(reply: nil, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        #expect(notChecked == .notChecked)
        #expect(notChecked.description == "unverified")
        let silent = CastDeviceAuthenticator(policy: .require).evaluate(
            reply: nil, to: challenge, peerCertificateDER: tls.certificateDER, now: Date())
        guard case .failed(let error) = silent else {
            Issue.record("a missing reply did not fail")
            return
        }
        #expect(error.code == .noResponse)
        #expect(!CastDeviceAuthPolicy.require.admits(silent))
        #expect(!CastDeviceAuthPolicy.require.admits(.notChecked))
        #expect(CastDeviceAuthPolicy.report.admits(silent))
        #expect(CastDeviceAuthPolicy.off.admits(silent))
        let noCertificate = CastDeviceAuthenticator(policy: .require).evaluate(
            reply: challenge.message, to: challenge, peerCertificateDER: nil, now: Date())
        #expect(noCertificate == .failed(CastDeviceAuthError(code: .invalidTLSCertificate, message: "The TLS peer presented no certificate")))
    }

    // MARK: Loading and storing credentials

    @Test("credentials round-trip through PEM; a key of another device is refused")
    func credentialsPEM() throws {
        let device = try DeviceAuthFixtures.device.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let authority = try DeviceAuthFixtures.authority.get()
        let loaded = try CastDeviceCredentials(
            chainPEM: device.chainPEM + authority.rootCertificatePEM, privateKeyPEM: device.privateKeyPEM,
            crlBundle: device.crlBundle)
        #expect(loaded.deviceCertificateDER == device.deviceCertificateDER)
        #expect(loaded.intermediateCertificatesDER == device.intermediateCertificatesDER, "the trailing root is dropped")
        #expect(try deviceAuthExchange(loaded, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER).crlChecked)

        #expect(deviceAuthErrorCode {
            try CastDeviceCredentials(chainPEM: device.chainPEM, privateKeyPEM: tls.privateKeyPEM)
        } == .invalidCredentials)
        #expect(deviceAuthErrorCode {
            try CastDeviceCredentials(chainPEM: "", privateKeyPEM: device.privateKeyPEM)
        } == .invalidCredentials)
    }

    @Test("an authority written to a directory reloads and issues devices its trust store accepts")
    func authorityFiles() throws {
        let authority = try DeviceAuthFixtures.authority.get()
        let tls = try DeviceAuthFixtures.tls.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("castor-deviceauth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try authority.write(to: directory)
        let keyAttributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("root.key").path)
        #expect((keyAttributes[.posixPermissions] as? Int) == 0o600)
        let reloaded = try CastTestCertificateAuthority(directory: directory)
        #expect(reloaded.trustStore == authority.trustStore)
        let device = try reloaded.issueDevice(deviceID: "Castor-Reloaded")
        let result = try deviceAuthExchange(device, authenticator: DeviceAuthFixtures.authenticator(), tlsCertificateDER: tls.certificateDER)
        #expect(result.deviceCommonName == "Castor-Reloaded")
        #expect(result.crlChecked)

        try FileManager.default.removeItem(at: directory.appendingPathComponent("crl-signer.key"))
        #expect(deviceAuthErrorCode {
            try CastTestCertificateAuthority(directory: directory)
        } == .invalidCredentials)
    }
}

/// Re-serializes `reply` with its `AuthResponse` changed by `change`.
func rewriteResponse(_ reply: CastMessage, _ change: (inout Cast_Channel_AuthResponse) -> Void) throws -> CastMessage {
    guard case .binary(let payload) = reply.payload else { throw CastDeviceAuthError(code: .malformedResponse, message: "not binary") }
    var message = try Cast_Channel_DeviceAuthMessage(serializedBytes: payload)
    change(&message.response)
    return CastMessage(
        sourceId: reply.sourceId, destinationId: reply.destinationId, namespace: reply.namespace,
        payload: .binary(Data(try message.serializedBytes() as [UInt8])))
}
