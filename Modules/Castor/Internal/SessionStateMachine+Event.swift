import CastChannels
import CastDiscoveryCore

extension SessionStateMachine {
    /// An input: something that happened to the session, reported by the shell.
    ///
    /// `serial` names the reconnect attempt an outcome belongs to: an outcome of an attempt the
    /// machine has moved on from (abandoned, or the session ended) is stale, and a connection it
    /// carries is closed.
    enum Event: Sendable {
        /// The session's connection ended: with an error (lost), or `nil` after a local close.
        case connectionClosed(CastError?)
        /// The lost connection's channels were told (or the bounded wait for it ended): reconnecting starts.
        case channelsDrained
        /// The back-off before attempt `serial` elapsed on the clock.
        case backOffElapsed(serial: Int)
        /// Attempt `serial` could not connect.
        case attemptFailed(serial: Int, CastError)
        /// Attempt `serial` was refused: the device's host is up, its receiver not (restarting).
        case attemptRefused(serial: Int, CastError)
        /// Attempt `serial` connected; the receiver's status at connect time.
        case connected(serial: Int, Connection, ReceiverStatus?)
        /// Attempt `serial` launched the app (the receiver ran none).
        case launched(serial: Int, Connection, App)
        /// Attempt `serial` could not launch the app, or add the channels to its connection.
        case attachFailed(serial: Int, Connection, CastError)
        /// The connection taken by ``SessionStateMachine/adopt(_:app:status:)`` is settled (status
        /// fetched, followed): the session is up on it.
        case settled
        /// Discovery's list changed; the device's record in it now (`nil`: not listed).
        case deviceListed(CastDevice?)
        /// The network came back (a link up, an address added).
        case networkChanged(CastNetworkChange)
        /// Discovery has the device's current record, with an address (looked up before an attempt).
        case relocated(CastDevice)
        /// The receiver's status, from the session's connection.
        case statusSeen(ReceiverStatus)
        /// The receiver closed the virtual connection to the app with this transport id.
        case appClosed(transportId: String)
        /// The user ends the session, stopping the receiver app when `stopApp`.
        case close(stopApp: Bool)

        /// The connection the event hands over, if any.
        var connection: Connection? {
            switch self {
            case .connected(_, let connection, _), .launched(_, let connection, _), .attachFailed(_, let connection, _):
                connection
            default: nil
            }
        }
    }

    /// Why a reconnect tries again at once.
    enum RetrySignal: Sendable, Equatable {
        /// Discovery listed the device anew.
        case announced
        /// The network came back.
        case networkReturned(CastNetworkChange)

        /// A sentence for the log, about `device`.
        func sentence(_ device: String) -> String {
            switch self {
            case .announced: "Discovery announced \(device) anew"
            case .networkReturned(let change): "The network came back (\(change))"
            }
        }
    }
}
