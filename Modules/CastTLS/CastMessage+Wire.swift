import CastJSON
import Foundation
import NIOCore
internal import SwiftProtobuf

/// The protobuf wire form of `CastMessage`, written and read by hand.
///
/// `CastMessage` is seven flat fields, and every frame in both directions goes through this code, so
/// Castor does not pay SwiftProtobuf's generic field visitors and byte-by-byte UTF-8 conversion here
/// (a 4.8 KB MEDIA_STATUS frame decoded about ten times faster). The layout is that of
/// `Proto/cast_channel.proto`; tests check the bytes against SwiftProtobuf's, and the fuzz target
/// compares both decoders on every input.
extension CastMessage {
    private enum Field {
        static let protocolVersion: UInt64 = 1
        static let sourceId: UInt64 = 2
        static let destinationId: UInt64 = 3
        static let namespace: UInt64 = 4
        static let payloadType: UInt64 = 5
        static let payloadUTF8: UInt64 = 6
        static let payloadBinary: UInt64 = 7
        static let continued: UInt64 = 8
        static let remainingLength: UInt64 = 9
    }

    private enum WireType {
        static let varint: UInt64 = 0
        static let fixed64: UInt64 = 1
        static let lengthDelimited: UInt64 = 2
        static let fixed32: UInt64 = 5
    }

    /// The protobuf form through SwiftProtobuf (tests and the fuzz target compare it with the hand-written codec).
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

    /// Appends the frame body (``encodedSize`` bytes): protocol version CASTV2_1_0, the ids, the
    /// namespace, the payload type and the payload, in field order, as SwiftProtobuf writes them.
    package func writeBody(into buffer: inout ByteBuffer) {
        // One reservation and raw stores: through ByteBuffer's checked writes, the dozen varints and
        // four strings of a body cost more than copying its payload.
        let size = encodedSize
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            var output = BodyWriter(base: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            output.varint(Field.protocolVersion << 3 | WireType.varint)
            output.varint(0)
            output.string(sourceId, field: Field.sourceId)
            output.string(destinationId, field: Field.destinationId)
            output.string(namespace, field: Field.namespace)
            output.varint(Field.payloadType << 3 | WireType.varint)
            switch payload {
            case .string(let text):
                output.varint(0)
                output.string(text, field: Field.payloadUTF8)
            case .binary(let data):
                output.varint(1)
                output.varint(Field.payloadBinary << 3 | WireType.lengthDelimited)
                output.varint(UInt64(data.count))
                data.withUnsafeBytes { output.bytes($0) }
            }
            precondition(output.count == size, "CastMessage.encodedSize disagrees with what writeBody wrote")
            return size
        }
    }

