import CastChannels
import CastJSON
import CastMetadata
import Foundation
import Synchronization

/// The media channel (`urn:x-cast:com.google.cast.media`): load, control and observe media on a
/// receiver app (`GCKRemoteMediaClient`).
///
/// Add it to a connection; it connects when an app that speaks the media namespace runs.
/// ```swift
/// let media = CastMediaChannel()
/// try await connection.add(media)
/// _ = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
/// let status = try await media.load(MediaInformation(contentId: url, contentType: "video/mp4"))
/// try await media.seek(by: 30)
/// for await status in media.statuses { ... }   // every status, including other senders'
/// ```
///
/// Every command awaits the receiver's answer and returns the status it carried, or throws a
/// ``CastMediaError``. The media session id is taken from the latest status.
public final class CastMediaChannel: CastChannelPlugin {
    /// The media namespace.
    public let namespace = CastNamespace.media

    private struct State {
        var context: CastChannelContext?
        var status: MediaStatus?
        var hasSession = false
        var position: MediaPositionTracker<AnyClockBox>
        /// The last MEDIA_STATUS text decoded and its result: a reply reaches both the request that
        /// awaited it and the plugin callback, and is decoded once.
        var lastDecoded: (text: String, message: MediaStatusMessage?)?
    }

    private let state: Mutex<State>
    private let statusBroadcaster = CastBroadcaster<MediaStatus?>()
    private let messageBroadcaster = CastBroadcaster<CastChannelMessage>()
    /// The deadline for each command; `nil` uses the connection's request timeout.
    public let timeout: Duration?

    /// Creates the channel.
    /// - Parameters:
    ///   - clock: the clock used to extrapolate the playback position.
    ///   - timeout: the deadline of each command (`nil`: the connection's request timeout).
    public init(clock: some Clock<Duration> = ContinuousClock(), timeout: Duration? = nil) {
        self.timeout = timeout
        state = Mutex(State(position: MediaPositionTracker(clock: AnyClockBox(clock))))
    }

    // MARK: - Observing

    /// The latest status, or `nil` when there is no media session.
    public var status: MediaStatus? { state.withLock { $0.status } }

    /// The media session id of the latest status.
    public var mediaSessionId: Int? { state.withLock { $0.status?.mediaSessionId } }

    /// The channel's context while connected to a receiver app (for extensions such as queue commands).
    public var connectedContext: CastChannelContext? { state.withLock { $0.context } }

    /// Whether the channel is connected to a receiver app.
    public var isConnected: Bool { state.withLock { $0.context != nil } }

    /// The playback position now, extrapolated from the latest status with the injected clock.
    public var estimatedPosition: Double? { state.withLock { $0.position.position() } }

    /// Every status from now on: a ``MediaStatus``, or `nil` when the media session ended
    /// (`status: []`). Includes statuses caused by other senders. Each call gives an independent sequence.
    public var statuses: AsyncStream<MediaStatus?> { statusBroadcaster.subscribe() }

    /// Every message received on the media namespace from now on (statuses, queue changes, errors).
    public var messages: AsyncStream<CastChannelMessage> { messageBroadcaster.subscribe() }

    // MARK: - Plugin

    /// Records the app's context.
    public func channelDidConnect(_ context: CastChannelContext) async {
        state.withLock { $0.context = context }
    }

