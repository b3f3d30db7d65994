extension Duration {
    /// The longest span ``saturatingSeconds(_:)`` gives: a century, in seconds.
    package static let longestPeerSeconds: Double = 100 * 365.25 * 86_400

    /// A number of seconds a peer sent (a position, a duration, a span divided by a playback rate) as a
    /// `Duration` that cannot trap: within a century either way, NaN as zero. The standard library's
    /// `Duration(seconds:)` traps past about 1.7e20 seconds, and a device or a sender may send any number
    /// (`"duration": 3.3e20`, `"playbackRate": 1e-300`): found by FuzzReceiverRequests.
    package static func saturatingSeconds(_ seconds: Double) -> Duration {
        guard !seconds.isNaN else { return .zero }
        return .seconds(Swift.min(Swift.max(seconds, -longestPeerSeconds), longestPeerSeconds))
    }
}
