import CastChannels
import CastDiscoveryCore
import CastMedia
import Castor

/// Something to announce on a device.
public struct Announcement: Sendable {
    /// What to play (a URL the device can fetch: a clip served by MediaServer, or any media URL).
    public var asset: CastAsset
    /// The device volume while it plays (unmuted); `nil` leaves the volume alone.
    public var volume: Double?
    /// The longest the announcement may play before it is stopped and what played comes back.
    public var waitLimit: Duration

    /// Creates an announcement.
    public init(asset: CastAsset, volume: Double? = nil, waitLimit: Duration = .seconds(120)) {
        self.asset = asset
        self.volume = volume
        self.waitLimit = waitLimit
    }
}

/// What an announcer tells while it works.
public enum AnnouncerProgress: Sendable {
    /// What played before (and the volume) was saved.
    case saved(DeviceSnapshot)
    /// The announcement plays (its media session).
    case playing(mediaSessionId: Int?)
    /// The announcement is over.
    case ended(AnnouncementWatch.End)
    /// The volume and what played came back.
    case restored(MediaStatus?)
}

/// How an announcement went.
public struct AnnouncementReport: Sendable {
    /// What played before, and the volume.
    public var before: DeviceSnapshot
    /// How the announcement ended.
    public var end: AnnouncementWatch.End
    /// The media status once what played before was restored (`nil` when nothing was restored).
    public var restored: MediaStatus?
    /// Whether the device's app was stopped afterwards (nothing ran before the announcement).
    public var stoppedApp: Bool
    /// What could not be put back as it was (a group member's volume the group does not let set).
    public var notes: [String]
}

/// Plays an announcement on a device and then puts back what played, as if nothing happened:
/// the queue, the item, the position, the rate, the active tracks and the volume.
///
/// 1. Joins the media app the device runs (never launching one just to look), and saves its
///    playback with `CastPlayer.resumeState()` and the volume (each member's, on a group).
/// 2. Sets the volume (when asked), loads the announcement in the Default Media Receiver, and waits
///    until it ends (``AnnouncementWatch``), at most ``Announcement/waitLimit``.
/// 3. Sets the volume back, then loads the saved playback with `CastPlayer.resume(from:)` (in the
///    app it ran in). With nothing playing before it only plays the announcement, and stops the
///    app afterwards when none ran before. When another sender's media or app took the device during
///    the announcement, that is left playing and only the volume comes back.
public struct Announcer: Sendable {
    /// The façade that runs the session (its configuration's app is changed as needed).
    public let cast: Cast
    /// The device (a single device or a group).
    public let device: CastDevice
    /// The clock of the wait limit and of joining.
    public let clock: any Clock<Duration>
    /// How long joining the running app may take.
    public let joinTimeout: Duration

    /// Creates an announcer.
    public init(cast: Cast, device: CastDevice, clock: any Clock<Duration> = ContinuousClock(), joinTimeout: Duration = .seconds(10)) {
        self.cast = cast
        self.device = device
        self.clock = clock
        self.joinTimeout = joinTimeout
    }

    /// Plays `announcement` and restores what played.
    ///
    /// - Parameters:
    ///   - receiverStatus: the device's receiver status, read just before (it tells which app runs).
    ///   - interruptions: yields when the user asks to stop (the announcement stops and what played comes back).
    ///   - progress: told each step.
    /// - Throws: ``CastctlError`` `.announcementFailed` with the step that failed. When the
    ///   announcement could not be loaded, what played is restored before throwing.
    public func announce(_ announcement: Announcement, receiverStatus: ReceiverStatus, interruptions: AsyncStream<Void>? = nil,
                         progress: @Sendable (AnnouncerProgress) -> Void = { _ in }) async throws(CastctlError) -> AnnouncementReport {
        let outcome: Result<AnnouncementReport, CastctlError>
        do throws(CastctlError) {
            outcome = .success(try await run(announcement, receiverStatus: receiverStatus, interruptions: interruptions, progress: progress))
        } catch {
            outcome = .failure(error)
        }
        // Leave the device as it is now (what was restored plays on); the session was only castctl's.
        await cast.endSession(stoppingReceiverApp: false)
        return try outcome.get()
    }

