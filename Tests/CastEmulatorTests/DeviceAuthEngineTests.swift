@testable import CastTLS
import Foundation
import SwiftProtobuf
import Testing
@testable import CastEmulator

@Suite("Device authentication replies")
struct DeviceAuthEngineTests {
    func challenge(_ algorithm: Cast_Channel_SignatureAlgorithm? = nil) throws -> Envelope {
        var message = Cast_Channel_DeviceAuthMessage()
        var challenge = Cast_Channel_AuthChallenge()
        challenge.senderNonce = Data(repeating: 7, count: 16)
        challenge.hashAlgorithm = .sha256
        if let algorithm { challenge.signatureAlgorithm = algorithm }
        message.challenge = challenge
        return Envelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: Wire.deviceAuth,
                        payload: .binary(try message.serializedBytes()))
    }

    func reply(_ actions: [ReceiverAction]) throws -> Cast_Channel_DeviceAuthMessage {
        let envelope = try #require(actions.sent.first?.envelope)
        #expect(envelope.namespace == Wire.deviceAuth)
        #expect(envelope.sourceId == "receiver-0" && envelope.destinationId == "sender-0")
        guard case .binary(let bytes) = envelope.payload else {
            Issue.record("auth reply is not binary")
            return Cast_Channel_DeviceAuthMessage()
        }
        return try Cast_Channel_DeviceAuthMessage(serializedBytes: bytes)
    }

    @Test func challengeGetsAnAuthErrorAsTheFirstMessage() throws {
        var h = EngineHarness()
        h.open(1)
        let out = h.engine.receive(try challenge(), from: 1, now: h.now)
        #expect(out.sent.count == 1)
        let answer = try reply(out)
        #expect(answer.hasError && !answer.hasResponse)
        #expect(answer.error.errorType == .internalError)
        // The auth reply arms the receiver's PINGs.
        #expect(h.advance(by: .seconds(5)).json(type: "PING").count == 1)
        #expect(h.engine.violations.isEmpty)
    }

    @Test func aKeyThatCannotSignAnswersInternalErrorAndSaysWhyInTheLog() throws {
        let broken = CastDeviceCredentials(
            deviceCertificateDER: [0x30, 0x00], intermediateCertificatesDER: [], privateKeyPEM: "not a key", crlBundle: nil,
            misbehaviour: .none)
        var h = EngineHarness { settings in
            settings.deviceCredentials = broken
            settings.tlsCertificateDER = [0x30, 0x00]
        }
        h.open(1)
        let out = h.engine.receive(try challenge(), from: 1, now: h.now)
        #expect(try reply(out).error.errorType == .internalError)
        let warnings = out.compactMap { action -> String? in if case .warn(let text) = action { text } else { nil } }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("The device key cannot be parsed") == true, "\(warnings)")
        #expect(h.engine.violations.isEmpty)  // the device's failure, not the sender's
    }

    @Test func unsupportedSignatureAlgorithm() throws {
        var h = EngineHarness()
        h.open(1)
        let answer = try reply(h.engine.receive(try challenge(.rsassaPss), from: 1, now: h.now))
        #expect(answer.error.errorType == .signatureAlgorithmUnavailable)
    }

    @Test func nonChallengeMessagesAreIgnored() {
        var h = EngineHarness()
        h.open(1)
        let garbage = Envelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: Wire.deviceAuth,
                               payload: .binary(Data([0xFF, 0xFF, 0xFF])))
        #expect(h.engine.receive(garbage, from: 1, now: h.now).isEmpty)
        let text = Envelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: Wire.deviceAuth, payload: .string("{}"))
        #expect(h.engine.receive(text, from: 1, now: h.now).isEmpty)
        #expect(h.engine.violations.map(\.kind) == [.unsupportedAuthMessage, .unsupportedAuthMessage])
        // Auth messages do not arm PINGs.
        #expect(h.advance(by: .seconds(6)).isEmpty)
    }
}
