import CastTestSupport
import Synchronization
import Testing
@testable import Castor

/// A player double: plain state, records what was pressed.
final class FakePlayer: CastPlaybackControlling {
    struct State {
        var shouldPlay = false
        var isActive = true
        var speed = 1.0
        var speedRange: ClosedRange<Double> = 0.5...2
        var time: Duration? = .seconds(100)
        var range: ClosedRange<Duration>? = .zero ... .seconds(600)
        var index = 1
        var count = 3
        var legible: [CastMediaTrackInfo] = [CastMediaTrackInfo(id: 7, languageCode: "en", characteristic: .legible)]
        var selectedLegible: CastMediaSelectionOption = .off
        var seeks: [Duration] = []
    }
    let state = Mutex(State())

    var shouldPlay: Bool { state.withLock { $0.shouldPlay } }
    var isBusy: Bool { false }
    var isActive: Bool { state.withLock { $0.isActive } }
    var playbackSpeed: Double {
        get { state.withLock { $0.speed } }
        set { state.withLock { $0.speed = newValue } }
    }
    var playbackSpeedRange: ClosedRange<Double> { state.withLock { $0.speedRange } }
    func requestTogglePlayPause() { state.withLock { $0.shouldPlay.toggle() } }
    func canReturnToPrevious() -> Bool { state.withLock { $0.index > 0 } }
    func requestReturnToPrevious() { state.withLock { $0.index -= 1 } }
    func canAdvanceToNext() -> Bool { state.withLock { $0.index + 1 < $0.count } }
    func requestAdvanceToNext() { state.withLock { $0.index += 1 } }
    func time() -> Duration? { state.withLock { $0.time } }
    func seekableTimeRange() -> ClosedRange<Duration>? { state.withLock { $0.range } }
    func requestSeek(to time: Duration) {
        state.withLock {
            $0.seeks.append(time)
            $0.time = time
        }
    }
    func mediaSelectionOptions(for characteristic: CastMediaCharacteristic) -> [CastMediaSelectionOption] {
        let tracks = state.withLock { $0.legible }
        return characteristic == .legible && !tracks.isEmpty ? [.off] + tracks.map { .on($0) } : []
    }
    func selectedMediaOption(for characteristic: CastMediaCharacteristic) -> CastMediaSelectionOption {
        characteristic == .legible ? state.withLock { $0.selectedLegible } : .off
    }
    func requestSelect(mediaOption option: CastMediaSelectionOption, for characteristic: CastMediaCharacteristic) {
        state.withLock { $0.selectedLegible = option }
    }
}

final class FakeVolume: CastVolumeControlling {
    struct State { var volume: Float = 0.5; var muted = false; var adjustable = true }
    let state = Mutex(State())
    var volume: Float {
        get { state.withLock { $0.volume } }
        set { state.withLock { $0.volume = newValue } }
    }
    var isMuted: Bool {
        get { state.withLock { $0.muted } }
        set { state.withLock { $0.muted = newValue } }
    }
    var canAdjustVolume: Bool { state.withLock { $0.adjustable } }
    var canMute: Bool { true }
    var volumeStep: Float { 0.1 }
    var volumeRange: ClosedRange<Float> { 0...1 }
}

@Suite struct ControllerModelTests {
    @Test func miniControllerSlots() {
        let player = FakePlayer()
        let pressed = Mutex<[String]>([])
        let mini = CastMiniControllerModel(slots: [.playPause, .custom(id: "like", title: "Like")], player: player) { id in
            pressed.withLock { $0.append(id) }
        }
        #expect(mini.slots == [.playPause, .custom(id: "like", title: "Like"), .none])
        #expect(mini.buttons.map(\.title) == ["Play", "Like", ""])
        #expect(mini.press(slotAt: 0))
        #expect(player.shouldPlay)
        #expect(mini.buttons[0].glyph == "⏸")
        #expect(mini.buttons[0].isOn)
        #expect(mini.press(slotAt: 1))
        #expect(pressed.withLock { $0 } == ["like"])
        #expect(!mini.press(slotAt: 2))
        #expect(!mini.press(slotAt: 7))
        player.state.withLock { $0.isActive = false }
        #expect(!mini.buttons[0].isEnabled)
        #expect(!mini.press(slotAt: 0))
        #expect(player.shouldPlay)
    }

