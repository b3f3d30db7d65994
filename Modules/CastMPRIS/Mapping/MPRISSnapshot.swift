import CastMedia
import CastQueue

/// What the player shows at one moment, read from the façade: the values MPRIS is computed from.
///
/// ``CastMPRISPlayer`` reads one from `Cast`, `CastPlayer` and `CastDeviceManager` each time one of
/// them changes; everything MPRIS publishes is a pure function of it (so it is tested without a bus).
struct MPRISSnapshot: Sendable, Hashable {
    /// One queue entry.
    struct Item: Sendable, Hashable {
        /// The receiver's queue item id.
        var id: Int
        /// Its media, once fetched.
        var media: MediaInformation?

        /// Creates an entry.
        init(id: Int, media: MediaInformation? = nil) {
            self.id = id
            self.media = media
        }
    }

    /// The device's friendly name (`Identity`).
    var identity: String
    /// The receiver's media status; `nil` without a media session.
    var status: MediaStatus?
    /// Whether the player should play (the façade's optimistic value).
    var shouldPlay: Bool
    /// The repeat mode (optimistic).
    var repeatMode: CastRepeatMode
    /// Whether the receiver shuffles the queue (`REPEAT_ALL_AND_SHUFFLE`).
    var isShuffled: Bool
    /// The playback speed (optimistic).
    var rate: Double
    /// The speeds the current stream allows.
    var rateRange: ClosedRange<Double>
    /// The device volume, 0...1, when known.
    var volume: Double?
    /// Whether the device is muted.
    var isMuted: Bool
    /// Whether the device volume can be changed (not a fixed-volume device).
    var canSetVolume: Bool
    /// The position now (the pending seek target, else extrapolated from the last status).
    var position: Duration?
    /// The seekable range (the live window, else 0...duration).
    var seekableRange: ClosedRange<Duration>?
    /// Whether there is a next item (the façade's rule, wrapping with repeat all).
    var canGoNext: Bool
    /// Whether going back does something (the façade's navigation mode).
    var canGoPrevious: Bool
    /// The queue, in order.
    var items: [Item]
    /// The current item's id (the loading item preferred).
    var currentItemId: Int?
    /// The reading of the injected clock when the snapshot was taken, to tell jumps from playback.
    var takenAt: Duration

    /// Creates a snapshot; without media everything is idle.
    init(identity: String, status: MediaStatus? = nil, shouldPlay: Bool = false, repeatMode: CastRepeatMode = .off,
                isShuffled: Bool = false, rate: Double = 1, rateRange: ClosedRange<Double> = 0.5...2, volume: Double? = nil,
                isMuted: Bool = false, canSetVolume: Bool = true, position: Duration? = nil,
                seekableRange: ClosedRange<Duration>? = nil, canGoNext: Bool = false, canGoPrevious: Bool = false,
                items: [Item] = [], currentItemId: Int? = nil, takenAt: Duration = .zero) {
        self.identity = identity
        self.status = status
        self.shouldPlay = shouldPlay
        self.repeatMode = repeatMode
        self.isShuffled = isShuffled
        self.rate = rate
        self.rateRange = rateRange
        self.volume = volume
        self.isMuted = isMuted
        self.canSetVolume = canSetVolume
        self.position = position
        self.seekableRange = seekableRange
        self.canGoNext = canGoNext
        self.canGoPrevious = canGoPrevious
        self.items = items
        self.currentItemId = currentItemId
        self.takenAt = takenAt
    }
}
