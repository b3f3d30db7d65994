/// App-level session events, typically handled by a router: show the remote UI when a session
/// starts, the local one when it ends.
///
/// Register one with ``Cast/delegate``; the reference is weak. Methods are called from the `Cast`'s
/// own tasks, not on any particular thread or actor: hop to your UI actor if needed.
public protocol CastDelegate: AnyObject, Sendable {
    /// A session started (after any ``Castable`` state was handed to the receiver).
    func castStartSession()
    /// A session ended by the user (not a device switch). `state` is the receiver's queue and
    /// position, to resume locally; `nil` when the receiver had nothing.
    func castEndSession(with state: CastResumeState?)
}

/// A playback context (a local player's model) that hands playback to the receiver and takes it back.
///
/// Register one with ``Cast/castable``; the reference is weak.
public protocol Castable: AnyObject, Sendable {
    /// A session is starting: return the local state to continue on the receiver (or `nil` for none).
    func castStartSession() -> CastResumeState?
    /// The session ended: continue locally from `state` (`nil` when the receiver had nothing).
    func castEndSession(with state: CastResumeState?)
}

extension CastDelegate {
    /// Does nothing.
    public func castStartSession() {}
    /// Does nothing.
    public func castEndSession(with state: CastResumeState?) {}
}
