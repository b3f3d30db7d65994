import Foundation

/// Handles play and show requests for media intents: the Linux counterpart of an Intents
/// extension's `INPlayMediaIntentHandling` together with the app delegate methods that play
/// (`application(_:handle:)`) and display (`application(_:continue:)`) the content.
///
/// ``MediaIntentResolver`` is the default implementation, built on a store and a library lookup.
public protocol PlayMediaIntentHandler: Sendable {
    /// Answers a request to play an intent (a spoken request, a tapped suggestion's play button):
    /// ``PlayMediaIntentResponse/handleInApp(_:)`` for audio, to be played in the background;
    /// ``PlayMediaIntentResponse/continueInApp(_:)`` for video, to be played with the app in the
    /// foreground; or ``PlayMediaIntentResponse/failure(_:)``.
    func handlePlay(_ intent: PlayMediaIntent) async -> PlayMediaIntentResponse

    /// Answers a request to display an intent's content without playing it (the user tapped the
    /// shortcut itself): ``PlayMediaIntentResponse/showContainer(_:)`` with the show or playlist to
    /// restore the app to, or ``PlayMediaIntentResponse/failure(_:)``.
    func handleShow(_ intent: PlayMediaIntent) async -> PlayMediaIntentResponse
}

/// How a media-intent request is answered.
public enum PlayMediaIntentResponse: Sendable, Hashable {
    /// Audio: the app plays the request in the background (SiriKit's `.handleInApp`).
    case handleInApp(PlayRequest)
    /// Video: the app comes to the foreground and plays the request (SiriKit's `.continueInApp`).
    case continueInApp(PlayRequest)
    /// The app displays a container (show, playlist) without playing.
    case showContainer(ContainerDisplay)
    /// The request cannot be honoured.
    case failure(PlayMediaFailure)

    /// The response code alone, for logging and matching.
    public var code: Code {
        switch self {
        case .handleInApp: .handleInApp
        case .continueInApp: .continueInApp
        case .showContainer: .showContainer
        case .failure: .failure
        }
    }

    /// The play request, for ``handleInApp(_:)`` and ``continueInApp(_:)``.
    public var playRequest: PlayRequest? {
        switch self {
        case .handleInApp(let request), .continueInApp(let request): request
        default: nil
        }
    }

    /// A response code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case handleInApp, continueInApp, showContainer, failure }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// Play in the background.
        public static let handleInApp = Code(.handleInApp)
        /// Bring the app to the foreground and play.
        public static let continueInApp = Code(.continueInApp)
        /// Display a container.
        public static let showContainer = Code(.showContainer)
        /// Failed.
        public static let failure = Code(.failure)
        /// The code's name.
        public var description: String { base.rawValue }
    }
}

/// What to play, resolved against the library: the content of a ``PlayMediaIntentResponse``.
public struct PlayRequest: Sendable, Hashable {
    /// The intent as requested (for an empty intent, the resumed donation's intent).
    public var intent: PlayMediaIntent
    /// The container the items are played from, as the library knows it now.
    public var container: MediaItem?
    /// The items to play, in order (never empty). Shuffling is the player's job: see ``playShuffled``.
    public var items: [MediaItem]
    /// The index in ``items`` to start at.
    public var startIndex: Int
    /// Whether the player should shuffle the items.
    public var playShuffled: Bool
    /// How the player should repeat.
    public var repeatMode: PlaybackRepeatMode
    /// Whether to resume where the user stopped.
    public var resumePlayback: Bool
    /// The playback rate (1.0 is normal).
    public var playbackSpeed: Double
    /// Audio (background) or video (foreground).
    public var mediaKind: MediaKind
    /// Items the intent named that the library no longer has (they were left out).
    public var unavailableItemIdentifiers: [String]

    /// Creates a request.
    public init(
        intent: PlayMediaIntent, container: MediaItem?, items: [MediaItem], startIndex: Int = 0,
        playShuffled: Bool = false, repeatMode: PlaybackRepeatMode = .none, resumePlayback: Bool = false,
        playbackSpeed: Double = 1.0, mediaKind: MediaKind, unavailableItemIdentifiers: [String] = []
    ) {
        self.intent = intent
        self.container = container
        self.items = items
        self.startIndex = startIndex
        self.playShuffled = playShuffled
        self.repeatMode = repeatMode
        self.resumePlayback = resumePlayback
        self.playbackSpeed = playbackSpeed
        self.mediaKind = mediaKind
        self.unavailableItemIdentifiers = unavailableItemIdentifiers
    }

    /// The interaction to donate when this request is played, grouped by its container (as the
    /// Audio Cast sample does, so that removing the show deletes its donations).
    ///
    /// The donated intent names the item started at and the container, with the request's options.
    /// - Throws: ``CastIntentsError`` for an invalid identifier.
    public func donation(date: Date = Date(), identifier: String = UUID().uuidString) throws(CastIntentsError) -> Interaction {
        let intent = try PlayMediaIntent(
            mediaItems: items.isEmpty ? [] : [items[min(max(startIndex, 0), items.count - 1)]],
            mediaContainer: container, playShuffled: playShuffled, repeatMode: repeatMode,
            resumePlayback: resumePlayback, playbackSpeed: playbackSpeed == 1.0 ? nil : playbackSpeed)
        return try Interaction(intent: intent, date: date, identifier: identifier, groupIdentifier: container?.identifier)
    }
}

/// A container to display, the content of ``PlayMediaIntentResponse/showContainer(_:)``.
public struct ContainerDisplay: Sendable, Hashable {
    /// The show, album or playlist.
    public var container: MediaItem
    /// Its items, in the library's order.
    public var contents: [MediaItem]
    /// The item the intent named, to highlight, if it is in ``contents``.
    public var highlightedItemIdentifier: String?

    /// Creates a display request.
    public init(container: MediaItem, contents: [MediaItem], highlightedItemIdentifier: String? = nil) {
        self.container = container
        self.contents = contents
        self.highlightedItemIdentifier = highlightedItemIdentifier
    }
}

/// Why a media-intent request could not be honoured.
public struct PlayMediaFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, for matching. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case itemNotFound, containerNotFound, emptyContainer, noContainer, nothingToPlay
            case unsupportedMediaType, libraryUnavailable, storeUnavailable
            case assetUnavailable, deviceUnavailable, playbackFailed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// None of the intent's items is in the library any more.
        public static let itemNotFound = Code(.itemNotFound)
        /// The intent's container is not in the library (the show was removed).
        public static let containerNotFound = Code(.containerNotFound)
        /// The container has no items to play.
        public static let emptyContainer = Code(.emptyContainer)
        /// The intent names no container to show.
        public static let noContainer = Code(.noContainer)
        /// The intent is empty and there is no donation to resume.
        public static let nothingToPlay = Code(.nothingToPlay)
        /// An item's type is unknown to this version, so it cannot tell audio from video.
        public static let unsupportedMediaType = Code(.unsupportedMediaType)
        /// The library lookup threw.
        public static let libraryUnavailable = Code(.libraryUnavailable)
        /// The intent store threw.
        public static let storeUnavailable = Code(.storeUnavailable)
        /// The app has nothing a player can play for the resolved items (no asset, or its lookup threw).
        public static let assetUnavailable = Code(.assetUnavailable)
        /// There is no device to play on (no session, or it ended).
        public static let deviceUnavailable = Code(.deviceUnavailable)
        /// The device refused the content or the connection failed while loading it.
        public static let playbackFailed = Code(.playbackFailed)
        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The reason.
    public var code: Code
    /// A human-readable explanation.
    public var message: String

    /// Creates a failure.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
