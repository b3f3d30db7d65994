public import CastJSON

/// A receiver's ANSWER: the UDP port to send to, which offered streams it takes (by index) with the
/// SSRC it uses for each, and optionally its limits and display.
public struct StreamingAnswer: Sendable, Hashable {
    /// The receiver's UDP port for RTP and RTCP.
    public var udpPort: Int
    /// The indexes of the offered streams the receiver takes.
    public var sendIndexes: [Int]
    /// The receiver's SSRC for each taken stream, in the same order.
    public var ssrcs: [UInt32]
    /// What the receiver can take: audio and video limits.
    public var constraints: Constraints?
    /// The receiver's display.
    public var display: Display?
    /// The indexes of the streams for which the receiver sends its RTCP event log.
    public var receiverRtcpEventLog: [Int]

    /// Audio and video limits of a receiver.
    public struct Constraints: Sendable, Hashable {
        /// Audio limits.
        public var audio: AudioLimits
        /// Video limits.
        public var video: VideoLimits
        /// Creates constraints.
        public init(audio: AudioLimits, video: VideoLimits) {
            self.audio = audio
            self.video = video
        }
    }

    /// Audio limits.
    public struct AudioLimits: Sendable, Hashable {
        /// The highest sample rate, in Hz.
        public var maxSampleRate: Int
        /// The most channels.
        public var maxChannels: Int
        /// The lowest bit rate, in bits per second.
        public var minBitRate: Int
        /// The highest bit rate, in bits per second.
        public var maxBitRate: Int
        /// The longest playout delay, in milliseconds.
        public var maxDelay: Int?
        /// Creates limits.
        public init(maxSampleRate: Int, maxChannels: Int, minBitRate: Int = 32_000, maxBitRate: Int, maxDelay: Int? = nil) {
            self.maxSampleRate = maxSampleRate
            self.maxChannels = maxChannels
            self.minBitRate = minBitRate
            self.maxBitRate = maxBitRate
            self.maxDelay = maxDelay
        }
    }

    /// Video limits.
    public struct VideoLimits: Sendable, Hashable {
        /// The most pixels per second decoded.
        public var maxPixelsPerSecond: Double
        /// The largest picture and its highest frame rate.
        public var maxWidth: Int
        /// The largest picture's height.
        public var maxHeight: Int
        /// The highest frame rate at that size.
        public var maxFrameRate: Double
        /// The lowest bit rate, in bits per second.
        public var minBitRate: Int
        /// The highest bit rate, in bits per second.
        public var maxBitRate: Int
        /// The longest playout delay, in milliseconds.
        public var maxDelay: Int?
        /// Creates limits.
        public init(maxPixelsPerSecond: Double, maxWidth: Int, maxHeight: Int, maxFrameRate: Double, minBitRate: Int = 300_000,
                    maxBitRate: Int, maxDelay: Int? = nil) {
            self.maxPixelsPerSecond = maxPixelsPerSecond
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.maxFrameRate = maxFrameRate
            self.minBitRate = minBitRate
            self.maxBitRate = maxBitRate
            self.maxDelay = maxDelay
        }
    }

