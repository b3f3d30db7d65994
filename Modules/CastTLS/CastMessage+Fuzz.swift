import Foundation
internal import SwiftProtobuf

extension CastMessage {
    /// Parses a frame body with SwiftProtobuf's generated `CastMessage`: the reference the hand-written
    /// codec is checked against (tests and the fuzz target), never used on the connection path.
    package init(referenceBody body: [UInt8]) throws(CastTransportError) {
        let proto: Cast_Channel_CastMessage
        do {
            proto = try Cast_Channel_CastMessage(serializedBytes: body)
        } catch {
            throw CastTransportError(code: .malformedMessage, message: "Frame body is not a CastMessage: \(error)")
        }
        guard !proto.sourceID.isEmpty, !proto.destinationID.isEmpty, !proto.namespace.isEmpty else {
            throw CastTransportError(code: .malformedMessage, message: "CastMessage has an empty source, destination or namespace")
        }
        let payload: Payload
        switch proto.payloadType {
        case .string:
            guard proto.hasPayloadUtf8 else { throw CastTransportError(code: .malformedMessage, message: "no payload_utf8") }
            payload = .string(proto.payloadUtf8)
        case .binary:
            guard proto.hasPayloadBinary else { throw CastTransportError(code: .malformedMessage, message: "no payload_binary") }
            payload = .binary(proto.payloadBinary)
        }
        self.init(sourceId: proto.sourceID, destinationId: proto.destinationID, namespace: proto.namespace, payload: payload)
    }

    /// The reference serialization through SwiftProtobuf.
    package var referenceBody: [UInt8] {
        (try? protobuf.serializedBytes()) ?? []
    }
}

/// libFuzzer-friendly entry point: decodes `bytes` as a frame body with the hand-written codec and with
/// SwiftProtobuf, and traps when they disagree (one accepts what the other rejects, or they decode
/// different messages), or when an accepted message does not re-encode to what SwiftProtobuf writes.
/// Every input is compared, groups and every other wire type included.
@_spi(Fuzzing) public func fuzzCastMessageBody(_ bytes: [UInt8]) {
    let ours = Result { () throws(CastTransportError) in try CastMessage(body: bytes) }
    let reference = Result { () throws(CastTransportError) in try CastMessage(referenceBody: bytes) }
    switch (ours, reference) {
    case (.success(let mine), .success(let theirs)):
        guard mine == theirs else { fatalError("hand-written codec decoded \(mine), SwiftProtobuf \(theirs)") }
        guard mine.serializedBody() == mine.referenceBody else { fatalError("hand-written encoding differs for \(mine)") }
        for cached in decodedTwiceWithRecentIds(bytes) {
            guard case .success(let again) = cached, again == theirs else {
                fatalError("hand-written codec with recent ids decoded \(cached), SwiftProtobuf \(theirs)")
            }
        }
    case (.failure, .failure):
        for case .success(let accepted) in decodedTwiceWithRecentIds(bytes) {
            fatalError("hand-written codec with recent ids accepted \(accepted)")
        }
    case (.success(let mine), .failure(let error)):
        fatalError("hand-written codec accepted \(mine); SwiftProtobuf rejected it: \(error)")
    case (.failure(let error), .success(let theirs)):
        fatalError("hand-written codec rejected \(theirs): \(error)")
    }
}

/// `bytes` decoded twice through one connection's cache of recent ids: the second decode takes every id
/// the first kept.
private func decodedTwiceWithRecentIds(_ bytes: [UInt8]) -> [Result<CastMessage, CastTransportError>] {
    var recent = RecentWireStrings()
    return (0..<2).map { _ in
        bytes.withUnsafeBytes { body in
            Result { () throws(CastTransportError) in try CastMessage(bodyBytes: body, recent: &recent) }
        }
    }
}
