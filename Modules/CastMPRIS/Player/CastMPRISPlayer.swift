public import Castor
import CastDiscoveryCore
import Observation
import Synchronization

/// Publishes the session of a `Cast` façade as an MPRIS 2 player on D-Bus, so desktop media
/// controls (GNOME Shell, KDE Plasma), media keys, `playerctl` and status bars show and drive it.
///
/// While the façade has a session, the player owns the bus name
/// `org.mpris.MediaPlayer2.castor.<instance>` and serves `/org/mpris/MediaPlayer2` with the
/// `org.mpris.MediaPlayer2`, `.Player` and (optionally) `.TrackList` interfaces. Everything it
/// shows is read from the façade (`Cast`, `CastPlayer`, `CastDeviceManager`) through observation,
/// so changes made by other senders appear as they happen, signalled with `PropertiesChanged` and
/// `Seeked`. When the session ends the name is released; a new session publishes it again.
///
/// ```swift
/// let cast = Cast()
/// try await cast.joinSession(with: device)
/// try await CastMPRISPlayer(cast: cast).run()   // until the task is cancelled
/// ```
///
/// The bus connection has no thread of its own: its socket is watched by the module's one D-Bus
/// event loop, shared by every player of the process.
public final class CastMPRISPlayer: Observable, Sendable {
    /// The façade whose session is published.
    public let cast: Cast
    /// How the session is presented.
    public let configuration: CastMPRISConfiguration

    let options: MPRISOptions
    let stopwatch: @Sendable () -> Duration
    let published = Mutex<Published>(Published())
    private let registrar = ObservationRegistrar()

    struct Published {
        /// The bus name owned now.
        var busName: String?
        /// The connection while ``run()`` runs.
        var connection: DBusBusConnection?
        /// What was last signalled.
        var snapshot: MPRISSnapshot?
        var state: MPRISState?
        /// Method calls waiting for the façade.
        var pendingCalls = 0
        /// Whether the bus dropped the connection.
        var disconnected = false
        /// The subscribers of ``CastMPRISPlayer/busNames``.
        var watchers: [Int: AsyncStream<String?>.Continuation] = [:]
        var nextWatcher = 0
    }

    /// Creates a player for `cast`'s session; nothing is published before ``run()``.
    public init(cast: Cast, configuration: CastMPRISConfiguration = CastMPRISConfiguration()) {
        self.cast = cast
        self.configuration = configuration
        options = MPRISOptions(
            desktopEntry: configuration.desktopEntry, canControl: configuration.allowsControl,
            canQuit: configuration.allowsQuit, hasTrackList: configuration.publishesTrackList,
            maxTracks: configuration.maxTracks, imagePicker: configuration.imagePicker, imageHints: configuration.imageHints)
        stopwatch = Self.stopwatch(cast.clock)
    }

    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The bus name owned now (`org.mpris.MediaPlayer2.castor.d1a2b3c4`), `nil` while nothing is
    /// published. Observable: it changes when a session is published or removed.
    public var busName: String? {
        registrar.access(self, keyPath: \.busName)
        return published.withLock { $0.busName }
    }

    /// The bus name each time it changes, starting with the current one (`nil`: nothing published).
    /// Each call returns a new sequence; it ends when the consumer stops iterating.
    public var busNames: AsyncStream<String?> {
        let (stream, continuation) = AsyncStream<String?>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = published.withLock { published in
            defer { published.nextWatcher += 1 }
            published.watchers[published.nextWatcher] = continuation
            continuation.yield(published.busName)
            return published.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            // Never wait for the lock here: cancellation runs this under the consumer task's status
            // lock, which a yield under our lock needs too. A busy lock: the next change removes it.
            _ = self?.published.withLockIfAvailable { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    private func setBusName(_ name: String?) {
        registrar.withMutation(of: self, keyPath: \.busName) {
            published.withLock { published in
                guard published.busName != name else { return }
                published.busName = name
                for (id, watcher) in published.watchers {
                    if case .terminated = watcher.yield(name) { published.watchers.removeValue(forKey: id) }
                }
            }
        }
    }

    /// The bus name a session with `device` is published under.
    /// - Throws: ``CastMPRISError`` `.invalidName` when the configured instance name has no valid character.
    public func busName(for device: CastDevice) throws(CastMPRISError) -> String {
        let instance: String
        if let configured = configuration.instanceName {
            let kept = String(configured.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }.map(Character.init))
            guard let first = kept.unicodeScalars.first, !("0"..."9").contains(first), kept.utf8.count <= 200 else {
                throw CastMPRISError(code: .invalidName, message: "\"\(configured)\" makes no valid bus name element")
            }
            instance = kept
        } else {
            instance = "d" + device.id.txtValue.prefix(8)
        }
        return MPRISNames.busNamePrefix + "castor." + instance
    }

    /// Connects to the bus and publishes the façade's session whenever there is one, until the task
    /// is cancelled (then it releases the name and closes the connection, and returns).
    ///
    /// - Throws: ``CastMPRISError`` `.busUnavailable` when the bus cannot be reached, `.nameTaken`
    ///   when another connection owns the name, `.disconnected` when the bus goes away.
    public func run() async throws(CastMPRISError) {
        let address: DBusBusAddress = switch configuration.bus {
        case .session: .session
        case .address(let text): .address(text)
        }
        let connection: DBusBusConnection
        do {
            connection = try await DBusBusConnection.connect(to: address, clock: cast.clock)
        } catch {
            throw CastMPRISError(code: .busUnavailable, message: error.description)
        }
        published.withLock { $0.connection = connection }
        defer {
            setBusName(nil)
            published.withLock { published in
                let watchers = published.watchers, next = published.nextWatcher
                published = Published()
                published.watchers = watchers
                published.nextWatcher = next
            }
        }

        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1))
        connection.onDisconnect { [weak self] in
            self?.published.withLock { $0.disconnected = true }
            continuation.yield(.disconnected)
        }
        do {
            try await connection.register(path: MPRISNames.objectPath) { [weak self] message in
                self?.handle(message, on: connection) ?? false
            }
        } catch {
            await connection.close()
            throw CastMPRISError(code: .busUnavailable, message: error.description)
        }

        // Not `Observations`: it can miss a change made between its reading and the installation
        // of its observers (see ``ObservationFeed``).
        let readings = ObservationFeed<Observed?>(
            read: { [weak self] in self?.observe() },
            settled: { $0?.settled(with: $1) ?? ($1 == nil) }
        ).values()
        let feeder = Task {
            for await observed in readings {
                continuation.yield(.observed(observed))
            }
        }
        defer { feeder.cancel() }

        var failure: CastMPRISError?
        loop: for await event in events {
            if published.withLock({ $0.disconnected }) {
                failure = CastMPRISError(code: .disconnected, message: "The bus dropped the connection")
                break loop
            }
            switch event {
            case .disconnected:
                failure = CastMPRISError(code: .disconnected, message: "The bus dropped the connection")
                break loop
            case .observed(let observed):
                do {
                    try await update(to: observed, on: connection)
                } catch {
                    failure = error
                    break loop
                }
            }
        }
        continuation.finish()
        if let name = published.withLock({ $0.busName }) { await connection.releaseName(name) }
        await connection.close()
        if let failure { throw failure }
    }

