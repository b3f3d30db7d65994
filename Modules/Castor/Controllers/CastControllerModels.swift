import Synchronization

/// A mini controller: three configurable slots (by default previous, play/pause, next).
///
/// Pure and headless: read ``buttons`` to draw, call ``press(slotAt:)`` on a tap or a key.
public final class CastMiniControllerModel: Sendable {
    /// The three slots.
    public let slots: [CastControlSlot]
    private let actions: CastControlActions

    /// Creates the model.
    /// - Parameters:
    ///   - slots: exactly three slots (missing ones become ``CastControlSlot/none``, extra ones are dropped).
    ///   - player: the player to control (usually `cast.player`).
    ///   - volume: the volume control for a mute slot (usually `cast.deviceManager()`).
    ///   - customAction: called with the id of a pressed custom slot.
    public init(slots: [CastControlSlot] = [.skipPrevious, .playPause, .skipNext], player: (any CastPlaybackControlling)?,
                volume: (any CastVolumeControlling)? = nil, customAction: @escaping @Sendable (String) -> Void = { _ in }) {
        self.slots = Array((slots + Array(repeating: .none, count: 3)).prefix(3))
        actions = CastControlActions(player: player, volume: volume, custom: customAction)
    }

    /// The three buttons as they look now.
    public var buttons: [CastControlButton] { slots.map(actions.button(for:)) }

    /// Presses slot `index` (0...2). Returns `false` when out of range or disabled.
    @discardableResult
    public func press(slotAt index: Int) -> Bool {
        guard slots.indices.contains(index) else { return false }
        return actions.press(slots[index])
    }
}

/// An expanded controller: four configurable slots around a fixed play/pause in the middle.
///
/// Positions, left to right: slot 0, slot 1, play/pause, slot 2, slot 3. A terminal UI draws
/// ``buttons`` in that order and maps keys with ``keyBindings`` / ``handleKey(_:)``.
public final class CastExpandedControllerModel: Sendable {
    /// A place in the bar.
    public enum Position: Sendable, Hashable {
        /// One of the four configurable slots (0...3).
        case slot(Int)
        /// The fixed play/pause button.
        case playPause
    }

    /// The four configurable slots.
    public let slots: [CastControlSlot]
    /// Keys and the positions they press; defaults: `1` `2` space `3` `4`, plus `p` for play/pause.
    public let keyBindings: [Character: Position]
    private let actions: CastControlActions

    /// Creates the model.
    /// - Parameters:
    ///   - slots: four slots (missing ones become none; extra ones are dropped). Defaults: rewind 30,
    ///     previous, next, forward 30.
    ///   - keyBindings: keys for each position.
    ///   - player: the player to control.
    ///   - volume: the volume control for a mute slot.
    ///   - customAction: called with the id of a pressed custom slot.
    public init(slots: [CastControlSlot] = [.rewind30, .skipPrevious, .skipNext, .forward30],
                keyBindings: [Character: Position] = ["1": .slot(0), "2": .slot(1), " ": .playPause, "p": .playPause,
                                                      "3": .slot(2), "4": .slot(3)],
                player: (any CastPlaybackControlling)?, volume: (any CastVolumeControlling)? = nil,
                customAction: @escaping @Sendable (String) -> Void = { _ in }) {
        self.slots = Array((slots.filter { $0 != .playPause } + Array(repeating: .none, count: 4)).prefix(4))
        self.keyBindings = keyBindings
        actions = CastControlActions(player: player, volume: volume, custom: customAction)
    }

    /// The positions in drawing order.
    public var positions: [Position] { [.slot(0), .slot(1), .playPause, .slot(2), .slot(3)] }

    /// The five buttons, in drawing order.
    public var buttons: [CastControlButton] { positions.map(button(at:)) }

    /// The button at a position.
    public func button(at position: Position) -> CastControlButton {
        actions.button(for: slot(at: position))
    }

    /// The slot at a position.
    public func slot(at position: Position) -> CastControlSlot {
        switch position {
        case .playPause: .playPause
        case .slot(let index): slots.indices.contains(index) ? slots[index] : .none
        }
    }

    /// The key bound to a position, if any (for drawing hints).
    public func key(for position: Position) -> Character? {
        keyBindings.filter { $0.value == position }.keys.sorted().first
    }

    /// Presses a position. Returns `false` when disabled or empty.
    @discardableResult
    public func press(_ position: Position) -> Bool {
        actions.press(slot(at: position))
    }

    /// Presses the position bound to `key`. Returns `false` for an unbound key or a disabled button.
    @discardableResult
    public func handleKey(_ key: Character) -> Bool {
        guard let position = keyBindings[key] else { return false }
        return press(position)
    }
}

/// The playback-rate choices of a settings menu: half, normal and double speed, limited to what
/// the stream allows (only normal for live streams).
public final class CastPlaybackRateController: Sendable {
    /// One choice.
    public struct Rate: Sendable, Hashable {
        /// The speed.
        public var value: Double
        /// Its label.
        public var title: String
    }

    /// Every rate offered, whatever the stream.
    public static let standardRates: [Rate] = [Rate(value: 0.5, title: "Half"), Rate(value: 1, title: "Normal"), Rate(value: 2, title: "Double")]
    private let player: any CastPlaybackControlling

    /// Creates the controller for a player.
    public init(player: any CastPlaybackControlling) {
        self.player = player
    }

    /// The rates the current stream allows.
    public var rates: [Rate] { Self.standardRates.filter { player.playbackSpeedRange.contains($0.value) } }

    /// The selected rate, if it is one of the offered ones.
    public var selected: Rate? { rates.first { $0.value == player.playbackSpeed } }

    /// Selects a rate. Returns `false` when the stream does not allow it.
    @discardableResult
    public func select(_ rate: Rate) -> Bool {
        guard rates.contains(rate) else { return false }
        player.playbackSpeed = rate.value
        return true
    }
}

/// A device volume control: slider value, steps, mute.
public final class CastDeviceVolumeController: Sendable {
    private let device: any CastVolumeControlling

    /// Creates the controller for a device (or group member).
    public init(device: any CastVolumeControlling) {
        self.device = device
    }

    /// The volume as a fraction of the range, 0...1.
    public var fraction: Float {
        let range = device.volumeRange
        guard range.upperBound > range.lowerBound else { return 0 }
        return (device.volume - range.lowerBound) / (range.upperBound - range.lowerBound)
    }

    /// Whether the slider is enabled.
    public var isEnabled: Bool { device.canAdjustVolume }
    /// Whether the device shows as muted.
    public var isMuted: Bool { device.isMuted }

    /// Sets the volume from a slider fraction (clamped to 0...1).
    public func setFraction(_ fraction: Float) {
        guard isEnabled, !fraction.isNaN else { return }
        let range = device.volumeRange
        device.volume = range.lowerBound + min(1, max(0, fraction)) * (range.upperBound - range.lowerBound)
    }

    /// One step up.
    public func increase() {
        guard isEnabled else { return }
        device.volume = min(device.volumeRange.upperBound, device.volume + device.volumeStep)
    }

    /// One step down.
    public func decrease() {
        guard isEnabled else { return }
        device.volume = max(device.volumeRange.lowerBound, device.volume - device.volumeStep)
    }

    /// Mutes or unmutes.
    public func toggleMute() {
        guard device.canMute else { return }
        device.isMuted.toggle()
    }
}
