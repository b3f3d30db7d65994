public import CastJSON

/// A sender's OFFER: the streams it can send, each with its codec, SSRC, encryption and limits.
///
/// Read the way Open Screen's receiver reads it: a stream with an unknown codec is dropped, any
/// other invalid field fails the whole OFFER; missing optional fields take their defaults
/// (`targetDelay` 400 ms, 2 audio channels, a maximum frame rate of 30).
public struct StreamingOffer: Sendable, Hashable {
    /// Mirroring or remoting (`castMode`; mirroring when absent).
    public var mode: StreamingMode
    /// The offered streams with a codec this library knows, in order.
    public var streams: [OfferedStream]
    /// How many offered streams were dropped for an unknown codec.
    public var droppedStreams: Int

    /// Creates an offer.
    public init(mode: StreamingMode = .mirroring, streams: [OfferedStream], droppedStreams: Int = 0) {
        self.mode = mode
        self.streams = streams
        self.droppedStreams = droppedStreams
    }

    /// The audio streams.
    public var audio: [OfferedStream] { streams.filter { !$0.codec.isVideo } }
    /// The video streams.
    public var video: [OfferedStream] { streams.filter(\.codec.isVideo) }

    /// The most streams read from one OFFER.
    public static let maximumStreams = 32

    /// Reads the `offer` object of an OFFER message.
    /// - Throws: ``StreamingError`` `.malformedMessage` (a mandatory field missing or invalid),
    ///   `.encryptionRequired` (no valid `aesKey`/`aesIvMask`).
    public init(json: JSONValue) throws(StreamingError) {
        guard case .object = json else { throw Self.invalid("the offer is not an object") }
        if let text = json["castMode"]?.stringValue {
            guard let mode = StreamingMode(rawValue: text) else { throw Self.invalid("castMode \"\(text)\" is neither mirroring nor remoting") }
            self.mode = mode
        } else {
            mode = .mirroring
        }
        guard let entries = json["supportedStreams"]?.arrayValue else { throw Self.invalid("supportedStreams is missing or not an array") }
        guard entries.count <= Self.maximumStreams else { throw Self.invalid("\(entries.count) supportedStreams (at most \(Self.maximumStreams))") }
        var streams: [OfferedStream] = []
        var dropped = 0
        for entry in entries {
            guard let stream = try OfferedStream(json: entry) else {
                dropped += 1
                continue
            }
            streams.append(stream)
        }
        self.streams = streams
        droppedStreams = dropped
    }

    /// The `offer` object, as a sender sends it.
    public var json: JSONValue {
        [
            "castMode": .string(mode.rawValue),
            "supportedStreams": .array(streams.map(\.json)),
        ]
    }

    static func invalid(_ message: String) -> StreamingError { StreamingError(code: .malformedMessage, message: "OFFER: " + message) }
}

/// One stream of an OFFER.
public struct OfferedStream: Sendable, Hashable {
    /// The stream's index, which the ANSWER's `sendIndexes` quote.
    public var index: Int
    /// The codec.
    public var codec: StreamingCodec
    /// The RTP payload type its packets carry.
    public var payloadType: UInt8
    /// The sender's SSRC for the stream.
    public var ssrc: UInt32
    /// The target playout delay, in milliseconds.
    public var targetDelay: Int
    /// The AES-128 key of the stream's frames.
    public var aesKey: [UInt8]
    /// The mask XORed with the frame id to make each frame's counter block.
    public var aesIvMask: [UInt8]
    /// RTP timestamp ticks per second (`timeBase` "1/N"): 90000 for video, the sample rate for audio.
    public var timeBase: Int
    /// Audio channels (1 for video).
    public var channels: Int
    /// Audio: the bit rate (`bitRate`); video: the highest bit rate (`maxBitRate`), in bits per second.
    public var bitRate: Int
    /// Video: the highest frame rate (`maxFrameRate`, "30" or "30000/1001").
    public var maxFrameRate: Double?
    /// Video: the picture sizes the sender can send.
    public var resolutions: [Resolution]
    /// The RFC 6381 codec parameter (`codecParameter`), when given.
    public var codecParameter: String?
    /// Whether the sender asks for the receiver's RTCP event log.
    public var receiverRtcpEventLog: Bool
    /// `rtpProfile` as given (`cast`).
    public var rtpProfile: String?

    /// A picture size.
    public struct Resolution: Sendable, Hashable, CustomStringConvertible {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Creates a resolution.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
        /// `1920x1080`.
        public var description: String { "\(width)x\(height)" }
    }

