/// What a controller slot holds.
public enum CastControlSlot: Sendable, Hashable {
    /// Nothing (an empty place).
    case none
    /// An app-defined button, reported to the model's custom action handler by `id`.
    case custom(id: String, title: String)
    /// Play / pause.
    case playPause
    /// Previous item (smart previous).
    case skipPrevious
    /// Next item.
    case skipNext
    /// Back 30 seconds.
    case rewind30
    /// Forward 30 seconds.
    case forward30
    /// Mute / unmute the device.
    case mute
    /// Closed captions on / off.
    case closedCaptions
}

/// How a slot looks now: enough for any front-end (SwiftUI, a terminal) to draw it.
public struct CastControlButton: Sendable, Hashable {
    /// The slot.
    public var slot: CastControlSlot
    /// Whether pressing it does something now.
    public var isEnabled: Bool
    /// Whether its toggle is on: playing, muted, captions shown.
    public var isOn: Bool
    /// A short label (`Pause`, `Play`, `-30s`, `CC`...), empty for ``CastControlSlot/none``.
    public var title: String
    /// A one-character glyph for terminals (`⏸`, `▶`, `⏮`...); empty for none.
    public var glyph: String

    /// Creates a button description.
    public init(slot: CastControlSlot, isEnabled: Bool, isOn: Bool, title: String, glyph: String) {
        self.slot = slot
        self.isEnabled = isEnabled
        self.isOn = isOn
        self.title = title
        self.glyph = glyph
    }
}

/// Turns slots into buttons and presses them against a player and a volume control.
struct CastControlActions {
    let player: (any CastPlaybackControlling)?
    let volume: (any CastVolumeControlling)?
    let custom: @Sendable (String) -> Void

    static let jump: Duration = .seconds(30)

    func button(for slot: CastControlSlot) -> CastControlButton {
        let active = player?.isActive ?? false
        switch slot {
        case .none:
            return CastControlButton(slot: slot, isEnabled: false, isOn: false, title: "", glyph: "")
        case .custom(_, let title):
            return CastControlButton(slot: slot, isEnabled: true, isOn: false, title: title, glyph: "•")
        case .playPause:
            let playing = player?.shouldPlay ?? false
            return CastControlButton(slot: slot, isEnabled: active, isOn: playing,
                                     title: playing ? "Pause" : "Play", glyph: playing ? "⏸" : "▶")
        case .skipPrevious:
            return CastControlButton(slot: slot, isEnabled: active && (player?.canReturnToPrevious() ?? false),
                                     isOn: false, title: "Previous", glyph: "⏮")
        case .skipNext:
            return CastControlButton(slot: slot, isEnabled: active && (player?.canAdvanceToNext() ?? false),
                                     isOn: false, title: "Next", glyph: "⏭")
        case .rewind30:
            return CastControlButton(slot: slot, isEnabled: active && canJump(by: .zero - Self.jump), isOn: false, title: "-30s", glyph: "⏪")
        case .forward30:
            return CastControlButton(slot: slot, isEnabled: active && canJump(by: Self.jump), isOn: false, title: "+30s", glyph: "⏩")
        case .mute:
            let muted = volume?.isMuted ?? false
            return CastControlButton(slot: slot, isEnabled: volume?.canMute ?? false, isOn: muted,
                                     title: muted ? "Unmute" : "Mute", glyph: muted ? "🔇" : "🔊")
        case .closedCaptions:
            let options = player?.mediaSelectionOptions(for: .legible) ?? []
            let on = player.map { $0.selectedMediaOption(for: .legible) != .off } ?? false
            return CastControlButton(slot: slot, isEnabled: active && !options.isEmpty, isOn: on, title: "CC", glyph: "㏄")
        }
    }

    private func canJump(by offset: Duration) -> Bool {
        guard let player, let time = player.time(), let range = player.seekableTimeRange() else { return false }
        return offset > .zero ? time < range.upperBound : time > range.lowerBound
    }

    /// Presses a slot. Returns `false` when the button is disabled (nothing happens).
    @discardableResult
    func press(_ slot: CastControlSlot) -> Bool {
        guard button(for: slot).isEnabled else { return false }
        switch slot {
        case .none: return false
        case .custom(let id, _): custom(id)
        case .playPause: player?.requestTogglePlayPause()
        case .skipPrevious: player?.requestReturnToPrevious()
        case .skipNext: player?.requestAdvanceToNext()
        case .rewind30: jump(by: .zero - Self.jump)
        case .forward30: jump(by: Self.jump)
        case .mute: volume?.isMuted.toggle()
        case .closedCaptions:
            guard let player else { return false }
            if player.selectedMediaOption(for: .legible) != .off {
                player.requestSelect(mediaOption: .off, for: .legible)
            } else if let first = player.mediaSelectionOptions(for: .legible).first(where: { $0 != .off }) {
                player.requestSelect(mediaOption: first, for: .legible)
            }
        }
        return true
    }

    private func jump(by offset: Duration) {
        guard let player, let time = player.time(), let range = player.seekableTimeRange() else { return }
        player.requestSeek(to: min(range.upperBound, max(range.lowerBound, time + offset)))
    }
}
