public import CastJSON

/// A message on the Cast Streaming control namespace, `urn:x-cast:com.google.cast.webrtc` (RPC on
/// `…remoting`): the sender's OFFER, GET_CAPABILITIES and GET_STATUS, the receiver's ANSWER,
/// CAPABILITIES_RESPONSE and STATUS_RESPONSE, their error forms, and remoting RPC.
///
/// Every message but RPC carries a `seqNum`; a reply quotes the request's. Replies carry `result`
/// `ok`, or `error` with `{code, description}`.
public enum StreamingMessage: Sendable, Hashable {
    /// The sender's OFFER.
    case offer(sequenceNumber: Int, offer: StreamingOffer)
    /// The sender asks for the receiver's media capabilities (remoting).
    case getCapabilities(sequenceNumber: Int)
    /// The sender asks for the receiver's network status.
    case getStatus(sequenceNumber: Int)
    /// A remoting RPC (base64 of a protobuf).
    case rpc(sequenceNumber: Int?, body: [UInt8])
    /// The receiver's ANSWER.
    case answer(sequenceNumber: Int, answer: StreamingAnswer)
    /// The receiver's capabilities: media capability names (`audio`, `aac`, `opus`, `video`, `4k`,
    /// `h264`, `vp8`, `vp9`, `hevc`, `av1`) and the remoting version.
    case capabilities(sequenceNumber: Int, mediaCaps: [String], remoting: Int?)
    /// The receiver's network status.
    case status(sequenceNumber: Int, wifiSNR: Double?, wifiSpeed: [Int])
    /// A reply of `type` (ANSWER, CAPABILITIES_RESPONSE, STATUS_RESPONSE) with `result` `error`.
    case error(type: String, sequenceNumber: Int, code: Int, description: String)

    /// The namespace of OFFER/ANSWER and the other session messages.
    public static let namespace = "urn:x-cast:com.google.cast.webrtc"
    /// The namespace of remoting RPC.
    public static let remotingNamespace = "urn:x-cast:com.google.cast.remoting"
    /// Open Screen offsets its own error codes by this much in receiver errors.
    public static let errorCodeOffset = 10_000

    /// Receiver error codes (before ``errorCodeOffset``), as Open Screen numbers them.
    public enum ErrorCode {
        /// The message was not valid JSON of the expected shape.
        public static let jsonParseError = 39
        /// A field had an invalid value.
        public static let parameterInvalid = 92
        /// A newer OFFER replaced one still being answered.
        public static let interrupted = 101
        /// An offered codec is unknown.
        public static let unknownCodec = 102
        /// A codec parameter does not name its codec.
        public static let invalidCodecParameter = 103
        /// The UDP socket failed.
        public static let socketFailure = 104
        /// A stream came without encryption keys.
        public static let unencryptedOffer = 105
        /// The receiver does not do remoting.
        public static let remotingNotSupported = 106
        /// No offered stream could be taken.
        public static let noStreamSelected = 107
    }

    /// The `type` field.
    public var type: String {
        switch self {
        case .offer: "OFFER"
        case .getCapabilities: "GET_CAPABILITIES"
        case .getStatus: "GET_STATUS"
        case .rpc: "RPC"
        case .answer: "ANSWER"
        case .capabilities: "CAPABILITIES_RESPONSE"
        case .status: "STATUS_RESPONSE"
        case .error(let type, _, _, _): type
        }
    }

    /// The `seqNum`, when the message has one.
    public var sequenceNumber: Int? {
        switch self {
        case .offer(let n, _), .getCapabilities(let n), .getStatus(let n), .answer(let n, _), .capabilities(let n, _, _),
            .status(let n, _, _), .error(_, let n, _, _):
            n
        case .rpc(let n, _): n
        }
    }