    /// The DSCP Open Screen's sender asks the receiver to mark its RTCP with (`receiverRtcpDscp`):
    /// 34 (AF41, the class for interactive video).
    public static let receiverRTCPDSCP = 34

    /// The default target delay when the OFFER gives none or an out-of-range one (milliseconds).
    public static let defaultTargetDelay = 400

    /// Creates a stream.
    public init(
        index: Int, codec: StreamingCodec, payloadType: UInt8? = nil, ssrc: UInt32, targetDelay: Int = OfferedStream.defaultTargetDelay,
        aesKey: [UInt8], aesIvMask: [UInt8], timeBase: Int? = nil, channels: Int? = nil, bitRate: Int, maxFrameRate: Double? = nil,
        resolutions: [Resolution] = [], codecParameter: String? = nil, receiverRtcpEventLog: Bool = false, rtpProfile: String? = "cast"
    ) {
        self.index = index
        self.codec = codec
        self.payloadType = payloadType ?? codec.payloadType
        self.ssrc = ssrc
        self.targetDelay = targetDelay
        self.aesKey = aesKey
        self.aesIvMask = aesIvMask
        self.timeBase = timeBase ?? (codec.isVideo ? 90_000 : 48_000)
        self.channels = channels ?? (codec.isVideo ? 1 : 2)
        self.bitRate = bitRate
        self.maxFrameRate = maxFrameRate ?? (codec.isVideo ? 30 : nil)
        self.resolutions = resolutions
        self.codecParameter = codecParameter
        self.receiverRtcpEventLog = receiverRtcpEventLog
        self.rtpProfile = rtpProfile
    }

    /// Reads one entry of `supportedStreams`; `nil` for a stream whose codec is unknown (dropped, as
    /// Open Screen drops it).
    init?(json: JSONValue) throws(StreamingError) {
        func invalid(_ message: String) -> StreamingError { StreamingOffer.invalid(message) }
        guard case .object = json else { throw invalid("a supportedStreams entry is not an object") }
        guard let type = json["type"]?.stringValue else { throw invalid("a stream has no type") }
        let isVideo: Bool
        switch type {
        case "audio_source": isVideo = false
        case "video_source": isVideo = true
        default: throw invalid("stream type \"\(type)\"")
        }
        guard let index = json["index"]?.intValue, index >= 0, index <= 1_000_000 else { throw invalid("a stream has no valid index") }
        guard let ssrcValue = json["ssrc"]?.intValue, (0...Int(UInt32.max)).contains(ssrcValue) else {
            throw invalid("stream \(index) has no valid ssrc")
        }
        guard let payload = json["rtpPayloadType"]?.intValue, (0...255).contains(payload), StreamingCodec.isValidPayloadType(UInt8(payload)) else {
            throw invalid("stream \(index) has no valid rtpPayloadType")
        }
        guard let timeBaseText = json["timeBase"]?.stringValue, timeBaseText.hasPrefix("1/"),
            let timeBase = Int(timeBaseText.dropFirst(2)), (16_000...90_000).contains(timeBase) || timeBase == 8_000
        else { throw invalid("stream \(index) has no valid timeBase (1/N, N a sample rate or 90000)") }
        var channels = isVideo ? 1 : 2
        if let given = json["channels"] {
            guard let value = given.intValue, value > 0, value <= 64 else { throw invalid("stream \(index) has an invalid channel count") }
            channels = value
        }
        guard let key = Self.hex16(json["aesKey"]), let mask = Self.hex16(json["aesIvMask"]) else {
            throw StreamingError(code: .encryptionRequired, message: "OFFER: stream \(index) must have both a valid aesKey and aesIvMask (32 hex digits each)")
        }
        var targetDelay = Self.defaultTargetDelay
        if let delay = json["targetDelay"]?.intValue, (1...5000).contains(delay) { targetDelay = delay }
        let codecParameter = json["codecParameter"]?.stringValue.flatMap { $0.isEmpty ? nil : String($0.prefix(256)) }
        guard let name = json["codecName"]?.stringValue else { throw invalid("stream \(index) has no codecName") }
        guard let codec = StreamingCodec(name: name), codec.isVideo == isVideo else { return nil }
        if let codecParameter, !Self.parameter(codecParameter, fits: codec) {
            throw invalid("stream \(index): codecParameter \"\(codecParameter)\" does not name \(codec)")
        }
        let bitRate: Int
        var maxFrameRate: Double?
        var resolutions: [Resolution] = []
        if isVideo {
            bitRate = json["maxBitRate"]?.intValue.flatMap { $0 > 0 ? $0 : nil } ?? 4 << 20
            maxFrameRate = 30
            if let text = json["maxFrameRate"]?.stringValue, let rate = Self.fraction(text), rate > 0, rate <= 1000 { maxFrameRate = rate }
            for entry in (json["resolutions"]?.arrayValue ?? []).prefix(64) {
                if let width = entry["width"]?.intValue, let height = entry["height"]?.intValue, width > 0, height > 0,
                    width <= 16_384, height <= 16_384
                {
                    resolutions.append(Resolution(width: width, height: height))
                }
            }
        } else {
            guard let rate = json["bitRate"]?.intValue, rate >= 0 else { throw invalid("audio stream \(index) has no valid bitRate") }
            bitRate = rate
        }
        self.init(
            index: index, codec: codec, payloadType: UInt8(payload), ssrc: UInt32(ssrcValue), targetDelay: targetDelay, aesKey: key,
            aesIvMask: mask, timeBase: timeBase, channels: channels, bitRate: bitRate, maxFrameRate: maxFrameRate,
            resolutions: resolutions, codecParameter: codecParameter,
            receiverRtcpEventLog: json["receiverRtcpEventLog"]?.boolValue ?? false, rtpProfile: json["rtpProfile"]?.stringValue)
    }

