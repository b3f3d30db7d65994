public import CastChannels
import CastCore
public import CastJSON
import CastMediaMetadata
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
public final class CastMediaChannel: CastConnectionThreadPlugin {
    /// The media namespace.
    public let namespace = CastNamespace.media
    /// `true`: the callbacks are short (a status is recorded and published under a lock), so each
    /// message reaches the channel on the connection's I/O thread without waking another, and
    /// usually at once (``channel(_:didReceiveNow:)``), without a task.
    public var runsOnConnectionThread: Bool { true }

    struct State {
        var context: CastChannelContext?
        /// Counts the channel's connects and disconnects: a request's reply is recorded only while the
        /// connection it was sent on is still the channel's (an app that closed and came back under the
        /// same transport id is a new one, and its replies are delivered anew).
        var generation = 0
        var status: MediaStatus?
        var hasSession = false
        /// LOADs and QUEUE_LOADs started so far: each replaces the media session.
        var replacementsStarted = 0
        /// The serials (1, 2, …) of those not yet answered: while one is in flight, the id in ``status``
        /// is about to go stale.
        var replacementsInFlight: Set<Int> = []
        var position: MediaPositionTracker<ElapsedClock>
        /// Replies already recorded by the request that awaited them but not yet seen by the plugin
        /// callback, oldest first (their texts). While one is pending, ``status`` is ahead of the
        /// messages the callback is still delivering, which are older and are published without
        /// being recorded.
        var recordedAhead: [String] = []
        /// The texts of the last replies (non-zero `requestId`) the plugin callback delivered, newest
        /// last, so a request that resumes only after its reply was delivered does not record it again.
        var deliveredReplies: [String] = []
        /// The subscribers of ``statuses``.
        var subscribers: [Int: StatusSubscriber] = [:]
        var nextSubscriber = 0
        /// The status and extrapolated position when the channel last lost its app (see ``lastSessionAtDisconnect``).
        var atDisconnect: (status: MediaStatus, position: Double)?
    }

    /// One ``statuses`` stream.
    struct StatusSubscriber {
        var continuation: AsyncStream<MediaStatus?>.Continuation
        /// It started with a reply recorded ahead: statuses published before (and including) that
        /// reply are older than its first element and are skipped.
        var skipThrough: String?
    }

    /// Internal (not private) so a test can hold it while a status reader is cancelled.
    let state: Mutex<State>
    private let messageBroadcaster = CastBroadcaster<CastChannelMessage>()
    /// The latest texts decoded and their results, newest last: a reply reaches the channel (at once in
    /// ``channel(_:didReceiveNow:)``, or ``channelWillReceive(_:)`` and then the plugin callback when it is
    /// queued) and the request that awaited it, and whichever comes after the first usually
    /// finds it decoded (the lock is never held while decoding, so none waits for another). Several, so
    /// that messages that arrive together and are prepared together are not decoded again one by one.
    /// With them, the media objects of the latest statuses, which the next status most likely repeats.
    private let decodeCache = Mutex<DecodeCache>(DecodeCache())

    struct DecodeCache {
        var recent: [(text: String, message: MediaStatusMessage?)] = []
        var memory = MediaStatusMemory()
        static let capacity = 4

        func message(for text: String) -> MediaStatusMessage?? {
            for entry in recent.reversed() where entry.text == text { return .some(entry.message) }
            return nil
        }

        mutating func add(_ text: String, _ message: MediaStatusMessage?) {
            if recent.count == Self.capacity { recent.removeFirst() }
            recent.append((text, message))
        }
    }
    /// The deadline for each command; `nil` uses the connection's request timeout.
    public let timeout: Duration?
    /// Whether the channel asks for the media status (GET_STATUS) each time it connects to an app.
    public let requestsStatusOnConnect: Bool

