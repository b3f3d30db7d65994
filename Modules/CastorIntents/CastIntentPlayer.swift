public import CastIntents
public import Castor
import CastQueue

/// Plays resolved media-intent requests on a Cast device: the bridge between CastIntents'
/// `PlayMediaIntentHandler` and Castor's `CastPlayer`.
///
/// The seed's app delegate resolves a `PlayRequest` and hands the items to its playback manager;
/// here the playback manager is a Cast device:
///
/// ```swift
/// let bridge = CastIntentPlayer(cast: cast, assets: MediaAssetMapping { item in
///     library.asset(for: item.identifier)              // the episode's enclosure URL
/// })
/// let response = await resolver.handlePlay(intent)
/// let playback = await bridge.play(response, for: intent)
/// if playback.code == .continueInApp { window.bringToFront() }   // video
/// if let request = playback.request { try await store.donate(request.donation()) }
/// ```
///
/// ## What is played
/// - `handleInApp` / `continueInApp`: the request's items are mapped to assets by the
///   ``MediaAssetProvider`` (items without an asset are left out) and loaded as a new queue that
///   starts playing at once:
///   - **shuffle**: the queue is loaded in a random order (from the generator given to
///     ``play(_:for:using:)``). When the request starts at a chosen item (`resumePlayback`, or a
///     `startIndex` other than 0) that item plays first and the others follow shuffled.
///   - **repeat**: the queue's repeat mode on the receiver (`none` → off, `one`, `all`).
///   - **resume**: the queue starts at the request's start item, at the position the provider
///     stored for it (``MediaAssetProvider/resumePosition(for:)``). An *empty* intent with
///     `resumePlayback` continues the device's current queue when it has one, instead of loading
///     the resolved request: playback resumes where the device is, with the intent's repeat mode
///     and speed if it sets them.
///   - **speed**: the playback rate, clamped to what receivers accept (0.5...2; live streams stay at 1).
/// - `showContainer`: nothing is played; ``IntentPlayback/display`` says what to show.
/// - `failure`: passed on as is.
///
/// The answer keeps the handler's response code unless playing fails:
/// `PlayMediaFailure.Code.assetUnavailable` (no item had an asset, or the provider threw),
/// `deviceUnavailable` (no session, or the device went away), `playbackFailed` (the device refused
/// the queue; see ``IntentPlayback/castError``), `nothingToPlay` (a request without items).
public struct CastIntentPlayer: Sendable {
    private let playerSource: @Sendable () -> CastPlayer?
    private let assets: any MediaAssetProvider

    /// A bridge that plays on the current session of `cast` (its `player` when asked to play).
    public init(cast: Cast, assets: any MediaAssetProvider) {
        playerSource = { cast.player }
        self.assets = assets
    }

    /// A bridge that plays on one player (of one session).
    public init(player: CastPlayer, assets: any MediaAssetProvider) {
        playerSource = { player }
        self.assets = assets
    }

    /// Plays a handler's response to `intent`, shuffling with the system's random generator.
    /// - Parameters:
    ///   - response: what the handler answered (`PlayMediaIntentHandler.handlePlay(_:)` or
    ///     `PlayMediaIntentHandler.handleShow(_:)`).
    ///   - intent: the intent as the user asked it (an empty intent with `resumePlayback` continues
    ///     the device's queue).
    public func play(_ response: PlayMediaIntentResponse, for intent: PlayMediaIntent) async -> IntentPlayback {
        var generator = SystemRandomNumberGenerator()
        return await play(response, for: intent, using: &generator)
    }