    /// Stores a body's fields at `base`, which has room for the whole body (``encodedSize``).
    private struct BodyWriter {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                base[count] = UInt8(truncatingIfNeeded: value) | 0x80
                count += 1
                value >>= 7
            }
            base[count] = UInt8(value)
            count += 1
        }

        mutating func string(_ string: String, field: UInt64) {
            var string = string
            varint(field << 3 | WireType.lengthDelimited)
            string.withUTF8 { utf8 in
                varint(UInt64(utf8.count))
                bytes(UnsafeRawBufferPointer(utf8))
            }
        }

        mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            (base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            count += bytes.count
        }
    }

    /// Serializes the frame body.
    package func serializedBody() -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(encodedSize)
        writeBody(into: &buffer)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// Parses and validates a frame body.
    ///
    /// Accepts exactly what SwiftProtobuf's proto2 parser of `cast_channel.proto` accepts, and decodes
    /// the same message, then rejects bodies with an empty source, destination or namespace, or whose
    /// payload field does not match its payload type (the checks Chrome's `IsCastMessageValid` makes).
    /// The proto2 rules, each checked against SwiftProtobuf in `WireCodecTests`:
    /// - fields may come in any order and any number of times; for a non-repeated field the last
    ///   occurrence wins;
    /// - a known field whose wire type is not the declared one is an unknown field (skipped), not an error;
    /// - unknown fields of every wire type are skipped, groups (wire types 3 and 4) included, after
    ///   checking that they are well formed: an end-group tag must close the innermost open group, and
    ///   groups nest at most ``maximumGroupDepth`` deep;
    /// - a field tag of the message is at most five bytes and fits in 32 bits (inside a group, any varint
    ///   below 2³² − 1); other varints are at most ten bytes (bits past the 64th are dropped); field
    ///   number 0 and wire types 6 and 7 are malformed;
    /// - an enum's varint is truncated to 32 bits; an unknown value is kept as an unknown field and
    ///   leaves the field as it was, so a required enum that only ever had unknown values is missing;
    /// - `string` fields hold any valid UTF-8, NUL and control characters included;
    /// - every required field must be present.
    package init(body: [UInt8]) throws(CastTransportError) {
        let result = body.withUnsafeBytes { bytes in
            Result { () throws(CastTransportError) in try CastMessage(bodyBytes: bytes) }
        }
        self = try result.get()
    }

    /// How deep unknown groups may nest: SwiftProtobuf's default message depth limit (100) counts the
    /// message itself.
    package static let maximumGroupDepth = 99

    /// Parses and validates a frame body held in `bytes`; see ``init(body:)``.
    package init(bodyBytes bytes: UnsafeRawBufferPointer) throws(CastTransportError) {
        var once = RecentWireStrings(keeps: false)
        try self.init(bodyBytes: bytes, recent: &once)
    }

    /// Parses and validates a frame body held in `bytes`, taking its ids and namespace from `recent`
    /// when they repeat one (and keeping them there).
    init(bodyBytes bytes: UnsafeRawBufferPointer, recent: inout RecentWireStrings) throws(CastTransportError) {
        var reader = WireReader(bytes: bytes)
        var hasVersion = false
        var payloadType: Int32?
        var sourceId: String?
        var destinationId: String?
        var namespace: String?
        var text: String?
        var binary: Data?
        while !reader.isAtEnd {
            let tag = try reader.topLevelTag()
            switch (tag.field, tag.wireType) {
            case (Field.protocolVersion, WireType.varint):
                // Unknown values (anything but 0...3 after truncation to int32) leave the field as it was.
                if (0...3).contains(Int32(truncatingIfNeeded: try reader.varint())) { hasVersion = true }
            case (Field.payloadType, WireType.varint):
                let value = Int32(truncatingIfNeeded: try reader.varint())
                if value == 0 || value == 1 { payloadType = value }
            case (Field.sourceId, WireType.lengthDelimited): sourceId = try reader.string(&recent)
            case (Field.destinationId, WireType.lengthDelimited): destinationId = try reader.string(&recent)
            case (Field.namespace, WireType.lengthDelimited): namespace = try reader.string(&recent)
            case (Field.payloadUTF8, WireType.lengthDelimited): text = try reader.string()
            case (Field.payloadBinary, WireType.lengthDelimited): binary = Data(try reader.bytes())
            case (Field.continued, WireType.varint), (Field.remainingLength, WireType.varint): _ = try reader.varint()
            default:
                // Unknown fields, and known fields with another wire type, which proto2 keeps as unknown fields.
                try reader.skip(tag)
            }
        }
        guard hasVersion, let payloadType, let sourceId, let destinationId, let namespace else {
            throw Self.malformed("a required field is missing")
        }
        guard !sourceId.isEmpty, !destinationId.isEmpty, !namespace.isEmpty else {
            throw CastTransportError(code: .malformedMessage, message: "CastMessage has an empty source, destination or namespace")
        }
        let payload: Payload
        if payloadType == 0 {
            guard let text else {
                throw CastTransportError(code: .malformedMessage, message: "STRING CastMessage without payload_utf8")
            }
            payload = .string(text)
        } else {
            guard let binary else {
                throw CastTransportError(code: .malformedMessage, message: "BINARY CastMessage without payload_binary")
            }
            payload = .binary(binary)
        }
        self.init(sourceId: sourceId, destinationId: destinationId, namespace: namespace, payload: payload)
    }

    fileprivate static func malformed(_ detail: String) -> CastTransportError {
        CastTransportError(code: .malformedMessage, message: "Frame body is not a CastMessage: \(detail)")
    }
}

/// A field tag: its number and wire type.
private struct WireTag {
    var field: UInt64
    var wireType: UInt64
}

