import Foundation
internal import SwiftProtobuf

extension CastMessage {
    /// The size in bytes of this message's frame body (the serialized protobuf), without the
    /// 4-byte length header. A message whose size exceeds ``CastFrame/maxBodySize`` cannot be sent.
    public var encodedSize: Int {
        (try? protobuf.serializedBytes() as [UInt8])?.count ?? Int.max
    }

    /// The protobuf form; `protocol_version` and `payload_type` are always set, as receivers require.
    package var protobuf: Cast_Channel_CastMessage {
        var proto = Cast_Channel_CastMessage()
        proto.protocolVersion = .castv210
        proto.sourceID = sourceId
        proto.destinationID = destinationId
        proto.namespace = namespace
        switch payload {
        case .string(let text):
            proto.payloadType = .string
            proto.payloadUtf8 = text
        case .binary(let data):
            proto.payloadType = .binary
            proto.payloadBinary = data
        }
        return proto
    }

    /// Serializes the frame body.
    package func serializedBody() throws(CastTransportError) -> [UInt8] {
        do {
            return try protobuf.serializedBytes()
        } catch {
            throw CastTransportError(code: .malformedMessage, message: "Cannot serialize message: \(error)")
        }
    }

    /// Parses and validates a frame body.
    ///
    /// Rejects bodies that are not a `CastMessage`, that lack a required field, that have an empty
    /// source, destination or namespace, or whose payload field does not match its payload type
    /// (the checks Chrome's `IsCastMessageValid` makes).
    package init(body: [UInt8]) throws(CastTransportError) {
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
            guard proto.hasPayloadUtf8 else {
                throw CastTransportError(code: .malformedMessage, message: "STRING CastMessage without payload_utf8")
            }
            payload = .string(proto.payloadUtf8)
        case .binary:
            guard proto.hasPayloadBinary else {
                throw CastTransportError(code: .malformedMessage, message: "BINARY CastMessage without payload_binary")
            }
            payload = .binary(proto.payloadBinary)
        }
        self.init(sourceId: proto.sourceID, destinationId: proto.destinationID, namespace: proto.namespace, payload: payload)
    }
}