    /// Plays a handler's response to `intent`, shuffling with `generator` (seed it in tests).
    public func play(
        _ response: PlayMediaIntentResponse, for intent: PlayMediaIntent, using generator: inout some RandomNumberGenerator
    ) async -> IntentPlayback {
        if case .showContainer(let display) = response {
            return IntentPlayback(code: .showContainer, action: .displayedContainer, display: display)
        }
        let player = playerSource()
        if intent.isEmpty, intent.resumePlayback == true, let player, player.isActive {
            return await continueQueue(on: player, intent: intent, code: response.code == .failure ? .handleInApp : response.code)
        }
        let request: PlayRequest
        switch response {
        case .handleInApp(let resolved), .continueInApp(let resolved): request = resolved
        case .failure(let failure): return .failed(failure)
        case .showContainer: return .failed(PlayMediaFailure(code: .noContainer, message: "Unreachable: a container to show."))
        }
        guard !request.items.isEmpty else {
            return .failed(PlayMediaFailure(code: .nothingToPlay, message: "The resolved request has no items to play."), request: request)
        }
        guard let player else {
            return .failed(PlayMediaFailure(code: .deviceUnavailable, message: "There is no Cast session to play on."), request: request)
        }

        // The order, then the assets (items without one are left out).
        let order = Self.queueOrder(for: request, using: &generator)
        var queue: [MediaItem] = []
        var loaded: [CastAsset] = []
        var unavailable: [String] = []
        var startIndex: Int?
        for (index, item) in order.items.enumerated() {
            let asset: CastAsset?
            do {
                asset = try await assets.asset(for: item)
            } catch {
                return .failed(
                    PlayMediaFailure(code: .assetUnavailable, message: "Looking up the asset of '\(item.identifier)' failed: \(error)"),
                    request: request)
            }
            guard let asset else {
                unavailable.append(item.identifier)
                continue
            }
            if startIndex == nil, index >= order.startIndex { startIndex = queue.count }
            queue.append(item)
            loaded.append(asset)
        }
        guard !queue.isEmpty else {
            return .failed(
                PlayMediaFailure(
                    code: .assetUnavailable,
                    message: "There is nothing to play for \(unavailable.joined(separator: ", ")) on a Cast device."),
                request: request, unavailable: unavailable)
        }
        // The start item was left out and nothing follows it: start with the last playable item.
        let start = startIndex ?? queue.count - 1
        let startsAtRequestedItem = queue[start] == order.items[order.startIndex]
        let startTime = request.resumePlayback && startsAtRequestedItem ? await assets.resumePosition(for: queue[start]) : nil

        let options = CastLoadOptions(
            index: start, time: startTime, shouldPlay: true, playbackSpeed: request.playbackSpeed,
            repeatMode: CastRepeatMode(request.repeatMode))
        do {
            try await player.loadItems(from: loaded, with: options)
        } catch {
            return .failed(Self.failure(error, doing: "Loading the queue"), castError: error, request: request, unavailable: unavailable)
        }
        return IntentPlayback(
            code: response.code, action: .loadedQueue, request: request, queue: queue, startIndex: start,
            startTime: startTime, repeatMode: options.repeatMode, playbackSpeed: options.playbackSpeed,
            unavailableItemIdentifiers: unavailable)
    }

    /// The order a request's items are queued in, and the index to start at.
    ///
    /// Without shuffle: the request's items and start index. With shuffle: a random permutation
    /// from `generator`, starting at 0; when the request starts at a chosen item (`resumePlayback`,
    /// or a non-zero `startIndex`) that item comes first and the others follow shuffled.
    public static func queueOrder(
        for request: PlayRequest, using generator: inout some RandomNumberGenerator
    ) -> (items: [MediaItem], startIndex: Int) {
        guard !request.items.isEmpty else { return ([], 0) }
        let start = min(max(request.startIndex, 0), request.items.count - 1)
        guard request.playShuffled, request.items.count > 1 else { return (request.items, start) }
        if request.resumePlayback || start != 0 {
            var rest = request.items
            let first = rest.remove(at: start)
            rest.shuffle(using: &generator)
            return ([first] + rest, 0)
        }
        return (request.items.shuffled(using: &generator), 0)
    }

    // MARK: Helpers

    private func continueQueue(on player: CastPlayer, intent: PlayMediaIntent, code: PlayMediaIntentResponse.Code) async -> IntentPlayback {
        let repeatMode = intent.repeatMode.map(CastRepeatMode.init)
        do {
            if let repeatMode { try await player.setRepeatMode(repeatMode) }
            if let speed = intent.playbackSpeed { try await player.setPlaybackSpeed(speed) }
            try await player.play()
        } catch {
            return .failed(Self.failure(error, doing: "Resuming the device's queue"), castError: error)
        }
        return IntentPlayback(
            code: code, action: .continuedQueue, startTime: player.time(), repeatMode: player.repeatMode,
            playbackSpeed: player.playbackSpeed)
    }

    /// A device error as a play failure: a session that is gone is `deviceUnavailable`, anything
    /// else the device did is `playbackFailed`.
    private static func failure(_ error: CastError, doing what: String) -> PlayMediaFailure {
        let gone: Set<CastError.Code> = [.noSession, .sessionEnded, .connectionLost, .deviceUnreachable]
        return PlayMediaFailure(code: gone.contains(error.code) ? .deviceUnavailable : .playbackFailed, message: "\(what) failed: \(error)")
    }
}
