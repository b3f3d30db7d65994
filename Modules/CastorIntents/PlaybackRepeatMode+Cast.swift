public import CastIntents
public import CastQueue

extension CastRepeatMode {
    /// The queue repeat mode a receiver uses for an intent's repeat mode: `none` → `off`,
    /// `one` → `one`, `all` → `all`. A mode this version does not know (read from a newer
    /// database) plays without repetition, as `PlaybackRepeatMode` documents.
    public init(_ mode: PlaybackRepeatMode) {
        switch mode {
        case .one: self = .one
        case .all: self = .all
        default: self = .off
        }
    }
}
