/// The members a Cast message is routed by — `type` (or `responseType`) and `requestId` — read from the
/// JSON text without building a ``JSONValue`` tree.
///
/// The values are those of the tree (`json["type"]?.stringValue ?? json["responseType"]?.stringValue`,
/// `json["requestId"]?.intValue`): both `nil` for text that is not JSON or not an object, a repeated
/// member keeps its last value. The whole document is checked (other members are skipped, not kept).
package struct JSONEnvelope: Sendable, Hashable {
    /// `type`, else `responseType`, when it is a string.
    package var type: String?
    /// `requestId`, when it is an integer (``JSONValue/intValue``'s rule).
    package var requestId: Int?

    private enum Member: Int, CaseIterable { case type, responseType, requestId }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// Reads the envelope of `bytes` (UTF-8 JSON text).
    package init(_ bytes: some Collection<UInt8>) {
        // Generic callers only find the buffer: the reading itself is specialized (see `JSONPullReader.read`).
        let read = try? JSONPullReader.withContiguousBytes(of: bytes, Self.read(buffer:)).get()
        type = read?.0 ?? read?.1
        requestId = read?.2
    }

    private static func read(buffer: UnsafeBufferPointer<UInt8>) -> Result<(String?, String?, Int?), JSONError> {
        JSONPullReader.read(buffer: buffer) { reader throws(JSONError) -> (String?, String?, Int?) in
            guard try reader.peek() == .object else {
                try reader.skipValue()
                return (nil, nil, nil)
            }
            var type: String?
            var responseType: String?
            var requestId: Int?
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch Self.members.index(of: key).flatMap(Member.init(rawValue:)) {
                case .type: type = try reader.lenientString()
                case .responseType: responseType = try reader.lenientString()
                case .requestId: requestId = try reader.lenientDouble().flatMap { JSONValue.number($0).intValue }
                case nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            return (type, responseType, requestId)
        }
    }
}

extension JSONEnvelope {
    /// The routing `type` of `bytes`: `type`, else `responseType`, when a string — read only as far
    /// as needed (usually the first member), without checking the rest of the document.
    ///
    /// Unlike ``init(_:)`` the first `type` found wins and a document malformed after it still has
    /// one; the message's JSON (parsed when asked for) is what says whether the document is valid.
    package static func type(in bytes: some Collection<UInt8>) -> String? {
        try? JSONPullReader.withContiguousBytes(of: bytes, type(inBuffer:)).get()
    }

    /// ``type(in:)`` of a buffer: not generic, so a caller in another module (a message reading its own
    /// payload's UTF-8) looks up no generic metadata at run time.
    package static func type(buffer: UnsafeBufferPointer<UInt8>) -> String? {
        try? type(inBuffer: buffer).get()
    }

    private static func type(inBuffer buffer: UnsafeBufferPointer<UInt8>) -> Result<String?, JSONError> {
        JSONPullReader.readPrefix(buffer: buffer) { reader throws(JSONError) -> String? in
            guard try reader.peek() == .object else { return nil }
            var responseType: String?
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch members.index(of: key).flatMap(Member.init(rawValue:)) {
                case .type:
                    if let type = try reader.lenientString() { return type }
                case .responseType: responseType = try reader.lenientString() ?? responseType
                case .requestId, nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            return responseType
        }
    }

    /// The routing `requestId` of `bytes` (``JSONValue/intValue``'s rule), read only as far as the
    /// member, without checking the rest of the document; the first one found wins.
    package static func requestId(in bytes: some Collection<UInt8>) -> Int? {
        try? JSONPullReader.withContiguousBytes(of: bytes, requestId(inBuffer:)).get()
    }

    /// ``requestId(in:)`` of a buffer: not generic (the generic form, called from another module, looked up
    /// `Optional`'s metadata at run time for every reply).
    package static func requestId(buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        try? requestId(inBuffer: buffer).get()
    }

    private static func requestId(inBuffer buffer: UnsafeBufferPointer<UInt8>) -> Result<Int?, JSONError> {
        JSONPullReader.readPrefix(buffer: buffer) { reader throws(JSONError) -> Int? in
            guard try reader.peek() == .object else { return nil }
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                if members.index(of: key).flatMap(Member.init(rawValue:)) == .requestId {
                    return try reader.lenientDouble().flatMap { JSONValue.number($0).intValue }
                }
                try reader.skipValue()
                more = try reader.endMember()
            }
            return nil
        }
    }
}