    /// A receiver's display.
    public struct Display: Sendable, Hashable {
        /// The screen's width in pixels.
        public var width: Int
        /// The screen's height in pixels.
        public var height: Int
        /// The screen's refresh rate.
        public var frameRate: Double
        /// Whether the receiver scales content of another aspect ratio (`scaling`: `receiver`), or the
        /// sender must (`sender`).
        public var receiverScales: Bool
        /// Creates a display.
        public init(width: Int, height: Int, frameRate: Double, receiverScales: Bool) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.receiverScales = receiverScales
        }
    }

    /// Creates an answer.
    public init(udpPort: Int, sendIndexes: [Int], ssrcs: [UInt32], constraints: Constraints? = nil, display: Display? = nil,
                receiverRtcpEventLog: [Int] = []) {
        self.udpPort = udpPort
        self.sendIndexes = sendIndexes
        self.ssrcs = ssrcs
        self.constraints = constraints
        self.display = display
        self.receiverRtcpEventLog = receiverRtcpEventLog
    }

    /// Reads the `answer` object of an ANSWER message.
    /// - Throws: ``StreamingError`` `.malformedMessage` naming the invalid field.
    public init(json: JSONValue) throws(StreamingError) {
        func invalid(_ message: String) -> StreamingError { StreamingError(code: .malformedMessage, message: "ANSWER: " + message) }
        guard let port = json["udpPort"]?.intValue, (1...65_535).contains(port) else { throw invalid("udpPort missing or out of range") }
        guard let indexes = json["sendIndexes"]?.arrayValue?.prefix(32).compactMap(\.intValue), !indexes.isEmpty,
            indexes.allSatisfy({ $0 >= 0 })
        else { throw invalid("sendIndexes missing or invalid") }
        guard let ssrcs = json["ssrcs"]?.arrayValue?.prefix(32).compactMap(\.intValue), ssrcs.count == indexes.count,
            ssrcs.allSatisfy({ (0...Int(UInt32.max)).contains($0) })
        else { throw invalid("ssrcs missing or not one per send index") }
        udpPort = port
        sendIndexes = indexes
        self.ssrcs = ssrcs.map { UInt32($0) }
        receiverRtcpEventLog = json["receiverRtcpEventLog"]?.arrayValue?.prefix(32).compactMap(\.intValue) ?? []
        if let constraints = json["constraints"], constraints != .null {
            let audio = constraints["audio"], video = constraints["video"]
            guard let sampleRate = audio?["maxSampleRate"]?.intValue, let channels = audio?["maxChannels"]?.intValue,
                let audioMax = audio?["maxBitRate"]?.intValue,
                let dimensions = video?["maxDimensions"], let width = dimensions["width"]?.intValue,
                let height = dimensions["height"]?.intValue, let videoMax = video?["maxBitRate"]?.intValue
            else { throw invalid("constraints incomplete") }
            self.constraints = Constraints(
                audio: AudioLimits(maxSampleRate: sampleRate, maxChannels: channels, minBitRate: audio?["minBitRate"]?.intValue ?? 32_000,
                                   maxBitRate: audioMax, maxDelay: audio?["maxDelay"]?.intValue),
                video: VideoLimits(
                    maxPixelsPerSecond: video?["maxPixelsPerSecond"]?.doubleValue ?? Double(width * height) * 30,
                    maxWidth: width, maxHeight: height,
                    maxFrameRate: dimensions["frameRate"]?.stringValue.flatMap(OfferedStream.fraction) ?? 30,
                    minBitRate: video?["minBitRate"]?.intValue ?? 300_000, maxBitRate: videoMax, maxDelay: video?["maxDelay"]?.intValue))
        } else {
            constraints = nil
        }
        if let display = json["display"], let dimensions = display["dimensions"], let width = dimensions["width"]?.intValue,
            let height = dimensions["height"]?.intValue
        {
            self.display = Display(
                width: width, height: height, frameRate: dimensions["frameRate"]?.stringValue.flatMap(OfferedStream.fraction) ?? 30,
                receiverScales: display["scaling"]?.stringValue == "receiver")
        } else {
            display = nil
        }
    }

    /// The `answer` object, as a receiver sends it (empty optional arrays left out, as Open Screen does).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "udpPort": JSONValue(udpPort),
            "sendIndexes": .array(sendIndexes.map { JSONValue($0) }),
            "ssrcs": .array(ssrcs.map { JSONValue(Int($0)) }),
        ]
        if !receiverRtcpEventLog.isEmpty { object["receiverRtcpEventLog"] = .array(receiverRtcpEventLog.map { JSONValue($0) }) }
        if let constraints {
            var audio: [String: JSONValue] = [
                "maxSampleRate": JSONValue(constraints.audio.maxSampleRate), "maxChannels": JSONValue(constraints.audio.maxChannels),
                "minBitRate": JSONValue(constraints.audio.minBitRate), "maxBitRate": JSONValue(constraints.audio.maxBitRate),
            ]
            if let delay = constraints.audio.maxDelay { audio["maxDelay"] = JSONValue(delay) }
            let limits = constraints.video
            var video: [String: JSONValue] = [
                "maxPixelsPerSecond": .number(limits.maxPixelsPerSecond),
                "maxDimensions": [
                    "width": JSONValue(limits.maxWidth), "height": JSONValue(limits.maxHeight),
                    "frameRate": .string(OfferedStream.fractionText(limits.maxFrameRate)),
                ],
                "minBitRate": JSONValue(limits.minBitRate), "maxBitRate": JSONValue(limits.maxBitRate),
            ]
            if let delay = limits.maxDelay { video["maxDelay"] = JSONValue(delay) }
            object["constraints"] = ["audio": .object(audio), "video": .object(video)]
        }
        if let display {
            object["display"] = [
                "dimensions": [
                    "width": JSONValue(display.width), "height": JSONValue(display.height),
                    "frameRate": .string(OfferedStream.fractionText(display.frameRate)),
                ],
                "scaling": .string(display.receiverScales ? "receiver" : "sender"),
            ]
        }
        return .object(object)
    }
}
