import CastDeviceProfiles

/// One HTTP fetch the emulated receiver made for content a sender asked it to load.
///
/// Recorded when ``EmulatedReceiverConfiguration/mediaFetching`` is on; read them with
/// ``EmulatedReceiver/fetches`` or follow them with ``EmulatedReceiver/fetchEvents()``.
public struct EmulatedReceiverFetch: Sendable, Hashable, CustomStringConvertible {
    /// What was fetched.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case media, textTrack, probe }
        private let base: Base
        /// The first bytes of a media item (`contentUrl`, else `contentId`).
        public static let media = Kind(base: .media)
        /// A text track (`trackContentId`), fetched whole.
        public static let textTrack = Kind(base: .textTrack)
        /// More bytes of a media item (or its HLS variant playlist and first segment), fetched to read
        /// its duration or codecs: an MP4 `moov` after the media data or a track beyond the prefix,
        /// the last page of an Ogg file, the rest of a manifest.
        public static let probe = Kind(base: .probe)
        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// What was fetched.
    public var kind: Kind
    /// The URL fetched.
    public var url: String
    /// The `requestId` of the sender's request (LOAD, QUEUE_LOAD, QUEUE_INSERT) that caused the fetch.
    public var requestId: Int
    /// The byte range asked for (`Range: bytes=lower-upper`); `nil` for a whole-resource GET.
    public var requestedRange: ClosedRange<Int>?
    /// The HTTP status code; `nil` when no response head arrived.
    public var statusCode: Int?
    /// The response's `Content-Type`.
    public var contentType: String?
    /// The response's `Content-Range`.
    public var contentRange: String?
    /// The response's `Content-Length`.
    public var contentLength: Int?
    /// Whether the response's `Access-Control-Allow-Origin` admits the receiver's origin.
    public var corsAllowed: Bool
    /// The body bytes received (at most the requested range, or the text track limit).
    public var body: [UInt8]
    /// Why the fetch failed; `nil` when the content is usable.
    public var error: EmulatedReceiverError?
    /// The media's duration in seconds, read from the fetched bytes (MP4, Matroska/WebM, MP3, AAC/ADTS,
    /// FLAC, Ogg, WAV, HLS and DASH); `nil` when the format does not say or was not recognised.
    public var duration: Double?
    /// Whether the media is a live stream (an HLS playlist without an end, a dynamic DASH manifest).
    public var isLive = false
    /// Whether the response offers byte ranges (`Accept-Ranges: bytes`; a 206 offers them too).
    public var acceptsRanges = false
    /// What the receiver read from the media's bytes (container, codecs with profile, level, size and
    /// rate) when its profile decides what plays (any profile but `CastDeviceProfile.any`); for HLS
    /// and DASH, the variant it would play (or the first one, when it plays none).
    public var media: MediaDescription?
    /// How the device lets the item be sought, from the server's ranges and the manifest.
    var seekability: MediaSeekability?

    /// Creates a fetch record.
    public init(
        kind: Kind, url: String, requestId: Int, requestedRange: ClosedRange<Int>? = nil, statusCode: Int? = nil,
        contentType: String? = nil, contentRange: String? = nil, corsAllowed: Bool = false, body: [UInt8] = [],
        error: EmulatedReceiverError? = nil
    ) {
        self.kind = kind
        self.url = url
        self.requestId = requestId
        self.requestedRange = requestedRange
        self.statusCode = statusCode
        self.contentType = contentType
        self.contentRange = contentRange
        self.corsAllowed = corsAllowed
        self.body = body
        self.error = error
    }

    /// How many body bytes arrived.
    public var bytesReceived: Int { body.count }
    /// Whether the content passed every check.
    public var succeeded: Bool { error == nil }

    /// `media http://… bytes=0-65535 → 206 video/mp4, 1234 bytes, CORS ok, hevc Main L3.0 640x360 30fps,
    /// ac3 6ch 48000Hz` (what was fetched, then what was found), then the error when it failed
    /// (`: unsupportedMedia: hevc video is not decoded by Chromecast (3rd generation)`).
    public var description: String {
        var text = "\(kind) \(url)"
        if let requestedRange { text += " bytes=\(requestedRange.lowerBound)-\(requestedRange.upperBound)" }
        text += " → " + (statusCode.map(String.init) ?? "no response")
        if let contentType { text += " \(contentType)" }
        text += ", \(bytesReceived) bytes, CORS \(corsAllowed ? "ok" : "missing")"
        if let duration { text += ", duration \(duration) s" }
        if isLive { text += ", LIVE" }
        if seekability == .startOnly { text += ", no byte ranges" }
        if let media { text += ", " + media.description }
        if let error { text += ": \(error)" }
        return text
    }
}
