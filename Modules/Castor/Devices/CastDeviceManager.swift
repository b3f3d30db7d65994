import CastChannels
import CastMultizone
import Observation
import Synchronization

/// A member of the speaker group in the current session ("paired devices" in a UI).
public struct CastMultizoneDevice: Sendable, Hashable, Identifiable {
    /// The member's device id.
    public var id: String
    /// The member's name.
    public var name: String

    /// Creates a member description.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// Volume and mute for the session's device, or for one member of its speaker group.
///
/// Obtain one with ``Cast/deviceManager(forMultizoneDevice:)``. Writes are optimistic like the
/// player's. A device whose volume control type is `fixed` cannot be adjusted (its volume setter
/// does nothing and ``setVolume(_:)`` throws `.unsupported`); volume steps follow the receiver's
/// `stepInterval`.
public final class CastDeviceManager: Observable, Sendable {
    /// The group member this manager controls, or `nil` for the device itself.
    public let multizoneDevice: CastMultizoneDevice?
    private let link: SessionLink
    private let registrar = ObservationRegistrar()
    private let volumeProperty: OptimisticProperty<Double>
    private let mutedProperty: OptimisticProperty<Bool>
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(link: SessionLink, multizoneDevice: CastMultizoneDevice?) {
        self.link = link
        self.multizoneDevice = multizoneDevice
        let box = WeakBox<CastDeviceManager>()
        volumeProperty = OptimisticProperty(0) { box.value?.changed(\.volume) }
        mutedProperty = OptimisticProperty(false) { box.value?.changed(\.isMuted) }
        box.value = self
        installSenders()
        refreshFromReceiver()
        let linkEvents = link.events
        let multizoneEvents = link.multizone.events
        let linkTask = Task { [weak self] in
            for await event in linkEvents {
                guard let self else { return }
                if case .receiverStatus = event { self.refreshFromReceiver() }
            }
        }
        let multizoneTask = Task { [weak self] in
            for await _ in multizoneEvents {
                guard let self else { return }
                self.refreshFromReceiver()
            }
        }
        tasks.withLock { $0 = [linkTask, multizoneTask] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    private func changed<Value>(_ keyPath: KeyPath<CastDeviceManager, Value>) {
        registrar.withMutation(of: self, keyPath: keyPath) {}
    }

    /// Reads the receiver's values (receiver status for the device, multizone status for a member).
    func refreshFromReceiver() {
        if let multizoneDevice {
            guard let member = link.multizone.members.first(where: { $0.id == multizoneDevice.id }) else { return }
            if let level = member.volumeLevel { volumeProperty.receive(level) }
            if let muted = member.isMuted { mutedProperty.receive(muted) }
        } else if let volume = link.receiverStatus?.volume {
            if let level = volume.level { volumeProperty.receive(level) }
            if let muted = volume.muted { mutedProperty.receive(muted) }
        }
        changed(\.canAdjustVolume)
    }

    private func installSenders() {
        let link = self.link
        let member = multizoneDevice?.id
        volumeProperty.setSender { level throws(CastError) in
            if let member {
                do throws(CastMultizoneError) {
                    try await link.multizone.setVolume(level, ofMember: member)
                } catch {
                    throw CastError(multizone: error)
                }
                return link.multizone.members.first { $0.id == member }?.volumeLevel
            }
            guard let connection = link.connection else { throw CastError(code: .noSession, message: "There is no connection") }
            do throws(CastChannelError) {
                return try await connection.receiver.setVolume(level: level).volume.level
            } catch {
                throw CastError(error, doing: "SET_VOLUME")
            }
        }
        mutedProperty.setSender { muted throws(CastError) in
            if let member {
                do throws(CastMultizoneError) {
                    try await link.multizone.setMuted(muted, ofMember: member)
                } catch {
                    throw CastError(multizone: error)
                }
                return link.multizone.members.first { $0.id == member }?.isMuted
            }
            guard let connection = link.connection else { throw CastError(code: .noSession, message: "There is no connection") }
            do throws(CastChannelError) {
                return try await connection.receiver.setMuted(muted).volume.muted
            } catch {
                throw CastError(error, doing: "SET_VOLUME")
            }
        }
    }

    // MARK: Public API

    /// The allowed volume range.
    public var volumeRange: ClosedRange<Float> { 0...1 }

    /// The volume step the receiver asks for (`stepInterval`), 0.05 when it gives none.
    public var volumeStep: Float {
        guard multizoneDevice == nil, let step = link.receiverStatus?.volume.stepInterval, step > 0 else { return 0.05 }
        return Float(step)
    }

    /// Whether the volume can be changed (not when the device reports control type `fixed`).
    public var canAdjustVolume: Bool {
        registrar.access(self, keyPath: \.canAdjustVolume)
        if multizoneDevice != nil { return link.multizone.members.contains { $0.id == multizoneDevice?.id } }
        return link.receiverStatus?.volume.controlType != .fixed && link.connection != nil
    }

    /// Whether the device can be muted.
    public var canMute: Bool {
        if multizoneDevice != nil { return canAdjustVolume }
        return link.connection != nil
    }

    /// The volume (optimistic). Setting a value outside ``volumeRange`` or on a fixed-volume device does nothing.
    public var volume: Float {
        get {
            registrar.access(self, keyPath: \.volume)
            return Float(volumeProperty.value)
        }
        set {
            guard canAdjustVolume, volumeRange.contains(newValue) else { return }
            volumeProperty.write(Double(newValue))
        }
    }

    /// Sets the volume and waits for the receiver.
    /// - Throws: ``CastError`` `.unsupported` on a fixed-volume device, `.invalidArgument` outside the range.
    public func setVolume(_ volume: Float) async throws(CastError) {
        guard canAdjustVolume else { throw CastError(code: .unsupported, message: "The volume of this device cannot be changed") }
        guard volumeRange.contains(volume) else { throw CastError(code: .invalidArgument, message: "Volume \(volume) is outside 0...1") }
        try await volumeProperty.update(to: Double(volume))
    }

    /// Raises the volume by one ``volumeStep`` (up to the top of ``volumeRange``) and waits.
    public func increaseVolume() async throws(CastError) {
        try await setVolume(min(volumeRange.upperBound, volume + volumeStep))
    }

    /// Lowers the volume by one ``volumeStep`` (down to the bottom of ``volumeRange``) and waits.
    public func decreaseVolume() async throws(CastError) {
        try await setVolume(max(volumeRange.lowerBound, volume - volumeStep))
    }

    /// Raises the volume by one step without waiting (same as setting ``volume``).
    public func requestIncreaseVolume() { volume = min(volumeRange.upperBound, volume + volumeStep) }
    /// Lowers the volume by one step without waiting (same as setting ``volume``).
    public func requestDecreaseVolume() { volume = max(volumeRange.lowerBound, volume - volumeStep) }

    /// Whether the device is muted; also true when the volume is 0. Unmuting at volume 0 sets the volume to 0.1.
    public var isMuted: Bool {
        get {
            registrar.access(self, keyPath: \.isMuted)
            registrar.access(self, keyPath: \.volume)
            return mutedProperty.value || volumeProperty.value == 0
        }
        set {
            guard canMute else { return }
            if !newValue, volumeProperty.value == 0, canAdjustVolume { volumeProperty.write(0.1) }
            mutedProperty.write(newValue)
        }
    }

    /// Mutes or unmutes and waits for the receiver.
    public func setMuted(_ muted: Bool) async throws(CastError) {
        guard canMute else { throw CastError(code: .unsupported, message: "This device cannot be muted") }
        if !muted, volumeProperty.value == 0, canAdjustVolume { try await volumeProperty.update(to: 0.1) }
        try await mutedProperty.update(to: muted)
    }
}

extension CastError {
    init(multizone error: CastMultizoneError) {
        let code: Code
        switch error.code {
        case .unsupported: code = .unsupported
        case .unknownMember: code = .invalidArgument
        case .notConnected: code = .noSession
        case .channel: code = error.cause?.code == .timeout ? .timeout : .connectionLost
        default: code = .commandFailed
        }
        self.init(code: code, message: error.message, reason: error.reason, cause: error)
    }
}