    /// Creates the channel.
    /// - Parameters:
    ///   - clock: the clock used to extrapolate the playback position.
    ///   - timeout: the deadline of each command (`nil`: the connection's request timeout).
    ///   - requestsStatusOnConnect: ask for the media status each time the channel connects to an
    ///     app, as Google's senders do when they join a session. A receiver does not send its status
    ///     to a sender that only connects, so without this ``status`` stays `nil` (and ``statuses``
    ///     silent) until something changes or a command is sent. The reply is published like any
    ///     status; a failure (the app left, the deadline passed) is ignored. Off by default, for
    ///     senders that send their own first command.
    public init(clock: some Clock<Duration> = ContinuousClock(), timeout: Duration? = nil, requestsStatusOnConnect: Bool = false) {
        self.timeout = timeout
        self.requestsStatusOnConnect = requestsStatusOnConnect
        state = Mutex(State(position: MediaPositionTracker(clock: ElapsedClock(clock))))
    }

    // MARK: - Observing

    /// The latest status, or `nil` when there is no media session.
    public var status: MediaStatus? { state.withLock { $0.status } }

    /// How many LOADs and QUEUE_LOADs this channel has started: read it when a status is applied, and
    /// a background request made for that status can yield to the ones started later
    /// (``exchange(_:needsSession:yieldingToReplacementsAfter:)``).
    package var replacementsStarted: Int { state.withLock { $0.replacementsStarted } }

    /// The media session id of the latest status.
    public var mediaSessionId: Int? { state.withLock { $0.status?.mediaSessionId } }

    /// The channel's context while connected to a receiver app (for extensions such as queue commands).
    public var connectedContext: CastChannelContext? { state.withLock { $0.context } }

    /// Whether the channel is connected to a receiver app.
    public var isConnected: Bool { state.withLock { $0.context != nil } }

    /// The playback position now, extrapolated from the latest status with the injected clock.
    public var estimatedPosition: Double? { state.withLock { $0.position.position() } }

    /// The media session the channel had when it last lost its receiver app (a dropped connection,
    /// the app closing), with the position extrapolated to that moment; `nil` when it had none.
    /// Kept until the next disconnect, so a sender can reload what was playing after the receiver
    /// restarted.
    public var lastSessionAtDisconnect: (status: MediaStatus, position: Double)? { state.withLock { $0.atDisconnect } }

