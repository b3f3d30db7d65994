import CastChannels
import CastMedia
import CastQueue
import Observation
import Synchronization

/// Remote playback and queue control for the current session (`Cast.player`).
///
/// A player exists only while there is a session; apps never create one. Its properties are
/// observable (`Observation`); writes are optimistic like Castor's: the new value shows at once,
/// one request is in flight, the latest further value is kept and sent next, and a failure rolls
/// back to the receiver's value. Time is pulled (``time()``), not published; use
/// ``CastProgressTracker`` for a throttled view.
///
/// Every command comes in two forms with different names, so the compiler never picks one for you:
///
/// - the plain name is awaited: `try await player.play()`, `seek(to:)`, `loadItems(from:with:)`,
///   `advanceToNext()`… It returns once the receiver answered, with every property of the player
///   (``playerState``, ``shouldPlay``, ``currentItem``, ``items``, ``time()``…) showing that answer,
///   and throws a ``CastError`` when the receiver refused;
/// - `request…` sends without waiting (`requestPlay()`, `requestSeek(to:)`, `requestLoadItems(from:with:)`…),
///   as does setting a property (``shouldPlay``, ``playbackSpeed``, ``repeatMode``, ``currentItem``,
///   ``items``): the value shows at once and rolls back if the receiver refuses it. This is the form
///   for a button's action.
public final class CastPlayer: Observable, Sendable {
    struct State {
        var status: MediaStatus?
        /// The latest status with a media session, kept when the session ends (for the resume state).
        var lastStatus: MediaStatus?
        var items: [CastPlayerItem] = []
        /// The latest non-empty item list, kept when the queue is cleared (for the resume state).
        var lastItems: [CastPlayerItem] = []
        var preferences: [CastMediaCharacteristic: CastMediaSelectionPreference] = [:]
        var preferencesAppliedFor: Set<Int> = []
        var configuration: CastConfiguration
        var tasks: [Task<Void, Never>] = []
    }

    let media: CastMediaChannel
    let queue: CastMediaQueue
    let registrar = ObservationRegistrar()
    let state: Mutex<State>
    /// Held while a status is read and shown, so the status loop and an awaited command's reply never
    /// interleave: the loop could read the channel's status, then show it after a newer reply was
    /// shown, and a property would flick back to the older value (seen as a flaky navigation test).
    private let showingStatus = Mutex(())

    let shouldPlayProperty: OptimisticProperty<Bool>
    let speedProperty: OptimisticProperty<Double>
    let repeatModeProperty: OptimisticProperty<CastRepeatMode>
    let currentItemProperty: OptimisticProperty<Int?>
    let activeTracksProperty: OptimisticProperty<[Int]>
    let seekProperty: OptimisticProperty<Double?>

