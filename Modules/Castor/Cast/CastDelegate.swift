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
    /// The device restarted while connected and the session goes on in a new app session: the app
    /// was launched again and what played was reloaded (see ``CastSessionEvent/resumed(_:)``).
    /// `session` replaces ``Cast/sessionInfo`` as the session to remember for
    /// ``Cast/resumeSession(_:on:)``. Called after the reload was attempted, whatever its outcome.
    func castSessionRelaunched(_ session: CastSessionInfo)
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
    /// Does nothing.
    public func castSessionRelaunched(_ session: CastSessionInfo) {}
}
