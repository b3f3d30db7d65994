import Foundation
internal import SwiftProtobuf

/// Credentials for the emulated device's side of the differential check, made once per process.
private let fuzzCredentials: CastDeviceCredentials? = try? CastDeviceCredentials.generate(
    deviceID: "Castor Fuzz Device", now: Date(timeIntervalSince1970: 1_767_225_600))

/// libFuzzer entry point: `bytes` as a `DeviceAuthMessage` payload, read by SwiftProtobuf (the reference) and
/// by both of Castor's readers of it, which must classify it as SwiftProtobuf reads it. Traps when:
/// - a message SwiftProtobuf decodes does not re-encode (unknown fields included) to one that decodes equal;
/// - the sender's authenticator calls malformed what SwiftProtobuf decodes with a non-empty signature and
///   certificate and no error, or fails to call malformed what SwiftProtobuf rejects, or does not report a
///   receiver error for a message holding an `AuthError`;
/// - the emulated device answers anything but a message SwiftProtobuf reads as challenge-only, or answers with
///   something that is not exactly one of a response and an error.
@_spi(Fuzzing) public func fuzzDeviceAuthMessage(_ bytes: [UInt8]) {
    let decoded = try? Cast_Channel_DeviceAuthMessage(serializedBytes: bytes)
    if let decoded {
        guard let encoded = try? decoded.serializedBytes() as [UInt8],
            let again = try? Cast_Channel_DeviceAuthMessage(serializedBytes: encoded), again == decoded
        else { fatalError("SwiftProtobuf does not round-trip \(decoded)") }
    }

    // The sender's reading of a reply.
    let authenticator = CastDeviceAuthenticator(trustStore: .cast, policy: .report)
    let nonce = [UInt8](repeating: 0xA5, count: 16)
    let now = Date(timeIntervalSince1970: 1_767_225_600)
    do {
        _ = try authenticator.verify(
            responsePayload: bytes, nonce: nonce, peerCertificateDER: CastRootCertificates.castRootCA, now: now)
        guard let decoded, decoded.hasResponse, !decoded.hasError else { fatalError("verified a reply SwiftProtobuf reads as \(String(describing: decoded))") }
    } catch {
        let complete = decoded.map { $0.hasResponse && !$0.response.signature.isEmpty && !$0.response.clientAuthCertificate.isEmpty } ?? false
        switch decoded {
        case nil:
            guard error.code == .malformedResponse else { fatalError("SwiftProtobuf rejects the reply; the authenticator said \(error)") }
        case let message? where message.hasError:
            guard error.code == .receiverError else { fatalError("a reply holding an AuthError gave \(error)") }
        case _? where !complete:
            guard error.code == .malformedResponse else { fatalError("an incomplete response gave \(error)") }
        case _?:
            guard error.code != .malformedResponse else { fatalError("a complete response was called malformed: \(error)") }
        }
    }

    // The emulated device's reading of a challenge.
    guard let credentials = fuzzCredentials else { fatalError("could not make credentials") }
    let challenge = CastMessage(
        sourceId: "sender-0", destinationId: "receiver-0", namespace: CastDeviceAuthenticator.namespace, payload: .binary(Data(bytes)))
    let reply = credentials.respond(to: challenge, tlsCertificateDER: CastRootCertificates.castRootCA)
    let isChallenge = decoded.map { $0.hasChallenge && !$0.hasResponse && !$0.hasError } ?? false
    guard (reply != nil) == isChallenge else { fatalError("the device answered \(String(describing: reply)) to \(String(describing: decoded))") }
    if let reply {
        guard case .binary(let payload) = reply.payload, let answer = try? Cast_Channel_DeviceAuthMessage(serializedBytes: payload),
            answer.hasResponse != answer.hasError, !answer.hasChallenge
        else { fatalError("the device's answer is not one response or error: \(reply)") }
    }
}