    enum Event: Sendable {
        case observed(Observed?)
        case disconnected
    }

    /// One reading of the façade: the session's device and what MPRIS is computed from.
    struct Observed: Sendable, Hashable {
        var device: CastDevice
        var snapshot: MPRISSnapshot
        /// The observable objects read (player, device manager, queue items): which objects are
        /// observed depends on them.
        var sources: [ObjectIdentifier] = []

        /// Whether `other` read the same objects in the same state, apart from what time changes
        /// (the extrapolated position, the clock reading).
        func settled(with other: Observed?) -> Bool {
            guard let other, device == other.device, sources == other.sources else { return false }
            var mine = snapshot, theirs = other.snapshot
            mine.position = nil
            theirs.position = nil
            mine.takenAt = .zero
            theirs.takenAt = .zero
            return mine == theirs
        }
    }

    /// Owns or releases the name for the new reading and signals what changed.
    private func update(to observed: Observed?, on connection: DBusBusConnection) async throws(CastMPRISError) {
        let current = published.withLock { $0.busName }
        guard let observed else {
            if let current {
                await connection.releaseName(current)
                setBusName(nil)
                published.withLock { $0.snapshot = nil; $0.state = nil }
            }
            return
        }
        let name = try busName(for: observed.device)
        let state = MPRISState(observed.snapshot, options: options)
        if current != name {
            if let current {
                await connection.releaseName(current)
                setBusName(nil)
            }
            published.withLock { $0.snapshot = observed.snapshot; $0.state = state }
            do {
                try await connection.requestName(name)
            } catch {
                throw CastMPRISError(code: .nameTaken, message: error.description)
            }
            setBusName(name)
            return
        }
        let previous = published.withLock { published in
            defer { published.snapshot = observed.snapshot; published.state = state }
            return (published.snapshot, published.state)
        }
        guard let oldSnapshot = previous.0, let oldState = previous.1 else { return }
        let changes = MPRISChanges.between(oldState, state, oldSnapshot: oldSnapshot, newSnapshot: observed.snapshot)
        emit(changes, on: connection)
    }

    /// Sends the signals for `changes`.
    func emit(_ changes: MPRISChanges, on connection: DBusBusConnection) {
        for change in changes.properties {
            signal(MPRISNames.properties, "PropertiesChanged",
                   [.string(change.interface), .vardict(change.changed), .strings(change.invalidated)], on: connection)
        }
        if let position = changes.seeked {
            signal(MPRISNames.player, "Seeked", [.int64(position)], on: connection)
        }
        if let replaced = changes.trackListReplaced {
            signal(MPRISNames.trackList, "TrackListReplaced", [.objectPaths(replaced.tracks), .objectPath(replaced.current)], on: connection)
        }
        for changed in changes.trackMetadataChanged {
            signal(MPRISNames.trackList, "TrackMetadataChanged", [.objectPath(changed.track), .vardict(changed.metadata)], on: connection)
        }
    }

    private func signal(_ interface: String, _ member: String, _ arguments: [DBusValue], on connection: DBusBusConnection) {
        guard let message = DBusMessage.signal(path: MPRISNames.objectPath, interface: interface, member: member),
              (try? message.append(arguments)) != nil else { return }
        connection.send(message)
    }
}
