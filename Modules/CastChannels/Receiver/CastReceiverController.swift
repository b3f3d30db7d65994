public import CastJSON

/// The platform channel, `urn:x-cast:com.google.cast.receiver`: status, apps and device volume.
///
/// Obtain it from ``CastConnection/receiver``. Every method awaits the receiver's answer and
/// turns LAUNCH_ERROR and INVALID_REQUEST into ``CastChannelError``s with the receiver's reason.
public struct CastReceiverController: Sendable {
    let connection: CastConnection

    /// Asks for the receiver status (a unicast reply).
    public func getStatus() async throws(CastChannelError) -> ReceiverStatus {
        try await getStatus(timeout: nil)
    }

    /// GET_STATUS with its own deadline (`nil`: the configured request timeout).
    func getStatus(timeout: Duration?) async throws(CastChannelError) -> ReceiverStatus {
        let reply = try await connection.request(
            ["type": "GET_STATUS"], namespace: .receiver, destinationId: CastEndpoint.platform,
            timeout: timeout)
        return try Self.status(from: reply)
    }

    /// Launches an app and waits until the receiver reports it running.
    ///
    /// When the device answers CANCELLED (a launch pre-empted by another), the launch is retried
    /// once, as pychromecast does. An interim LAUNCH_STATUS (a device asking its user) keeps waiting.
    /// - Parameters:
    ///   - appId: the receiver app id, such as ``CastAppID/defaultMediaReceiver``.
    ///   - supportedAppTypes: app types the sender accepts, such as `["WEB", "ANDROID_TV"]`
    ///     (Android TV receiver compatibility); omitted when `nil`.
    ///   - appParams: parameters for the app, if any.
    ///   - timeout: the deadline; the configured launch timeout by default.
    /// - Returns: the running application.
    /// - Throws: ``CastChannelError`` `.launchError` with the reason (`NOT_FOUND`, `BAD_PARAMETER`,
    ///   `CANCELLED`, `SYSTEM_ERROR`...), `.invalidRequest`, `.timeout`, `.connectionLost`.
    public func launch(
        appId: String, supportedAppTypes: [String]? = nil, appParams: JSONValue? = nil, timeout: Duration? = nil
    ) async throws(CastChannelError) -> ReceiverStatus.Application {
        var payload: JSONValue = ["type": "LAUNCH", "appId": .string(appId), "language": "en-US"]
        if let supportedAppTypes { payload["supportedAppTypes"] = .array(supportedAppTypes.map(JSONValue.string)) }
        if let appParams { payload["appParams"] = appParams }
        let accept: @Sendable (CastChannelMessage) -> Bool = { message in
            switch message.type {
            case "LAUNCH_ERROR", "INVALID_REQUEST": return true
            case "RECEIVER_STATUS":
                return message.json?["status"]?["applications"]?.arrayValue?.contains { $0["appId"]?.stringValue == appId } ?? false
            default: return false
            }
        }
        var attempt = 0
        while true {
            attempt += 1
            do throws(CastChannelError) {
                let reply = try await connection.request(
                    payload, namespace: .receiver, destinationId: CastEndpoint.platform,
                    timeout: timeout ?? connection.configuration.launchTimeout, accept: accept)
                let status = try Self.status(from: reply)
                guard let app = status.application(withId: appId) else {
                    throw CastChannelError(code: .malformedReply, message: "Status does not list \(appId)", reply: reply.json)
                }
                return app
            } catch where error.code == .launchError && error.reason == "CANCELLED" && attempt == 1 {
                continue
            }
        }
    }

    /// Stops the app with `sessionId` (the current app when `nil`).
    /// - Throws: ``CastChannelError`` `.invalidRequest` with reason `INVALID_SESSION_ID` for an unknown session.
    @discardableResult
    public func stop(sessionId: String?) async throws(CastChannelError) -> ReceiverStatus {
        var payload: JSONValue = ["type": "STOP"]
        if let sessionId { payload["sessionId"] = .string(sessionId) }
        return try Self.status(from: try await request(payload))
    }

    /// Sets the device volume level, clamped to 0...1.
    @discardableResult
    public func setVolume(level: Double) async throws(CastChannelError) -> ReceiverStatus {
        let clamped = min(1, max(0, level.isNaN ? 0 : level))
        return try Self.status(from: try await request(["type": "SET_VOLUME", "volume": ["level": .number(clamped)]]))
    }

    /// Mutes or unmutes the device.
    @discardableResult
    public func setMuted(_ muted: Bool) async throws(CastChannelError) -> ReceiverStatus {
        try Self.status(from: try await request(["type": "SET_VOLUME", "volume": ["muted": .bool(muted)]]))
    }

    /// Asks which of `appIds` the device can run.
    /// - Returns: availability per app id (`true` for `APP_AVAILABLE`).
    public func appAvailability(_ appIds: [String]) async throws(CastChannelError) -> [String: Bool] {
        let reply = try await request(["type": "GET_APP_AVAILABILITY", "appId": .array(appIds.map(JSONValue.string))])
        try Self.throwIfError(reply)
        guard let availability = reply.json?["availability"]?.objectValue else {
            throw CastChannelError(code: .malformedReply, message: "GET_APP_AVAILABILITY reply without availability", reply: reply.json)
        }
        return availability.mapValues { $0.stringValue == "APP_AVAILABLE" }
    }

    private func request(_ payload: JSONValue) async throws(CastChannelError) -> CastChannelMessage {
        try await connection.request(payload, namespace: .receiver, destinationId: CastEndpoint.platform)
    }

    static func throwIfError(_ reply: CastChannelMessage) throws(CastChannelError) {
        switch reply.type {
        case "LAUNCH_ERROR":
            throw CastChannelError(
                code: .launchError, message: "The receiver refused LAUNCH", reason: reply.json?["reason"]?.stringValue, reply: reply.json)
        case "INVALID_REQUEST":
            throw CastChannelError(
                code: .invalidRequest, message: "The receiver rejected the request", reason: reply.json?["reason"]?.stringValue,
                reply: reply.json)
        default: return
        }
    }

    static func status(from reply: CastChannelMessage) throws(CastChannelError) -> ReceiverStatus {
        try throwIfError(reply)
        guard reply.type == "RECEIVER_STATUS" else {
            throw CastChannelError(code: .malformedReply, message: "Expected RECEIVER_STATUS, got \(reply.type ?? "no type")", reply: reply.json)
        }
        guard let status = try ReceiverStatus.read(from: reply) else {
            throw CastChannelError(code: .malformedReply, message: "The RECEIVER_STATUS reply's payload is not JSON text")
        }
        return status
    }
}