    /// The `supportedStreams` entry, with every field Open Screen's sender writes.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "index": JSONValue(index), "type": .string(codec.isVideo ? "video_source" : "audio_source"),
            "codecName": .string(codec.name), "channels": JSONValue(channels), "rtpPayloadType": JSONValue(Int(payloadType)),
            "rtpProfile": .string(rtpProfile ?? "cast"), "ssrc": JSONValue(Int(ssrc)), "targetDelay": JSONValue(targetDelay),
            "aesKey": .string(Self.hex(aesKey)), "aesIvMask": .string(Self.hex(aesIvMask)),
            "receiverRtcpEventLog": .bool(receiverRtcpEventLog), "receiverRtcpDscp": JSONValue(Self.receiverRTCPDSCP),
            "timeBase": .string("1/\(timeBase)"), "codecParameter": .string(codecParameter ?? ""),
        ]
        if codec.isVideo {
            object["maxBitRate"] = JSONValue(bitRate)
            object["maxFrameRate"] = .string(Self.fractionText(maxFrameRate ?? 30))
            object["resolutions"] = .array(resolutions.map { ["width": JSONValue($0.width), "height": JSONValue($0.height)] })
            object["profile"] = .string("")
            object["level"] = .string("")
            object["protection"] = .string("")
            object["errorRecoveryMode"] = .string("")
        } else {
            object["bitRate"] = JSONValue(bitRate)
        }
        return .object(object)
    }

    static func hex16(_ value: JSONValue?) -> [UInt8]? {
        guard let text = value?.stringValue, text.utf8.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = hexDigit(high), let l = hexDigit(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes.count == 16 ? bytes : nil
    }

    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `30`, `30000/1001` → frames per second.
    static func fraction(_ text: String) -> Double? {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let numerator = Double(parts[0]), numerator.isFinite else { return nil }
        if parts.count == 1 { return numerator }
        guard let denominator = Double(parts[1]), denominator > 0 else { return nil }
        return numerator / denominator
    }

    static func fractionText(_ rate: Double) -> String {
        rate == rate.rounded() ? "\(Int(rate))" : "\(Int((rate * 1000).rounded()))/1000"
    }

    /// Whether an RFC 6381 codec parameter names the codec (`vp08` VP8, `vp09` VP9, `av01` AV1,
    /// `hev1`/`hvc1` HEVC, `avc1` H.264, `mp4a.` AAC; Opus has none).
    static func parameter(_ parameter: String, fits codec: StreamingCodec) -> Bool {
        switch codec.name {
        case "vp8": parameter.hasPrefix("vp08")
        case "vp9": parameter.hasPrefix("vp09")
        case "av1": parameter.hasPrefix("av01")
        case "hevc": parameter.hasPrefix("hev1") || parameter.hasPrefix("hvc1")
        case "h264": parameter.hasPrefix("avc1")
        case "aac": parameter.hasPrefix("mp4a.")
        default: false
        }
    }
}