    init(media: CastMediaChannel, queue: CastMediaQueue, configuration: CastConfiguration) {
        self.media = media
        self.queue = queue
        state = Mutex(State(configuration: configuration))
        let box = WeakBox<CastPlayer>()
        shouldPlayProperty = OptimisticProperty(false) { box.value?.changed(\.shouldPlay) }
        speedProperty = OptimisticProperty(1) { box.value?.changed(\.playbackSpeed) }
        repeatModeProperty = OptimisticProperty(.off) { box.value?.changed(\.repeatMode) }
        currentItemProperty = OptimisticProperty(nil) { box.value?.changed(\.currentItem) }
        activeTracksProperty = OptimisticProperty([]) { box.value?.changed(\.activeTrackIds) }
        seekProperty = OptimisticProperty(nil) { box.value?.changed(\.statusRevision) }
        box.value = self
        installSenders(box)
        apply(media.status)
        rebuildItems()
        let statuses = media.statuses
        let changes = queue.changes
        let statusTask = Task { [weak self] in
            for await status in statuses {
                guard let self else { return }
                // Statuses queue up in the stream; the channel's latest status (which also records
                // replies) is never older, so optimistic values do not flicker back to stale ones.
                self.showingStatus.withLock { _ in self.show(status == nil ? nil : (self.media.status ?? status)) }
            }
        }
        let queueTask = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                self.apply(change)
            }
        }
        state.withLock { $0.tasks = [statusTask, queueTask] }
    }

    deinit {
        for task in state.withLock({ $0.tasks }) { task.cancel() }
    }

    /// The configuration (navigation mode, skip intervals) in effect; ``Cast`` keeps it up to date.
    public var configuration: CastConfiguration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    // MARK: Observation plumbing

    /// A marker every status-derived property reads, so one mutation notifies them all.
    var statusRevision: Int { 0 }
    /// The active track ids (optimistic), for media selection.
    var activeTrackIds: [Int] {
        registrar.access(self, keyPath: \.activeTrackIds)
        return activeTracksProperty.value
    }

    func accessStatus() { registrar.access(self, keyPath: \.statusRevision) }

    func changed<Value>(_ keyPath: KeyPath<CastPlayer, Value>) {
        registrar.withMutation(of: self, keyPath: keyPath) {}
    }

    func changedStatus() {
        changed(\.statusRevision)
    }

    // MARK: Receiver updates

    /// Shows the channel's latest status (which records every reply) in every property now, so an
    /// awaited command returns with the player already showing the receiver's answer.
    func applyLatestStatus() {
        showingStatus.withLock { _ in show(media.status) }
    }

    /// Shows `status` (a reply) in every property.
    func apply(_ status: MediaStatus?) {
        showingStatus.withLock { _ in show(status) }
    }

    private func show(_ status: MediaStatus?) {
        state.withLock { state in
            state.status = status
            if let status { state.lastStatus = status }
        }
        if let status {
            shouldPlayProperty.receive(Self.isPlaying(status.playerState))
            speedProperty.receive(status.playbackRate)
            if let mode = status.repeatMode ?? status.queueData?.repeatMode { repeatModeProperty.receive(CastRepeatMode(mode)) }
            currentItemProperty.receive(status.loadingItemId ?? status.currentItemId)
            activeTracksProperty.receive(status.activeTrackIds ?? [])
            applyPreferencesIfNeeded(status)
            enforceLiveSpeed(status)
        } else {
            shouldPlayProperty.receive(false)
            currentItemProperty.receive(nil)
            activeTracksProperty.receive([])
        }
        changedStatus()
    }

    func apply(_ change: QueueModelChange) {
        switch change {
        case .itemsLoaded(let ids), .itemsChanged(let ids):
            let items = state.withLock { $0.items }.filter { ids.contains($0.id) }
            for item in items {
                if case .itemsLoaded = change {
                    item.update(queue.item(withId: item.id))
                } else if item.isFetched {
                    item.update(nil)
                    item.requestFetch()
                }
            }
        case .currentItemChanged:
            changedStatus()
        default:
            rebuildItems()
        }
    }

    /// Mirrors the queue's ids into items, keeping existing item objects (and their fetched assets).
    func rebuildItems() {
        let changed = state.withLock { state -> Bool in
            // Read under the player's lock: read before it, a slower caller could write older ids
            // after a newer caller wrote the latest (a removed item came back; seen as a flaky test).
            let ids = queue.itemIds
            guard state.items.map(\.id) != ids else { return false }
            let existing = Dictionary(state.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            state.items = ids.map { existing[$0] ?? CastPlayerItem(id: $0, queue: queue) }
            if !state.items.isEmpty { state.lastItems = state.items }
            return true
        }
        if changed { self.changed(\.items) }
    }

    static func isPlaying(_ state: PlayerState) -> Bool {
        state == .playing || state == .buffering || state == .loading
    }

    /// Castor's workaround: a live item playing at another rate is put back to 1×.
    private func enforceLiveSpeed(_ status: MediaStatus) {
        guard status.media?.streamType == .live, status.playbackRate != 1, !speedProperty.isBusy,
              status.playerState == .playing else { return }
        speedProperty.write(1)
    }

    // MARK: Senders

    /// How each optimistic property is sent. Every sender shows the reply in the whole player before
    /// it returns, so an awaited write returns with all properties agreeing with the receiver.
    private func installSenders(_ box: WeakBox<CastPlayer>) {
        let media = self.media
        shouldPlayProperty.setSender { play throws(CastError) in
            do throws(CastMediaError) {
                let status = play ? try await media.play() : try await media.pause()
                box.value?.apply(status)
                return Self.isPlaying(status.playerState)
            } catch {
                throw CastError(error)
            }
        }
        speedProperty.setSender { speed throws(CastError) in
            do throws(CastMediaError) {
                let status = try await media.setPlaybackRate(speed)
                box.value?.apply(status)
                return status.playbackRate
            } catch {
                throw CastError(error)
            }
        }
        repeatModeProperty.setSender { mode throws(CastError) in
            do throws(CastMediaError) {
                let status = try await media.queueSetRepeatMode(mode.repeatMode)
                box.value?.apply(status)
                return (status.repeatMode ?? status.queueData?.repeatMode).map(CastRepeatMode.init)
            } catch {
                throw CastError(error)
            }
        }
        currentItemProperty.setSender { itemId throws(CastError) in
            guard let itemId else { return nil }
            do throws(CastMediaError) {
                let status = try await media.queueJump(to: itemId)
                box.value?.apply(status)
                let reported: Int? = status.loadingItemId ?? status.currentItemId
                return .some(reported)
            } catch {
                throw CastError(error)
            }
        }
        activeTracksProperty.setSender { ids throws(CastError) in
            do throws(CastMediaError) {
                let status = try await media.setActiveTracks(ids)
                box.value?.apply(status)
                return status.activeTrackIds ?? []
            } catch {
                throw CastError(error)
            }
        }
        seekProperty.setSender { target throws(CastError) in
            guard let target else { return nil }
            do throws(CastMediaError) {
                let status = try await media.seek(to: target)
                box.value?.apply(status)
            } catch {
                throw CastError(error)
            }
            return nil
        }
    }

    /// Fails requests in flight; called when the session ends.
    /// Ends the player: writes in flight fail with `reason` (why the session ended: a lost device
    /// is `connectionLost`, not a plain end), or `sessionEnded` when it was ended on purpose.
    func invalidate(because reason: CastError? = nil) {
        let error = reason ?? CastError(code: .sessionEnded, message: "The session ended")
        shouldPlayProperty.reset(to: false, failing: error)
        currentItemProperty.reset(to: nil, failing: error)
        seekProperty.reset(to: nil, failing: error)
        speedProperty.reset(to: speedProperty.receiverValue, failing: error)
        repeatModeProperty.reset(to: repeatModeProperty.receiverValue, failing: error)
        activeTracksProperty.reset(to: [], failing: error)
        for task in state.withLock({ $0.tasks }) { task.cancel() }
    }
}

/// A weak reference that can be filled after init (for callbacks created before `self` exists).
final class WeakBox<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private weak var object: Object?
    var value: Object? {
        get { lock.withLock { _ in object } }
        set { lock.withLock { _ in object = newValue } }
    }
}
