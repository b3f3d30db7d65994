import CastChannels
import CastDiscoveryCore
import CastMedia
import Castor

/// Sessions and snapshots on the Castor façade, shared by `save`, `restore` and `announce`.
public enum CastctlSessions {
    /// The app a media session runs in: the Default Media Receiver if it runs, else the first app
    /// (not the idle screen) that speaks the media namespace; `nil` when none runs.
    public static func mediaApp(in status: ReceiverStatus) -> ReceiverStatus.Application? {
        status.applications.first { $0.appId == CastAppID.defaultMediaReceiver }
            ?? status.applications.first { !$0.isIdleScreen && $0.supports(.media) }
    }

    /// Joins the media session of `app` on `device` without launching anything, within `timeout`
    /// (the app may have stopped since the receiver's status was read).
    /// - Throws: ``CastError`` (`.timeout` when the app was not there to join).
    public static func join(_ cast: Cast, device: CastDevice, app: ReceiverStatus.Application, timeout: Duration,
                            clock: any Clock<Duration>) async throws(CastError) {
        cast.configuration.receiverAppID = app.appId
        let outcome: Result<Void, CastError> = await withTaskGroup(of: Result<Void, CastError>?.self) { group in
            group.addTask {
                do throws(CastError) {
                    try await cast.joinSession(with: device)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch { return nil }
                return .failure(CastError(code: .timeout, message: "\(app.displayName) was not there to join within \(timeout)"))
            }
            defer { group.cancelAll() }
            while let result = await group.next() {
                if let result { return result }
            }
            return .failure(CastError(code: .cancelled, message: "Joining \(app.displayName) was cancelled"))
        }
        if case .failure(let error) = outcome {
            await cast.endSession(stoppingReceiverApp: false)
            throw error
        }
    }

    /// Starts a session in `appId` (joined when it runs, launched otherwise).
    public static func start(_ cast: Cast, device: CastDevice, appId: String) async throws(CastError) {
        cast.configuration.receiverAppID = appId
        try await cast.startSession(with: device)
    }

    /// What the session's device plays now, and its volume (members' too, on a group).
    ///
    /// Playback is saved when a media session plays, is paused or buffers (an IDLE session, ended
    /// or not started, has nothing to come back to).
    public static func capture(_ cast: Cast) async -> DeviceSnapshot {
        var playback: CastResumeState?
        if let player = cast.player, let status = player.mediaStatus, status.playerState != .idle {
            playback = await player.resumeState()
        }
        let volume = cast.deviceManager().map { DeviceSnapshot.Volume(level: Self.level($0.volume), muted: $0.isMuted) }
        let members = cast.multizoneDevices.compactMap { member -> DeviceSnapshot.MemberVolume? in
            guard let manager = cast.deviceManager(forMultizoneDevice: member) else { return nil }
            return DeviceSnapshot.MemberVolume(
                id: member.id, name: member.name, volume: DeviceSnapshot.Volume(level: Self.level(manager.volume), muted: manager.isMuted))
        }
        return DeviceSnapshot(appId: cast.sessionInfo?.appId, playback: playback, volume: volume, members: members)
    }

    /// Sets the device's volume (and its members', on a group) back to `snapshot`'s, changing only what differs.
    /// - Returns: notes on members whose volume could not be set (some groups take no per-member volume).
    /// - Throws: ``CastError`` when the device refused its own volume.
    @discardableResult
    public static func restoreVolume(_ snapshot: DeviceSnapshot, on cast: Cast) async throws(CastError) -> [String] {
        if let volume = snapshot.volume, let manager = cast.deviceManager() { try await apply(volume, to: manager) }
        var notes: [String] = []
        for member in snapshot.members {
            guard let device = cast.multizoneDevices.first(where: { $0.id == member.id }),
                let manager = cast.deviceManager(forMultizoneDevice: device) else { continue }
            do throws(CastError) {
                try await apply(member.volume, to: manager)
            } catch {
                notes.append("the volume of \(member.name) was not set back: \(error.message)")
            }
        }
        return notes
    }

    /// Sets a level (and unmutes) for an announcement.
    public static func setVolume(_ level: Double, on cast: Cast) async throws(CastError) {
        guard let manager = cast.deviceManager() else { throw CastError(code: .noSession, message: "There is no session") }
        try await apply(DeviceSnapshot.Volume(level: level, muted: false), to: manager)
    }

    private static func apply(_ volume: DeviceSnapshot.Volume, to manager: CastDeviceManager) async throws(CastError) {
        if let muted = volume.muted, muted, !manager.isMuted, manager.canMute { try await manager.setMuted(true) }
        if let level = volume.level, manager.canAdjustVolume, abs(Double(manager.volume) - level) > 1e-6 {
            try await manager.setVolume(Float(min(1, max(0, level))))
        }
        if let muted = volume.muted, !muted, manager.isMuted, manager.canMute { try await manager.setMuted(false) }
    }

    /// A level as the receiver holds it, without Float's noise (0.3, not 0.30000001192).
    static func level(_ value: Float) -> Double { (Double(value) * 1_000_000).rounded() / 1_000_000 }

    /// Loads `snapshot`'s playback on the session's device: in the same app when it runs there,
    /// else after launching the snapshot's app (the Default Media Receiver when it names none).
    /// - Throws: ``CastError`` from the launch or the load.
    public static func restorePlayback(_ playback: CastResumeState, appId: String?, on cast: Cast, device: CastDevice) async throws(CastError) {
        let wanted = appId ?? CastAppID.defaultMediaReceiver
        if cast.sessionInfo?.appId != wanted || cast.player == nil {
            await cast.endSession(stoppingReceiverApp: false)
            try await start(cast, device: device, appId: wanted)
        }
        guard let player = cast.player else { throw CastError(code: .noSession, message: "The session ended while restoring") }
        try await player.resume(from: playback)
    }
}
