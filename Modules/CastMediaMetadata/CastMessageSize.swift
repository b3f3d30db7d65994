public import CastJSON

/// The 64 KiB rule: a Cast message (the protobuf `CastMessage`, envelope and JSON payload) may not
/// exceed 65 536 bytes, or the receiver drops the connection.
///
/// Castor checks LOAD and QUEUE_* requests *before* sending them and fails with
/// ``CastMessageTooLargeError`` naming the size, so nothing is sent and nothing is lost.
public enum CastMessageSize {
    /// The largest body a Cast frame may carry, in bytes.
    public static let limit = 65_536

    /// The encoded size, in bytes, of a `CastMessage` (protocol version CASTV2_1_0, string payload) with these fields.
    ///
    /// This is protobuf arithmetic on the `cast_channel.proto` layout and agrees with `CastMessage.encodedSize`.
    public static func encodedSize(sourceId: String, destinationId: String, namespace: String, payloadUTF8Count: Int) -> Int {
        // protocol_version (field 1, varint 0) and payload_type (field 5, varint 0): tag + one byte each.
        var size = 2 + 2
        for count in [sourceId.utf8.count, destinationId.utf8.count, namespace.utf8.count, payloadUTF8Count] {
            size += 1 + varintSize(UInt64(count)) + count
        }
        return size
    }

    /// The encoded size of a message carrying `json` as its payload, serialized with sorted keys.
    public static func encodedSize(sourceId: String, destinationId: String, namespace: String, json: JSONValue) -> Int {
        encodedSize(sourceId: sourceId, destinationId: destinationId, namespace: namespace,
                    payloadUTF8Count: json.serializedData().count)
    }

    /// Throws when a message of `size` bytes is over `limit`.
    /// - Parameters:
    ///   - size: the encoded size of the message, in bytes.
    ///   - limit: the limit, 65 536 by default.
    ///   - what: the request, for the message ("LOAD", "QUEUE_INSERT"…).
    public static func check(size: Int, limit: Int = CastMessageSize.limit, what: String) throws(CastMessageTooLargeError) {
        guard size <= limit else { throw CastMessageTooLargeError(size: size, limit: limit, request: what) }
    }

    static func varintSize(_ value: UInt64) -> Int {
        var value = value
        var count = 1
        while value >= 0x80 {
            value >>= 7
            count += 1
        }
        return count
    }
}

/// A request whose encoded message would exceed the 64 KiB limit; nothing was sent.
public struct CastMessageTooLargeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The size of the encoded message, in bytes.
    public var size: Int
    /// The limit, in bytes (65 536).
    public var limit: Int
    /// The request type, such as `LOAD`.
    public var request: String

    /// Creates the error.
    public init(size: Int, limit: Int = CastMessageSize.limit, request: String) {
        self.size = size
        self.limit = limit
        self.request = request
    }

    /// A sentence naming the size and the limit.
    public var description: String {
        "The \(request) message would be \(size) bytes, over the Cast limit of \(limit) bytes; nothing was sent"
    }
}