    /// Forgets the context and the session.
    public func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        let hadSession = state.withLock { state in
            state.context = nil
            defer {
                state.status = nil
                state.hasSession = false
                state.position.reset()
            }
            return state.hasSession
        }
        if hadSession { statusBroadcaster.yield(nil) }
    }

    /// Applies statuses and publishes every message.
    public func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        if message.type == "MEDIA_STATUS" {
            apply(statusMessage: message)
        }
        messageBroadcaster.yield(message)
    }

    /// Decodes a MEDIA_STATUS message (once, however many paths see it), records it and (when
    /// `publish`) publishes it; returns the decoded message, or `nil` when it is not a MEDIA_STATUS.
    ///
    /// A reply is recorded twice: when the request returns (so the next command already sees the new
    /// session id) and when the plugin receives it; only the latter publishes, so subscribers see each status once.
    @discardableResult
    func apply(statusMessage message: CastChannelMessage, publish: Bool = true) -> MediaStatusMessage? {
        guard let decoded = decodeStatus(message) else { return nil }
        let status = decoded.first
        state.withLock { state in
            state.status = status
            state.hasSession = status != nil
            if let status { state.position.update(status) } else { state.position.reset() }
        }
        if publish { statusBroadcaster.yield(status) }
        return decoded
    }

    /// The MEDIA_STATUS in `message`, decoded at most once per message text.
    private func decodeStatus(_ message: CastChannelMessage) -> MediaStatusMessage? {
        guard let text = message.text else { return message.json.flatMap { try? MediaStatusMessage(json: $0) } }
        if let cached = state.withLock({ $0.lastDecoded }), cached.text == text { return cached.message }
        let decoded = message.json.flatMap { try? MediaStatusMessage(json: $0) }
        state.withLock { $0.lastDecoded = (text, decoded) }
        return decoded
    }

    // MARK: - Requests

    /// Sends a media-namespace request and returns the raw reply (for queue commands and extensions).
    ///
    /// Adds `mediaSessionId` from the latest status when `needsSession` is true (failing with
    /// ``CastMediaError/Code/noMediaSession`` without one), checks the 64 KiB rule before sending,
    /// and turns receiver error replies into ``CastMediaError``s. A MEDIA_STATUS reply is recorded
    /// before this returns.
    public func request(_ json: JSONValue, needsSession: Bool) async throws(CastMediaError) -> CastChannelMessage {
        try await exchange(json, needsSession: needsSession).reply
    }

    /// ``request(_:needsSession:)``, also returning the decoded MEDIA_STATUS when that is the reply.
    package func exchange(_ json: JSONValue, needsSession: Bool) async throws(CastMediaError) -> (reply: CastChannelMessage, status: MediaStatusMessage?) {
        let (context, sessionId) = state.withLock { ($0.context, $0.status?.mediaSessionId) }
        guard let context else {
            throw CastMediaError(code: .notConnected, message: "The media channel is not connected to a receiver app")
        }
        var payload = json
        let type = json["type"]?.stringValue ?? "request"
        if needsSession {
            guard let sessionId else {
                throw CastMediaError(code: .noMediaSession, message: "\(type) needs a media session, and there is none")
            }
            payload["mediaSessionId"] = .number(Double(sessionId))
        }
        try Self.checkSize(payload, context: context)
        let reply: CastChannelMessage
        do {
            reply = try await context.request(payload, timeout: timeout)
        } catch {
            throw CastMediaError(channelError: error, request: type)
        }
        guard let replyJSON = reply.json else {
            throw CastMediaError(code: .unexpectedReply, message: "The reply to \(type) is not JSON")
        }
        if let error = CastMediaError(reply: replyJSON) { throw error }
        let status = reply.type == "MEDIA_STATUS" ? apply(statusMessage: reply, publish: false) : nil
        return (reply, status)
    }

    /// The 64 KiB rule, checked before anything is sent; the `requestId` the connection adds is counted at its widest.
    static func checkSize(_ payload: JSONValue, context: CastChannelContext) throws(CastMediaError) {
        var sized = payload
        sized["requestId"] = .number(Double(Int32.max))
        let size = CastMessageSize.encodedSize(
            sourceId: context.senderId, destinationId: context.transportId, namespace: context.namespace.rawValue, json: sized)
        do {
            try CastMessageSize.check(size: size, what: payload["type"]?.stringValue ?? "request")
        } catch {
            throw CastMediaError(error)
        }
    }

    /// Sends a request whose answer must be a MEDIA_STATUS, and returns its status (`nil` for `status: []`).
    func statusRequest(_ json: JSONValue, needsSession: Bool) async throws(CastMediaError) -> MediaStatus? {
        let (reply, message) = try await exchange(json, needsSession: needsSession)
        guard let message else {
            throw CastMediaError(code: .unexpectedReply, message: "Expected MEDIA_STATUS, got \(reply.type ?? "no type")")
        }
        return message.first
    }

    /// Like ``statusRequest(_:needsSession:)`` but a missing status is an error.
    func requiredStatusRequest(_ json: JSONValue, needsSession: Bool = true) async throws(CastMediaError) -> MediaStatus {
        guard let status = try await statusRequest(json, needsSession: needsSession) else {
            throw CastMediaError(
                code: .noMediaSession,
                message: "The receiver answered \(json["type"]?.stringValue ?? "the request") with no media session")
        }
        return status
    }
}

extension CastMediaError {
    /// Maps a channel failure.
    init(channelError error: CastChannelError, request: String) {
        let code: Code
        switch error.code {
        case .timeout: code = .timeout
        case .messageTooLarge: code = .messageTooLarge
        case .notConnected: code = .notConnected
        case .cancelled: code = .cancelled
        case .invalidRequest: code = .invalidRequest
        default: code = .connectionLost
        }
        self.init(code: code, message: "\(request): \(error.message)",
                  reason: error.reason.map(MediaErrorReason.init(rawValue:)), cause: error)
    }
}

/// A type-erased clock, so the channel can keep a tracker without being generic.
struct AnyClockBox: Clock, Sendable {
    typealias Duration = Swift.Duration

    struct Instant: InstantProtocol {
        var offset: Swift.Duration
        func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let elapsed: @Sendable () -> Swift.Duration

    init<C: Clock<Swift.Duration>>(_ clock: C) {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
    }

    var now: Instant { Instant(offset: elapsed()) }
    var minimumResolution: Swift.Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {
        try await Task.sleep(for: now.duration(to: deadline))
    }
}
