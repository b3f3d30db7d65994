public import CastIntents
public import Castor
public import CastQueue

/// What ``CastIntentPlayer`` did with a play request, and the code to answer the request with.
public struct IntentPlayback: Sendable {
    /// How the request was carried out.
    public struct Action: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case loadedQueue, continuedQueue, displayedContainer, none }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A new queue was loaded on the device (see ``IntentPlayback/queue``).
        public static let loadedQueue = Action(.loadedQueue)
        /// The device's current queue was resumed (an empty intent with `resumePlayback`).
        public static let continuedQueue = Action(.continuedQueue)
        /// Nothing was played: the app should display ``IntentPlayback/display``.
        public static let displayedContainer = Action(.displayedContainer)
        /// Nothing was done (a failure).
        public static let none = Action(.none)
        /// The action's name.
        public var description: String { base.rawValue }
    }

    /// The code to answer the request with: `handleInApp` (audio played in the background),
    /// `continueInApp` (video: the app should come to the foreground), `showContainer`, or `failure`.
    public var code: PlayMediaIntentResponse.Code
    /// What was done.
    public var action: Action
    /// The resolved request that was played (for ``Action/loadedQueue``).
    public var request: PlayRequest?
    /// The container to display (for ``Action/displayedContainer``).
    public var display: ContainerDisplay?
    /// Why the request failed (for the `failure` code): the handler's own failure, or
    /// `assetUnavailable`, `deviceUnavailable`, `playbackFailed`.
    public var failure: PlayMediaFailure?
    /// The device's error, when loading or resuming failed on the device.
    public var castError: CastError?
    /// The items loaded, in queue order (shuffled when the request asked for it).
    public var queue: [MediaItem]
    /// The index in ``queue`` playback started at.
    public var startIndex: Int
    /// Where in the start item playback started (a stored position, when resuming).
    public var startTime: Duration?
    /// The repeat mode set on the device.
    public var repeatMode: CastRepeatMode?
    /// The playback speed asked of the device (clamped to the device's 0.5...2 range).
    public var playbackSpeed: Double?
    /// Items of the request the app had no asset for; they were left out of ``queue``.
    public var unavailableItemIdentifiers: [String]

    /// Creates a value.
    public init(
        code: PlayMediaIntentResponse.Code, action: Action, request: PlayRequest? = nil, display: ContainerDisplay? = nil,
        failure: PlayMediaFailure? = nil, castError: CastError? = nil, queue: [MediaItem] = [], startIndex: Int = 0,
        startTime: Duration? = nil, repeatMode: CastRepeatMode? = nil, playbackSpeed: Double? = nil,
        unavailableItemIdentifiers: [String] = []
    ) {
        self.code = code
        self.action = action
        self.request = request
        self.display = display
        self.failure = failure
        self.castError = castError
        self.queue = queue
        self.startIndex = startIndex
        self.startTime = startTime
        self.repeatMode = repeatMode
        self.playbackSpeed = playbackSpeed
        self.unavailableItemIdentifiers = unavailableItemIdentifiers
    }

    /// A failed request.
    static func failed(_ failure: PlayMediaFailure, castError: CastError? = nil, request: PlayRequest? = nil,
                       unavailable: [String] = []) -> IntentPlayback {
        IntentPlayback(code: .failure, action: .none, request: request, failure: failure, castError: castError,
                       unavailableItemIdentifiers: unavailable)
    }

    /// The item playback started with, for ``Action/loadedQueue``.
    public var startItem: MediaItem? { queue.indices.contains(startIndex) ? queue[startIndex] : nil }
}
