import CastChannels
import CastDiscoveryCore

/// The session while a connection carries it: its status, the receiver ending it, the user closing it.
extension SessionStateMachine {
    /// The adopted connection is settled: the session is up (again).
    mutating func settled() -> [Action] {
        guard let settling = pending else { return [] }
        pending = nil
        var actions: [Action] = [.publish(.state(.connected))]
        guard case .reconnected(let outcome, let attempt) = settling else { return actions }
        switch outcome {
        case .rejoined:
            actions.append(.log("Rejoined session \(app?.sessionId ?? "") on \(device.friendlyName) (attempt \(attempt))"))
            actions.append(.publish(.rejoined(attempt: attempt)))
        case .relaunched:
            actions.append(.publish(.relaunched(attempt: attempt)))
        case .launched:
            actions.append(.log("Relaunched \(app?.appId ?? "") on \(device.friendlyName) after it restarted (attempt \(attempt))"))
            actions.append(.publish(.relaunched(attempt: attempt)))
        }
        // A new round (the connection lost again while it settled) keeps its watch.
        if round == nil { actions.append(.stopWatchingNetwork) }
        return actions
    }

    /// The receiver's status: an app of the session's that no longer runs ends the session.
    mutating func statusSeen(_ status: ReceiverStatus) -> [Action] {
        receiverStatus = status
        var actions: [Action] = [.publish(.receiverStatus(status))]
        if phase == .attached, let app, !status.applications.contains(where: { $0.sessionId == app.sessionId }) {
            actions += end(.ended(Self.endReason(app: app, status: status)))
            if let connection { actions.append(.closeConnection(connection)) }
        }
        return actions
    }

    /// The receiver closed the app's virtual connection: the session is over.
    mutating func appClosed(_ transportId: String) -> [Action] {
        guard phase == .attached, transportId == app?.transportId else { return [] }
        var actions = end(.ended(CastError(code: .sessionEnded, message: "The receiver closed the app's connection")))
        if let connection { actions.append(.closeConnection(connection)) }
        return actions
    }

    /// The user ends the session: whatever is in flight stops, the app is stopped when asked, the
    /// connection closed, and the session finished (once).
    mutating func close(stopApp: Bool) -> [Action] {
        var actions: [Action] = [.stopFollowing, .cancelBackOff, .cancelAttempt, .stopWatchingNetwork]
        let ending = phase != .ended
        if ending, stopApp, let connection, let app { actions.append(.stopApp(connection, app)) }
        if let connection { actions.append(.closeConnection(connection)) }
        phase = .ended
        round = nil
        pending = nil
        if ending { actions.append(.finish(.closed)) }
        return actions
    }

    /// Discovery has the device's current record: taken, logged when its address changed.
    mutating func relocated(_ fresh: CastDevice) -> [Action] {
        guard !fresh.endpoints.isEmpty else { return [] }
        let old = device
        device = fresh
        guard old.endpoints != fresh.endpoints else { return [] }
        let now = fresh.preferredEndpoint.map { "\($0)" } ?? "?", was = old.preferredEndpoint.map { "\($0)" } ?? "?"
        return [.log("\(fresh.friendlyName) (\(fresh.id)) is now at \(now), was \(was)")]
    }

    /// Why the session ended when the receiver no longer runs `app`: another sender's app or
    /// session runs instead (taken over), or nothing does (stopped).
    static func endReason(app: App, status: ReceiverStatus) -> CastError {
        if let other = status.applications.first(where: { !$0.isIdleScreen && $0.sessionId != app.sessionId }) {
            return CastError(code: .sessionTakenOver,
                             message: "Another sender took the device over: it runs \(other.displayName) (\(other.appId)), session \(other.sessionId)")
        }
        return CastError(code: .sessionEnded, message: "The receiver stopped \(app.appId)")
    }
}