    /// Reads a message from its JSON text.
    /// - Throws: ``StreamingError`` `.malformedMessage` for text that is not a known message, or the
    ///   OFFER's own error (`.malformedMessage`, `.encryptionRequired`) for an OFFER it cannot read.
    public init(parsing text: String) throws(StreamingError) {
        guard text.utf8.count <= 65_536 else { throw Self.invalid("message of \(text.utf8.count) bytes") }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            throw StreamingError(code: .malformedMessage, message: "not JSON: \(error.message)")
        }
        try self.init(json: json)
    }

    /// Reads a message from its JSON value.
    public init(json: JSONValue) throws(StreamingError) {
        guard case .object = json else { throw Self.invalid("not a JSON object") }
        guard let type = json["type"]?.stringValue?.uppercased() else { throw Self.invalid("no type") }
        let sequence = json["seqNum"]?.intValue
        func requireSequence() throws(StreamingError) -> Int {
            guard let sequence, sequence >= 0 else { throw Self.invalid("\(type) without a valid seqNum") }
            return sequence
        }
        let isError = json["result"]?.stringValue == "error"
        switch type {
        case "OFFER":
            let n = try requireSequence()
            guard let body = json["offer"] else { throw Self.invalid("OFFER without its offer") }
            self = .offer(sequenceNumber: n, offer: try StreamingOffer(json: body))
        case "GET_CAPABILITIES":
            self = .getCapabilities(sequenceNumber: try requireSequence())
        case "GET_STATUS":
            self = .getStatus(sequenceNumber: try requireSequence())
        case "RPC":
            guard let text = json["rpc"]?.stringValue, let bytes = Base64.decode(text) else { throw Self.invalid("RPC without base64 rpc") }
            self = .rpc(sequenceNumber: sequence, body: bytes)
        case _ where isError && ["ANSWER", "CAPABILITIES_RESPONSE", "STATUS_RESPONSE"].contains(type):
            let n = try requireSequence()
            let error = json["error"]
            self = .error(type: type, sequenceNumber: n, code: error?["code"]?.intValue ?? 0,
                          description: error?["description"]?.stringValue ?? "")
        case "ANSWER":
            let n = try requireSequence()
            guard json["result"]?.stringValue == "ok" else { throw Self.invalid("ANSWER without result ok or error") }
            guard let body = json["answer"] else { throw Self.invalid("ANSWER without its answer") }
            self = .answer(sequenceNumber: n, answer: try StreamingAnswer(json: body))
        case "CAPABILITIES_RESPONSE":
            let n = try requireSequence()
            let body = json["capabilities"]
            let caps = body?["mediaCaps"]?.arrayValue?.prefix(64).compactMap(\.stringValue) ?? []
            self = .capabilities(sequenceNumber: n, mediaCaps: caps, remoting: body?["remoting"]?.intValue)
        case "STATUS_RESPONSE":
            let n = try requireSequence()
            let status = json["status"]
            self = .status(sequenceNumber: n, wifiSNR: status?["wifiSnr"]?.doubleValue,
                           wifiSpeed: status?["wifiSpeed"]?.arrayValue?.prefix(64).compactMap(\.intValue) ?? [])
        default:
            throw Self.invalid("unknown type \(type)")
        }
    }

    /// The message as JSON.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["type": .string(type)]
        if let sequenceNumber { object["seqNum"] = JSONValue(sequenceNumber) }
        switch self {
        case .offer(_, let offer):
            object["offer"] = offer.json
        case .getCapabilities, .getStatus:
            break
        case .rpc(_, let body):
            object["rpc"] = .string(Base64.encode(body))
        case .answer(_, let answer):
            object["result"] = "ok"
            object["answer"] = answer.json
        case .capabilities(_, let caps, let remoting):
            object["result"] = "ok"
            var body: [String: JSONValue] = ["mediaCaps": .array(caps.map { .string($0) })]
            if let remoting { body["remoting"] = JSONValue(remoting) }
            object["capabilities"] = .object(body)
        case .status(_, let snr, let speed):
            object["result"] = "ok"
            var status: [String: JSONValue] = ["wifiSpeed": .array(speed.map { JSONValue($0) })]
            if let snr { status["wifiSnr"] = .number(snr) }
            object["status"] = .object(status)
        case .error(_, _, let code, let description):
            object["result"] = "error"
            object["error"] = ["code": JSONValue(code), "description": .string(description)]
        }
        return .object(object)
    }

    /// The message's JSON text.
    public var text: String { json.serialized() }

    static func invalid(_ message: String) -> StreamingError { StreamingError(code: .malformedMessage, message: message) }
}

/// Standard base64 (RFC 4648) for RPC bodies, without Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index], b1 = index + 1 < bytes.count ? bytes[index + 1] : 0, b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0xF) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - 71)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c + 4)
            case UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "/"): values.append(63)
            case UInt8(ascii: "="), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index + 1 < values.count {
            out.append(values[index] << 2 | values[index + 1] >> 4)
            if index + 2 < values.count { out.append(values[index + 1] << 4 | values[index + 2] >> 2) }
            if index + 3 < values.count { out.append(values[index + 2] << 6 | values[index + 3]) }
            index += 4
        }
        return out
    }
}