    private func run(_ announcement: Announcement, receiverStatus: ReceiverStatus, interruptions: AsyncStream<Void>?,
                     progress: @Sendable (AnnouncerProgress) -> Void) async throws(CastctlError) -> AnnouncementReport {
        func failed(_ step: String, _ error: CastError) -> CastctlError {
            CastctlError(code: .announcementFailed, message: "\(step): \(error.message)", cause: error)
        }
        let runningApp = CastctlSessions.mediaApp(in: receiverStatus)
        let appWasRunning = !receiverStatus.applications.filter { !$0.isIdleScreen }.isEmpty
        // 1. Join what runs and save it.
        do throws(CastError) {
            if let runningApp {
                try await CastctlSessions.join(cast, device: device, app: runningApp, timeout: joinTimeout, clock: clock)
            } else {
                try await CastctlSessions.start(cast, device: device, appId: CastAppID.defaultMediaReceiver)
            }
        } catch {
            throw failed("Joining \(device.friendlyName)", error)
        }
        let before = await CastctlSessions.capture(cast)
        progress(.saved(before))

        // 2. The announcement plays in the Default Media Receiver.
        let events = cast.events
        var watch = AnnouncementWatch()
        let end: AnnouncementWatch.End
        do throws(CastError) {
            if cast.sessionInfo?.appId != CastAppID.defaultMediaReceiver {
                await cast.endSession(stoppingReceiverApp: false)
                try await CastctlSessions.start(cast, device: device, appId: CastAppID.defaultMediaReceiver)
            }
            if let level = announcement.volume { try await CastctlSessions.setVolume(level, on: cast) }
            guard let player = cast.player else { throw CastError(code: .noSession, message: "The session ended") }
            try await player.loadItem(from: announcement.asset, with: CastLoadOptions(shouldPlay: true))
            let id = player.mediaStatus?.mediaSessionId
            progress(.playing(mediaSessionId: id))
            end = await wait(for: &watch, loaded: id, events: events, limit: announcement.waitLimit, interruptions: interruptions)
        } catch {
            // Nothing was announced: put back what was changed, then fail.
            _ = try? await restore(before, appWasRunning: appWasRunning, end: .stopped)
            throw failed("Playing the announcement", error)
        }
        progress(.ended(end))
        if end.stopsAnnouncement, let player = cast.player { try? await player.stop() }

        // 3. Put everything back.
        let (restored, stoppedApp, notes): (MediaStatus?, Bool, [String])
        do throws(CastError) {
            (restored, stoppedApp, notes) = try await restore(before, appWasRunning: appWasRunning, end: end)
        } catch {
            throw failed("Restoring what played on \(device.friendlyName)", error)
        }
        progress(.restored(restored))
        return AnnouncementReport(before: before, end: end, restored: restored, stoppedApp: stoppedApp, notes: notes)
    }

    /// Waits until the watch says the announcement is over.
    private func wait(for watch: inout AnnouncementWatch, loaded id: Int?, events: AsyncStream<CastSessionEvent>, limit: Duration,
                      interruptions: AsyncStream<Void>?) async -> AnnouncementWatch.End {
        if let id, case .ended(let end) = watch.handle(.loaded(mediaSessionId: id)) { return end }
        if id == nil { return .stopped }
        let (merged, input) = AsyncStream<AnnouncementWatch.Event>.makeStream()
        let clock = self.clock
        let feeders = [
            Task {
                for await event in events {
                    switch event {
                    case .mediaStatus(let status): input.yield(.status(status))
                    case .ended(let error): input.yield(.sessionEnded(error?.message ?? "the session ended"))
                    case .connectionLost(let error): input.yield(.sessionEnded(error.message))
                    default: break
                    }
                }
            },
            Task {
                do { try await clock.sleep(for: limit) } catch { return }
                input.yield(.deadlinePassed)
            },
            Task {
                guard let interruptions else { return }
                for await _ in interruptions {
                    input.yield(.interrupted)
                    return
                }
            },
        ]
        defer { for feeder in feeders { feeder.cancel() } }
        for await event in merged {
            if case .ended(let end) = watch.handle(event) { return end }
        }
        return .interrupted  // cancelled
    }

    /// Sets the volume back and loads what played (unless `end` says someone else's media took over).
    private func restore(_ before: DeviceSnapshot, appWasRunning: Bool, end: AnnouncementWatch.End) async throws(CastError)
        -> (MediaStatus?, Bool, [String])
    {
        // The session is gone (another sender's app took the device, or the device was lost): whatever
        // runs now is someone else's, and is left as it is, volume included.
        if case .sessionEnded = end { return (nil, false, []) }
        let notes = try await CastctlSessions.restoreVolume(before, on: cast)
        guard end.restoresPlayback else { return (nil, false, notes) }
        if let playback = before.playback {
            try await CastctlSessions.restorePlayback(playback, appId: before.appId, on: cast, device: device)
            return (cast.player?.mediaStatus, false, notes)
        }
        if !appWasRunning {
            await cast.endSession(stoppingReceiverApp: true)
            return (nil, true, notes)
        }
        return (nil, false, notes)
    }
}
