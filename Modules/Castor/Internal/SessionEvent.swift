import CastChannels

/// What a session tells the façade (``SessionLink/events``), in order: what ``SessionStateMachine``
/// publishes.
enum SessionEvent: Sendable {
    case state(CastConnectionState)
    case receiverStatus(ReceiverStatus)
    /// The session is over: the app stopped, another sender took over, or reconnecting gave up. Carries the reason.
    case ended(CastError)
    /// The connection dropped; reconnecting starts.
    case lost(CastError)
    /// Attempt `attempt` starts after `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    /// The app still ran and was joined again.
    case rejoined(attempt: Int)
    /// The receiver ran no app any more (it restarted): the app was launched again, with no media.
    case relaunched(attempt: Int)
}
