import CastCore
import CastJSON
import CastTestSupport
import Foundation
import Synchronization
import Testing

@testable import CastChannels

/// Device authentication through the light layer alone: a connection runs the check a
/// ``CastDeviceVerifier`` defines (here one of the test's own, over the in-memory transport), and
/// skips it when neither the transport nor the caller offers one. No TLS module is imported.
@Suite("CastConnection: the device-authentication check is injected")
struct DeviceVerifierTests {
    /// A check of our own: the challenge carries a nonce, a genuine device answers it reversed.
    final class ReversedNonceVerifier: CastDeviceVerifier {
        let evaluations = Mutex(0)

        func makeChallenge() -> CastDeviceAuthChallenge {
            let nonce: [UInt8] = [1, 2, 3, 4]
            return CastDeviceAuthChallenge(
                nonce: nonce, hashAlgorithm: .sha256,
                message: CastMessage(sourceId: "sender-0", destinationId: "receiver-0",
                                     namespace: CastNamespace.deviceAuth.rawValue, payload: .binary(Data(nonce))))
        }

        func evaluate(
            reply: CastMessage?, to challenge: CastDeviceAuthChallenge, peerCertificateDER: [UInt8]?,
            trustStore: CastTrustStore, policy: CastDeviceAuthPolicy, now: Date
        ) -> CastDeviceAuthStatus {
            evaluations.withLock { $0 += 1 }
            guard let reply, case .binary(let answer) = reply.payload, Array(answer) == challenge.nonce.reversed() else {
                return .failed(CastDeviceAuthError(code: .badSignature, message: "not the reversed nonce"))
            }
            return .verified(CastDeviceAuthResult(
                deviceCommonName: "reversing device", isAudioOnly: false, hashAlgorithm: challenge.hashAlgorithm,
                nonce: .matched, crlChecked: false, chainCommonNames: []))
        }
    }

    /// A device that answers the challenge with the nonce reversed, or with a wrong byte.
    static func pairedDevice(answersCorrectly: Bool) -> (FakeDevice, InMemoryCastTransport) {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let device = FakeDevice(senderEnd: senderEnd, receiverEnd: receiverEnd) { peer in
            peer.on(namespace: CastNamespace.deviceAuth.rawValue, type: nil) { message, _ in
                guard case .binary(let nonce) = message.payload else { return [] }
                let answer = answersCorrectly ? Data(nonce.reversed()) : Data([0xFF])
                return [message.reply(.binary(answer))]
            }
        }
        return (device, senderEnd)
    }

    @Test("a transport without a verifier: nothing is sent on the device-auth namespace, the status is notChecked")
    func noVerifierNoChallenge() async throws {
        let (device, senderEnd) = Self.pairedDevice(answersCorrectly: true)
        #expect(senderEnd.deviceVerifier == nil)
        let connection = CastConnection(transport: senderEnd, configuration: .init(deviceAuthPolicy: .require),
                                        peerCertificateDER: [0x30, 0x00])
        _ = try await connection.start()
        #expect(connection.deviceVerifier == nil)
        #expect(connection.deviceAuthStatus == .notChecked)
        #expect(!device.peer.received.contains { $0.namespace == CastNamespace.deviceAuth.rawValue })
        await connection.close()
    }

    @Test("an injected verifier: its challenge goes first, its verdict is the connection's status")
    func injectedVerifierDecides() async throws {
        let (device, senderEnd) = Self.pairedDevice(answersCorrectly: true)
        let verifier = ReversedNonceVerifier()
        let connection = CastConnection(transport: senderEnd, configuration: .init(deviceAuthPolicy: .require),
                                        peerCertificateDER: [0x30, 0x00], deviceVerifier: verifier)
        _ = try await connection.start()
        #expect(device.peer.received.first?.namespace == CastNamespace.deviceAuth.rawValue)
        #expect(verifier.evaluations.withLock { $0 } == 1)
        guard case .verified(let result) = connection.deviceAuthStatus else {
            Issue.record("expected a verified device, got \(connection.deviceAuthStatus)")
            return
        }
        #expect(result.deviceCommonName == "reversing device")
        await connection.close()
    }

    @Test("under .require, a device the verifier rejects fails start with notGenuine")
    func requireRefusesARejectedDevice() async throws {
        let (_, senderEnd) = Self.pairedDevice(answersCorrectly: false)
        let connection = CastConnection(transport: senderEnd, configuration: .init(deviceAuthPolicy: .require),
                                        peerCertificateDER: [0x30, 0x00], deviceVerifier: ReversedNonceVerifier())
        let error = await #expect(throws: CastChannelError.self) { _ = try await connection.start() }
        #expect(error?.code == .notGenuine)
        if case .failed(let failure) = connection.deviceAuthStatus {
            #expect(failure.code == .badSignature)
        } else {
            Issue.record("expected the verifier's failure, got \(connection.deviceAuthStatus)")
        }
        await connection.close()
    }
}