    /// The media status, as it changes: first the current one (``status``), then every status
    /// received after it, each once and in the order the receiver sent them. Each element is a
    /// ``MediaStatus``, or `nil` when there is no media session (none yet, or it ended with
    /// `status: []`). Includes statuses caused by other senders. Each call gives an independent
    /// sequence, so a loop started after a command returned still sees that command's outcome first:
    ///
    /// ```swift
    /// try await media.load(info)
    /// for await status in media.statuses where status?.playerState == .playing { break }
    /// ```
    public var statuses: AsyncStream<MediaStatus?> {
        let (stream, continuation) = AsyncStream<MediaStatus?>.makeStream()
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = StatusSubscriber(continuation: continuation, skipThrough: state.recordedAhead.last)
            continuation.yield(state.status)
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            // Never wait for the lock here: a consumer's task is cancelled while the runtime holds that
            // task's status lock, and a publisher yielding under our lock needs the same task lock to
            // resume it (a deadlock seen in CI). If the lock is busy, the next publish finds the stream
            // terminated and removes it.
            _ = self?.state.withLockIfAvailable { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Every message received on the media namespace from now on (statuses, queue changes, errors).
    public var messages: AsyncStream<CastChannelMessage> { messageBroadcaster.subscribe() }

    // MARK: - Plugin

    /// Records the app's context, and asks for the status when ``requestsStatusOnConnect`` is set.
    public func channelDidConnect(_ context: CastChannelContext) async {
        state.withLock { state in
            state.context = context
            state.generation += 1
            state.recordedAhead = []
        }
        guard requestsStatusOnConnect else { return }
        // Not awaited here: the reply arrives through the connection, which is delivering this
        // callback. The request is bounded by the channel's (or the connection's) deadline.
        Task { [weak self] in _ = try? await self?.getStatus() }
    }

    /// Forgets the context and the session.
    public func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {
        state.withLock { state in
            let hadSession = state.hasSession
            if let status = state.status, let position = state.position.position() {
                state.atDisconnect = (status, position)
            } else {
                state.atDisconnect = nil
            }
            state.context = nil
            state.generation += 1
            state.status = nil
            state.hasSession = false
            state.position.reset()
            // Replies recorded ahead will not be delivered any more.
            state.recordedAhead = []
            state.deliveredReplies = []
            for id in state.subscribers.keys { state.subscribers[id]?.skipThrough = nil }
            if hadSession { Self.publish(nil, in: &state) }
        }
    }

    /// Applies statuses and publishes every message.
    public func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
        take(message)
    }

    /// Applies a status and publishes the message at once, on a TLS connection's event loop, when
    /// no callback of the channel is pending: what ``channel(_:didReceive:)`` does, without a task.
    public func channel(_ context: CastChannelContext, didReceiveNow message: CastChannelMessage) -> Bool {
        take(message)
        return true
    }

    private func take(_ message: CastChannelMessage) {
        if let decoded = decodeStatus(message) {
            receive(decoded.first, text: message.text, isReply: (decoded.requestId ?? 0) != 0)
        }
        messageBroadcaster.yield(message)
    }

    /// Decodes a queued MEDIA_STATUS as it arrives, on the connection's I/O thread, before the request it
    /// answers is resumed: the request (and then the plugin callback) find it decoded.
    public func channelWillReceive(_ message: CastChannelMessage) {
        guard message.namespace == namespace.rawValue else { return }
        _ = decodeStatus(message)
    }

    /// A status delivered by the plugin callback, in the order the receiver sent it: recorded (unless
    /// a newer reply was recorded ahead of it) and published to ``statuses``.
    private func receive(_ status: MediaStatus?, text: String?, isReply: Bool) {
        state.withLock { state in
            if let text, let index = state.recordedAhead.firstIndex(of: text) {
                // A reply its request recorded already; ``status`` holds it or something newer.
                state.recordedAhead.removeSubrange(...index)
            } else {
                // While a reply is recorded ahead, this status is older than it: published, not recorded.
                if state.recordedAhead.isEmpty { Self.record(status, in: &state) }
                if let text, isReply {
                    state.deliveredReplies.append(text)
                    if state.deliveredReplies.count > Self.deliveredRepliesKept { state.deliveredReplies.removeFirst() }
                }
            }
            Self.publish(status, text: text, in: &state)
        }
    }

    /// A reply, recorded by the request that awaited it before it returns, so the next command (and
    /// ``status``) already see it; the plugin callback publishes it in its turn. `generation` is the
    /// channel's when the request was sent.
    @discardableResult
    func record(reply message: CastChannelMessage, generation: Int) -> MediaStatusMessage? {
        guard let decoded = decodeStatus(message) else { return nil }
        state.withLock { state in
            if let text = message.text, let index = state.deliveredReplies.firstIndex(of: text) {
                // The callback was first: it recorded this reply (or something newer) already.
                state.deliveredReplies.remove(at: index)
                return
            }
            // Only on the connection the request was sent on: the callback then delivers this reply in its
            // turn, or a disconnect (which forgets what was recorded ahead) comes first. A reply from an app
            // that is gone is not recorded at all, nor one whose delivery a disconnect and a new connect to
            // the same app forgot meanwhile (recorded ahead, it would never be delivered again, and every
            // later status would be published without being recorded).
            guard state.generation == generation, state.context?.transportId == message.sourceId else { return }
            Self.record(decoded.first, in: &state)
            if let text = message.text { state.recordedAhead.append(text) }
        }
        return decoded
    }

    /// How many delivered replies are remembered; a request resumes long before this many more
    /// replies arrive.
    private static let deliveredRepliesKept = 32

    private static func record(_ status: MediaStatus?, in state: inout State) {
        state.status = status
        state.hasSession = status != nil
        if let status { state.position.update(status) } else { state.position.reset() }
    }

    /// Yields to every subscriber, under the lock so that each stream's first element and the rest
    /// keep the receiver's order. Safe only because no termination handler waits for this lock
    /// (see ``statuses``); streams found terminated are removed here.
    private static func publish(_ status: MediaStatus?, text: String? = nil, in state: inout State) {
        var terminated: [Int] = []
        for (id, subscriber) in state.subscribers {
            if let skip = subscriber.skipThrough {
                if skip == text { state.subscribers[id]?.skipThrough = nil }
                continue
            }
            if case .terminated = subscriber.continuation.yield(status) { terminated.append(id) }
        }
        for id in terminated { state.subscribers.removeValue(forKey: id) }
    }

    /// The MEDIA_STATUS in `message` (`nil` when its type is another, or it does not decode), decoded
    /// once per message text unless two threads ask for it at the same moment.
    private func decodeStatus(_ message: CastChannelMessage) -> MediaStatusMessage? {
        guard let text = message.text else {
            guard message.type == "MEDIA_STATUS" else { return nil }
            return message.json.flatMap { try? MediaStatusMessage(json: $0) }
        }
        // The connection hands a reply to this channel (at once, or to `channelWillReceive`) before it
        // resumes the request that awaited it, so the request usually finds it decoded here. When two
        // threads still ask for the same text at once (a status taken from the mailbox while another
        // command's request reads its own reply), the second takes the first's result when it is there,
        // and otherwise decodes beside it instead of sleeping on a lock until the other is done: a sleep
        // and wake-up cost a round trip more than a decode (tens of microseconds on a virtual machine's
        // idle core).
        let (known, earlier) = decodeCache.withLock { ($0.message(for: text), $0.memory) }
        if let known { return known }
        // Straight from the payload's bytes, the routing type in the same pass: no JSON tree is
        // built for a status, and it is walked once; a `media` the latest statuses carried is not
        // read again.
        var bytes = text
        var memory = earlier
        let routed = bytes.withUTF8 { try? MediaStatusMessage.routed(buffer: $0, remembering: &memory) }
        let decoded = routed?.type == "MEDIA_STATUS" ? routed?.message : nil
        decodeCache.withLock { cache in
            cache.add(text, decoded)
            if routed?.type == "MEDIA_STATUS" { cache.memory = memory }
        }
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
        var payload = json
        return try await exchange(&payload, needsSession: needsSession).reply
    }

    /// ``request(_:needsSession:)``, also returning the decoded MEDIA_STATUS when that is the reply.
    ///
    /// `payload` gets its `mediaSessionId` in place (when `needsSession`): the caller's command is
    /// usually its only owner, so adding the member copies nothing, and the caller still has it for
    /// its error messages.
    ///
    /// With `yieldingToReplacementsAfter` (a value of ``replacementsStarted`` read earlier), a request
    /// that needs the session is not sent while a LOAD or QUEUE_LOAD started since then is in flight (it
    /// would name the session that LOAD is replacing, and the receiver would refuse it): it fails with
    /// ``CastMediaError/Code/noMediaSession`` instead. For background requests that the new session's
    /// first status asks for again (the queue model's fetches).
    package func exchange(
        _ payload: inout JSONValue, needsSession: Bool, yieldingToReplacementsAfter serial: Int? = nil
    ) async throws(CastMediaError) -> (reply: CastChannelMessage, status: MediaStatusMessage?) {
        let type = Self.commandType(payload)
        let replacesSession = !needsSession && (type == "LOAD" || type == "QUEUE_LOAD")
        let (context, sessionId, generation, replacement, yielding) = state.withLock { state in
            let yielding = serial.map { serial in state.replacementsInFlight.contains { $0 > serial } } ?? false
            var replacement: Int?
            if replacesSession, state.context != nil {
                state.replacementsStarted += 1
                replacement = state.replacementsStarted
                state.replacementsInFlight.insert(state.replacementsStarted)
            }
            return (state.context, state.status?.mediaSessionId, state.generation, replacement, yielding)
        }
        guard let context else {
            throw CastMediaError(code: .notConnected, message: "The media channel is not connected to a receiver app")
        }
        defer { if let replacement { _ = state.withLock { $0.replacementsInFlight.remove(replacement) } } }
        if needsSession {
            guard let sessionId else {
                throw CastMediaError(code: .noMediaSession, message: "\(type) needs a media session, and there is none")
            }
            if yielding {
                throw CastMediaError(code: .noMediaSession, message: "\(type) not sent: a LOAD in flight is replacing media session \(sessionId)")
            }
            payload["mediaSessionId"] = .number(Double(sessionId))
        }
        try Self.checkSize(payload, context: context)
        try Self.checkStatusRoom(payload, transportId: context.transportId)
        let reply: CastChannelMessage
        do {
            reply = try await context.request(payload, timeout: timeout)
        } catch {
            throw CastMediaError(channelError: error, request: Self.commandType(payload))
        }
        // A MEDIA_STATUS is decoded from its bytes, without a JSON tree; anything else (or a status
        // that does not decode) may be an error reply, read from the tree.
        if let status = record(reply: reply, generation: generation) { return (reply, status) }
        guard let replyJSON = reply.json else {
            throw CastMediaError(code: .unexpectedReply, message: "The reply to \(Self.commandType(payload)) is not JSON")
        }
        if let error = CastMediaError(reply: replyJSON) { throw error }
        return (reply, nil)
    }

    /// A command's `type`, for error messages.
    static func commandType(_ payload: JSONValue) -> String { payload["type"]?.stringValue ?? "request" }

    /// The 64 KiB rule, checked before anything is sent; the `requestId` the connection adds is counted at its widest.
    static func checkSize(_ payload: JSONValue, context: CastChannelContext) throws(CastMediaError) {
        // Most commands (SEEK, PAUSE, SET_VOLUME…) are a few dozen bytes: a bound found without writing
        // the text settles them, and only a payload that might be near the limit is written to measure it.
        let envelope = CastMessageSize.encodedSize(
            sourceId: context.senderId, destinationId: context.transportId, namespace: context.namespace.rawValue,
            payloadUTF8Count: 0)
        let room = CastMessageSize.limit - envelope - 64  // the requestId at its widest, and the payload's length varint
        if payload.serializedSizeBound(upTo: room) != nil { return }
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
    func statusRequest(_ json: consuming JSONValue, needsSession: Bool) async throws(CastMediaError) -> MediaStatus? {
        try await statusRequest(&json, needsSession: needsSession)
    }

    /// ``statusRequest(_:needsSession:)`` adding `mediaSessionId` to the caller's own command.
    func statusRequest(_ json: inout JSONValue, needsSession: Bool) async throws(CastMediaError) -> MediaStatus? {
        let (reply, message) = try await exchange(&json, needsSession: needsSession)
        guard let message else {
            if reply.type == "MEDIA_STATUS", let text = reply.text {
                let problem = JSONValue.parseFailure(of: text).map { "is not valid JSON: \($0)" }
                    ?? "does not have a MEDIA_STATUS's shape (a status array of objects)"
                throw CastMediaError(code: .unexpectedReply, message: "The MEDIA_STATUS reply \(problem)")
            }
            throw CastMediaError(code: .unexpectedReply, message: "Expected MEDIA_STATUS, got \(reply.type ?? "no type")")
        }
        return message.first
    }

    /// Like ``statusRequest(_:needsSession:)`` but a missing status is an error.
    func requiredStatusRequest(_ json: consuming JSONValue, needsSession: Bool = true) async throws(CastMediaError) -> MediaStatus {
        guard let status = try await statusRequest(&json, needsSession: needsSession) else {
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
