extension SessionStateMachine {
    /// What the shell carries out, in order.
    ///
    /// Actions that start work (``backOff(serial:_:)``, ``connect(serial:)``, ``launch(serial:_:)``,
    /// ``attach(serial:_:_:)``, ``drainChannels``) report its outcome back as an ``Event`` with the same serial.
    enum Action: Sendable {
        /// Tell the façade (``SessionLink/events``).
        case publish(SessionEvent)
        /// Log a line at info level.
        case log(String)
        /// Wait (bounded) until the lost connection's channels have heard of the loss, then send ``Event/channelsDrained``.
        case drainChannels
        /// Watch the network for its coming back (``Event/networkChanged(_:)``) until ``stopWatchingNetwork``.
        case watchNetwork
        /// Stop watching the network.
        case stopWatchingNetwork
        /// Sleep `delay` on the clock, then send ``Event/backOffElapsed(serial:)``.
        case backOff(serial: Int, Duration)
        /// The back-off wait is over early: stop sleeping.
        case cancelBackOff
        /// Look the device up again (``Event/relocated(_:)``), connect to it, and report the outcome.
        case connect(serial: Int)
        /// The attempt in flight (connect, launch or attach) is abandoned: cancel it.
        case cancelAttempt
        /// Launch the app on `connection`, and report ``Event/launched(serial:_:_:)`` or ``Event/attachFailed(serial:_:_:)``.
        case launch(serial: Int, Connection)
        /// Add the channels to `connection` for `app`, adopt it
        /// (``SessionStateMachine/adopt(_:app:status:)``), settle it and send ``Event/settled``,
        /// or report ``Event/attachFailed(serial:_:_:)``.
        case attach(serial: Int, Connection, App)
        /// Stop `app` on the receiver (when the connection still runs).
        case stopApp(Connection, App)
        /// Close `connection`.
        case closeConnection(Connection)
        /// Stop following the session's connection.
        case stopFollowing
        /// The session is over: publish how it ended (``End/error``) and end the events.
        case finish(End)
    }

    /// How a session ended. A device that was lost and never came back is ``lost(_:)``, never ``closed``.
    enum End: Sendable {
        /// The user ended it (``Event/close(stopApp:)``).
        case closed
        /// The receiver ended it: the app stopped, another sender took the device over, or the
        /// receiver closed the app's connection.
        case ended(CastError)
        /// The connection was lost and reconnecting gave up (attempts or time spent).
        case lost(CastError)

        /// The error the session ended with; `nil` when the user ended it.
        var error: CastError? {
            switch self {
            case .closed: nil
            case .ended(let error), .lost(let error): error
            }
        }
    }
}
