/// Limits on one download.
public struct CastDownloadLimits: Sendable, Hashable {
    /// The most bytes of body, counted after content decoding (gzip); past it the download stops.
    public var maximumBytes: Int
    /// The whole download (connect, headers, body) must finish within this.
    public var deadline: Duration
    /// The minimum progress: at least this many bytes in every ``rateWindow``; 0 checks no rate.
    public var minimumBytesPerWindow: Int
    /// The window the minimum rate is measured over.
    public var rateWindow: Duration

    /// Creates limits.
    public init(maximumBytes: Int, deadline: Duration, minimumBytesPerWindow: Int = 1024, rateWindow: Duration = .seconds(10)) {
        self.maximumBytes = maximumBytes
        self.deadline = deadline
        self.minimumBytesPerWindow = minimumBytesPerWindow
        self.rateWindow = rateWindow
    }

    /// A podcast feed: 16 MiB, 60 s, at least 1 KiB every 10 s.
    public static let feed = CastDownloadLimits(maximumBytes: 16 << 20, deadline: .seconds(60))
    /// An image: 32 MiB, 60 s, at least 1 KiB every 10 s.
    public static let image = CastDownloadLimits(maximumBytes: 32 << 20, deadline: .seconds(60))
}