    @Test func expandedControllerKeysAndSlots() {
        let player = FakePlayer(), volume = FakeVolume()
        let expanded = CastExpandedControllerModel(
            slots: [.rewind30, .skipPrevious, .skipNext, .forward30], player: player, volume: volume)
        #expect(expanded.buttons.map(\.title) == ["-30s", "Previous", "Play", "Next", "+30s"])
        #expect(expanded.key(for: .slot(0)) == "1")
        #expect(expanded.key(for: .playPause) == " ")
        #expect(expanded.handleKey("1"))
        #expect(player.state.withLock { $0.seeks } == [.seconds(70)])
        #expect(expanded.handleKey("4"))
        #expect(player.state.withLock { $0.seeks } == [.seconds(70), .seconds(100)])
        #expect(expanded.handleKey(" "))
        #expect(player.shouldPlay)
        #expect(expanded.handleKey("3"))
        #expect(player.state.withLock { $0.index } == 2)
        #expect(!expanded.button(at: .slot(2)).isEnabled)   // at the last item
        #expect(!expanded.handleKey("3"))
        #expect(!expanded.handleKey("x"))
        // Rewinding near the start clamps to the start.
        player.state.withLock { $0.time = .seconds(10) }
        expanded.press(.slot(0))
        #expect(player.time() == .zero)
        #expect(!expanded.button(at: .slot(0)).isEnabled)
    }

    @Test func muteAndCaptionSlots() {
        let player = FakePlayer(), volume = FakeVolume()
        let expanded = CastExpandedControllerModel(
            slots: [.mute, .closedCaptions, .playPause, .none], player: player, volume: volume)
        // play/pause is fixed in the middle, so it is not accepted as a slot.
        #expect(expanded.slots == [.mute, .closedCaptions, .none, .none])
        #expect(expanded.press(.slot(0)))
        #expect(volume.isMuted)
        #expect(expanded.button(at: .slot(0)).title == "Unmute")
        #expect(expanded.press(.slot(1)))
        #expect(player.selectedMediaOption(for: .legible) != .off)
        #expect(expanded.button(at: .slot(1)).isOn)
        #expect(expanded.press(.slot(1)))
        #expect(player.selectedMediaOption(for: .legible) == .off)
        player.state.withLock { $0.legible = [] }
        #expect(!expanded.button(at: .slot(1)).isEnabled)
    }

    @Test func playbackRates() {
        let player = FakePlayer()
        let rates = CastPlaybackRateController(player: player)
        #expect(rates.rates.map(\.title) == ["Half", "Normal", "Double"])
        #expect(rates.selected?.title == "Normal")
        #expect(rates.select(rates.rates[2]))
        #expect(player.playbackSpeed == 2)
        player.state.withLock { $0.speedRange = 1...1; $0.speed = 1 }
        #expect(rates.rates.map(\.title) == ["Normal"])
        #expect(!rates.select(CastPlaybackRateController.standardRates[0]))
        #expect(player.playbackSpeed == 1)
    }

    @Test func deviceVolume() {
        let volume = FakeVolume()
        let controller = CastDeviceVolumeController(device: volume)
        controller.increase()
        #expect(abs(volume.volume - 0.6) < 0.0001)
        controller.setFraction(2)
        #expect(volume.volume == 1)
        controller.increase()
        #expect(volume.volume == 1)
        controller.toggleMute()
        #expect(controller.isMuted)
        volume.state.withLock { $0.adjustable = false }
        controller.decrease()
        #expect(volume.volume == 1)
        #expect(!controller.isEnabled)
    }

    @Test func timeLabels() {
        #expect(CastProgressTracker.label(for: nil) == "--:--")
        #expect(CastProgressTracker.label(for: .seconds(5)) == "0:05")
        #expect(CastProgressTracker.label(for: .seconds(754)) == "12:34")
        #expect(CastProgressTracker.label(for: .seconds(3723)) == "1:02:03")
        #expect(CastProgressTracker.label(for: .seconds(-3)) == "0:00")
    }

    @Test func progressIsThrottledAndSeeksOnRelease() async throws {
        let clock = ManualClock()
        let player = FakePlayer()
        let tracker = CastProgressTracker(interval: .seconds(1), clock: clock)
        tracker.player = player
        #expect(tracker.isProgressAvailable)
        #expect(abs(tracker.progress - 100.0 / 600) < 0.0001)
        // The player moves; the tracker only sees it at the next pulse.
        player.state.withLock { $0.time = .seconds(300) }
        #expect(abs(tracker.progress - 100.0 / 600) < 0.0001)
        try await waitUntil("the pulse is armed") { clock.sleeperCount == 1 }
        await clock.advance(by: .seconds(1))
        try await waitUntil("the pulse ran") { abs(tracker.progress - 0.5) < 0.0001 }
        // Dragging: the tracker stops following the player, then seeks on release.
        tracker.isInteracting = true
        tracker.progress = 0.25
        #expect(tracker.time == .seconds(150))
        player.state.withLock { $0.time = .seconds(400) }
        try await waitUntil("the pulse is armed again") { clock.sleeperCount == 1 }
        await clock.advance(by: .seconds(1))
        try await waitUntil("the pulse is armed after running") { clock.sleeperCount == 1 }
        #expect(tracker.progress == 0.25)
        #expect(player.state.withLock { $0.seeks }.isEmpty)
        tracker.isInteracting = false
        #expect(player.state.withLock { $0.seeks } == [.seconds(150)])
        tracker.player = nil
        #expect(!tracker.isProgressAvailable)
        #expect(tracker.progress == 0)
    }
}
