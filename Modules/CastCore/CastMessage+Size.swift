/// The size of a message's frame body: the protobuf wire form of `cast_channel.proto`'s `CastMessage`,
/// counted without writing it (the codec itself is in CastTLS). Transports check it against
/// ``CastFrame/maxBodySize`` before they queue a message.
extension CastMessage {
    /// The size in bytes of this message's frame body (the serialized protobuf), without the
    /// 4-byte length header. A message whose size exceeds ``CastFrame/maxBodySize`` cannot be sent.
    public var encodedSize: Int {
        // protocol_version and payload_type: a one-byte tag and a one-byte varint each.
        var size = 4
        size += Self.lengthDelimitedSize(sourceId.utf8.count)
        size += Self.lengthDelimitedSize(destinationId.utf8.count)
        size += Self.lengthDelimitedSize(namespace.utf8.count)
        switch payload {
        case .string(let text): size += Self.lengthDelimitedSize(text.utf8.count)
        case .binary(let data): size += Self.lengthDelimitedSize(data.count)
        }
        return size
    }

    private static func lengthDelimitedSize(_ count: Int) -> Int {
        1 + varintSize(UInt64(count)) + count
    }

    private static func varintSize(_ value: UInt64) -> Int {
        var value = value
        var count = 1
        while value >= 0x80 {
            value >>= 7
            count += 1
        }
        return count
    }
}