/// Reads protobuf wire primitives from a buffer, never past its end.
private struct WireReader {
    let buffer: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) { buffer = bytes }

    var isAtEnd: Bool { index >= buffer.count }

    /// A tag of the message's own fields: at most five bytes and 32 bits (SwiftProtobuf reads these
    /// with a five-byte parser), field number not 0, wire type 0, 1, 2, 3 or 5 (an end-group tag with no
    /// open group is malformed).
    mutating func topLevelTag() throws(CastTransportError) -> WireTag {
        let start = index
        let key = try varint()
        guard index - start <= 5, key <= UInt64(UInt32.max) else { throw CastMessage.malformed("a field tag is longer than 32 bits") }
        let tag = WireTag(field: key >> 3, wireType: key & 7)
        guard tag.field != 0 else { throw CastMessage.malformed("field number 0") }
        guard tag.wireType <= 5, tag.wireType != 4 else {
            throw CastMessage.malformed(tag.wireType == 4 ? "an end-group tag outside a group" : "wire type \(tag.wireType)")
        }
        return tag
    }

    /// A tag inside a group: any varint below 2³² − 1 (SwiftProtobuf reads these with its general
    /// varint parser, so up to ten bytes), field number not 0, wire type 0 to 5.
    private mutating func groupTag() throws(CastTransportError) -> WireTag {
        let key = try varint()
        guard key < UInt64(UInt32.max) else { throw CastMessage.malformed("a field tag is longer than 32 bits") }
        let tag = WireTag(field: key >> 3, wireType: key & 7)
        guard tag.field != 0 else { throw CastMessage.malformed("field number 0") }
        guard tag.wireType <= 5 else { throw CastMessage.malformed("wire type \(tag.wireType)") }
        return tag
    }

    /// A varint of at most ten bytes; bits past the 64th are dropped, as protobuf parsers do.
    mutating func varint() throws(CastTransportError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < buffer.count {
            let byte = buffer[index]
            index += 1
            guard shift < 64 else { throw CastMessage.malformed("a varint is longer than ten bytes") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw CastMessage.malformed("truncated varint")
    }

    mutating func bytes() throws(CastTransportError) -> UnsafeRawBufferPointer {
        let length = try varint()
        guard length <= UInt64(buffer.count - index) else { throw CastMessage.malformed("a field runs past the end") }
        defer { index += Int(length) }
        return UnsafeRawBufferPointer(rebasing: buffer[index..<index + Int(length)])
    }

    mutating func string() throws(CastTransportError) -> String {
        guard let string = UTF8Text.string(validating: try bytes()) else {
            throw CastMessage.malformed("a string field is not valid UTF-8")
        }
        return string
    }

    /// A string field, taken from `recent` when it repeats one of its strings.
    mutating func string(_ recent: inout RecentWireStrings) throws(CastTransportError) -> String {
        guard let string = recent.string(try bytes()) else {
            throw CastMessage.malformed("a string field is not valid UTF-8")
        }
        return string
    }

    /// Skips the value of a field whose tag was just read, a whole group (nested groups included) for
    /// a start-group tag.
    mutating func skip(_ tag: WireTag) throws(CastTransportError) {
        guard tag.wireType == 3 else { return try skipValue(wireType: tag.wireType) }
        // The field numbers of the open groups, innermost last.
        var open: [UInt64] = [tag.field]
        while let innermost = open.last {
            guard !isAtEnd else { throw CastMessage.malformed("a group is not closed") }
            let inner = try groupTag()
            switch inner.wireType {
            case 4:
                guard inner.field == innermost else { throw CastMessage.malformed("an end-group tag closes another group") }
                open.removeLast()
            case 3:
                guard open.count < CastMessage.maximumGroupDepth else { throw CastMessage.malformed("groups nest too deep") }
                open.append(inner.field)
            default:
                try skipValue(wireType: inner.wireType)
            }
        }
    }

    private mutating func skipValue(wireType: UInt64) throws(CastTransportError) {
        switch wireType {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try bytes()
        case 5: try advance(4)
        default: throw CastMessage.malformed("wire type \(wireType)")
        }
    }

    private mutating func advance(_ count: Int) throws(CastTransportError) {
        guard buffer.count - index >= count else { throw CastMessage.malformed("a field runs past the end") }
        index += count
    }
}
