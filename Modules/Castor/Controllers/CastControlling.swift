/// What the controller models need from a player. ``CastPlayer`` conforms; tests and other
/// front-ends (a terminal UI, a local player) can provide their own.
public protocol CastPlaybackControlling: AnyObject, Sendable {
    /// Whether the player should play.
    var shouldPlay: Bool { get }
    /// Whether the player is buffering or loading.
    var isBusy: Bool { get }
    /// Whether there is something to control.
    var isActive: Bool { get }
    /// The playback speed.
    var playbackSpeed: Double { get set }
    /// The allowed speeds.
    var playbackSpeedRange: ClosedRange<Double> { get }
    /// Toggles between play and pause without waiting.
    func requestTogglePlayPause()
    /// Whether "previous" can do something (observing the navigation mode).
    func canReturnToPrevious() -> Bool
    /// Goes back without waiting (smart previous: may seek to the start instead).
    func requestReturnToPrevious()
    /// Whether there is a next item.
    func canAdvanceToNext() -> Bool
    /// Goes to the next item without waiting.
    func requestAdvanceToNext()
    /// The position now.
    func time() -> Duration?
    /// The seekable range.
    func seekableTimeRange() -> ClosedRange<Duration>?
    /// Seeks without waiting.
    func requestSeek(to time: Duration)
    /// The options of a characteristic.
    func mediaSelectionOptions(for characteristic: CastMediaCharacteristic) -> [CastMediaSelectionOption]
    /// The selected option of a characteristic.
    func selectedMediaOption(for characteristic: CastMediaCharacteristic) -> CastMediaSelectionOption
    /// Selects an option without waiting.
    func requestSelect(mediaOption option: CastMediaSelectionOption, for characteristic: CastMediaCharacteristic)
}

/// What the volume controls need from a device. ``CastDeviceManager`` conforms.
public protocol CastVolumeControlling: AnyObject, Sendable {
    /// The volume.
    var volume: Float { get set }
    /// Whether the device is muted.
    var isMuted: Bool { get set }
    /// Whether the volume can change.
    var canAdjustVolume: Bool { get }
    /// Whether the device can be muted.
    var canMute: Bool { get }
    /// The step of one volume change.
    var volumeStep: Float { get }
    /// The allowed volume range.
    var volumeRange: ClosedRange<Float> { get }
}

extension CastPlayer: CastPlaybackControlling {}
extension CastDeviceManager: CastVolumeControlling {}
