/// How the emulated receiver fetches what senders ask it to load, the way a real receiver's web page does.
///
/// Off by default (``EmulatedReceiverConfiguration/mediaFetching`` is `nil`): the receiver then only
/// pretends to play. When set, every LOAD, QUEUE_LOAD and QUEUE_INSERT is held until the receiver has
/// fetched, over real sockets, each `http://` URL it names:
///
/// - the media (`contentUrl`, else `contentId`) with `Range: bytes=0-N`, checking for a 206 (or a 200
///   from a server without ranges), a media `Content-Type`, and — when the media has tracks — a CORS
///   `Access-Control-Allow-Origin` that admits ``origin``;
/// - every text track's `trackContentId`, in full, checking for `text/vtt`, CORS, and a body that
///   starts with `WEBVTT` (after an optional byte-order mark).
///
/// With a device profile other than `CastDeviceProfile.any` (``EmulatedReceiverConfiguration/profile``),
/// the receiver also reads the media's codecs, profile, level and size from what it fetched, and
/// media the model cannot play fails like content the player rejects.
///
/// Each fetch is recorded (``EmulatedReceiver/fetches``, ``EmulatedReceiver/fetchEvents()``). When one fails the
/// request fails like on a device: `LOAD_FAILED` to the sender (`detailedErrorCode` 103 MEDIA_NETWORK
/// for network and HTTP failures, 104 MEDIA_SRC_NOT_SUPPORTED for content the player would reject,
/// 110 SOURCE_BUFFER_FAILURE for HLS or DASH whose codecs the device lacks) and,
/// for LOAD and QUEUE_LOAD, a MEDIA_STATUS with `playerState` IDLE and `idleReason` ERROR. A failed
/// QUEUE_INSERT inserts nothing. URLs with other schemes (`https://`, plain content ids) are not fetched.
///
/// Hostile servers cannot hang or exhaust the receiver: the response head, the media prefix and the
/// text track size are bounded, and each fetch has a deadline on the receiver's clock.
public struct EmulatedReceiverMediaFetching: Sendable, Hashable {
    /// The `Origin` header sent with every fetch (the receiver page's origin).
    public var origin: String
    /// How many bytes of each media file are requested (`Range: bytes=0-(mediaPrefixLength - 1)`).
    public var mediaPrefixLength: Int
    /// The largest text track accepted; a larger one fails the fetch.
    public var maximumTextTrackBytes: Int
    /// The largest response head (status line and header fields) accepted.
    public var maximumHeaderBytes: Int
    /// How long one fetch may take, connection included, on ``EmulatedReceiverConfiguration/clock``.
    public var timeout: Duration
    /// How many fetches of one request run at once.
    public var maximumConcurrentFetches: Int
    /// The `User-Agent` header (a Chromecast's by default).
    public var userAgent: String

    /// Creates fetch settings; the defaults suit a receiver on a LAN.
    public init(
        origin: String = "https://www.gstatic.com", mediaPrefixLength: Int = 64 * 1024,
        maximumTextTrackBytes: Int = 2 * 1024 * 1024, maximumHeaderBytes: Int = 16 * 1024,
        timeout: Duration = .seconds(10), maximumConcurrentFetches: Int = 4,
        userAgent: String = "Mozilla/5.0 (X11; Linux armv7l) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.5735.350 Safari/537.36 CrKey/1.56.500000"
    ) {
        self.origin = origin
        self.mediaPrefixLength = max(1, mediaPrefixLength)
        self.maximumTextTrackBytes = max(1, maximumTextTrackBytes)
        self.maximumHeaderBytes = max(256, maximumHeaderBytes)
        self.timeout = timeout
        self.maximumConcurrentFetches = max(1, maximumConcurrentFetches)
        self.userAgent = userAgent
    }
}
