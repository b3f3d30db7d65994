public import CastMedia

/// The repeat modes a player UI offers (Castor's `CastRepeatMode`): off, one, all.
///
/// The receiver's `RepeatMode.allAndShuffle` reads as ``all``; unknown modes read as ``off``.
public enum CastRepeatMode: String, Sendable, Hashable, CaseIterable {
    /// Stop at the end of the queue.
    case off
    /// Repeat the current item.
    case one
    /// Start over at the end of the queue.
    case all

    /// The mode a receiver's repeat mode shows as.
    public init(_ mode: RepeatMode) {
        switch mode {
        case .single: self = .one
        case .all, .allAndShuffle: self = .all
        default: self = .off
        }
    }

    /// The receiver's repeat mode for this mode.
    public var repeatMode: RepeatMode {
        switch self {
        case .off: .off
        case .one: .single
        case .all: .all
        }
    }
}
