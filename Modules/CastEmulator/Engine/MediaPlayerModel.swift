import CastJSON

/// The media namespace of the Default Media Receiver, as a pure state machine.
///
/// It keeps what senders loaded as raw JSON and echoes it, assigns `mediaSessionId`s and `itemId`s,
/// runs a simulated playback clock (engine time passed in as `now`), and produces the messages a real
/// device sends: MEDIA_STATUS (with only the previous, current and next queue items), QUEUE_CHANGE,
/// QUEUE_ITEM_IDS, QUEUE_ITEMS and the error types of the reference.
///
/// A MEDIA_STATUS always fits one Cast message: one that would not is written again with less in it
/// (``MediaStatusFit``: the current item alone, then no items, then no metadata or custom data), never
/// sent too large (which would end the sender's connection, and every other sender's with it).
struct MediaPlayerModel: Sendable {
    /// `supportedMediaCommands` of the current DMR without queue navigation (ALL_BASIC_MEDIA | STREAM_TRANSFER).
    static let baseCommands = 274_447
    static let queueNextCommand = 64
    static let queuePrevCommand = 128
    /// GET_STATUS `options` bits.
    static let noMetadata = 1
    static let noQueueItems = 2

    var isBroken: @Sendable (String) -> Bool
    var random: SplitMix64
    var session: MediaSessionState? {
        didSet { nextDeadline = session?.nextDeadline }
    }
    /// The next instant at which playback changes on its own (an item ends, the next one preloads):
    /// the session's ``MediaSessionState/nextDeadline``, kept with it. The engine reads it before and
    /// after every request, and computing it through the player copied the whole player each time.
    private(set) var nextDeadline: Duration?
    var nextMediaSessionId = 1
    var nextItemId = 1
    var volumeLevel = 1.0
    var isMuted = false
    /// Whether LOAD, QUEUE_LOAD and QUEUE_INSERT wait for the receiver to fetch their `http://` content.
    var fetchesMedia = false
    var nextFetchToken = 1
    /// The LOAD or QUEUE_LOAD waiting for its fetches (a newer one cancels it).
    var pendingLoad: PendingMediaRequest?
    /// QUEUE_INSERTs waiting for their fetches, by token.
    var pendingInserts: [Int: PendingMediaRequest] = [:]
    /// Set while a held load whose fetch failed is run: the session it starts fails at once.
    var injectedLoadFailure: MediaFetchFailure?
    /// Set while a held request whose fetches succeeded is run: the durations read from its media, by URL.
    var probedDurations: [String: ProbedDuration] = [:]
    /// Set while a held request whose fetches succeeded is run: how its media can be sought, by URL.
    var probedSeekability: [String: MediaSeekability] = [:]
    /// The duration (seconds) given to BUFFERED media whose duration neither the sender nor a probe
    /// knows; `nil` leaves such media open-ended.
    var defaultDuration: Double?
    /// The end of the last MEDIA_STATUS written for a broadcast (the entry's members after `currentTime`
    /// and the end of the message), with what it was written from. A SEEK, PAUSE or PLAY changes the
    /// time and perhaps the player state but not the items and the media, which are most of the text.
    private(set) var statusTail: StatusTail?
    /// The UTF-8 length of the sender id the next reply goes to (set by the engine before each request):
    /// a status sent to one sender must fit a message with that destination id.
    var replyDestinationLength = 8

    init(isBroken: @escaping @Sendable (String) -> Bool, seed: UInt64) {
        self.isBroken = isBroken
        self.random = SplitMix64(seed: seed)
    }

    // MARK: Status

    /// A MEDIA_STATUS message.
    func mediaStatus(requestId: Int, entries: [JSONValue]) -> JSONValue {
        ["type": "MEDIA_STATUS", "requestId": JSONValue(requestId), "status": .array(entries)]
    }

    /// A MEDIA_STATUS for the current state (`status: []` without a media session), as the reply to
    /// one sender: it fits one message addressed to a sender id of ``replyDestinationLength`` bytes.
    func status(requestId: Int, at now: Duration, options: Int = 0) -> JSONValue {
        guard let session else { return mediaStatus(requestId: requestId, entries: []) }
        let limit = MediaStatusFit.textLimit(destinationLength: replyDestinationLength)
        var reply = JSONValue.null
        for fit in MediaStatusFit.allCases {
            reply = mediaStatus(requestId: requestId, entries: [entry(session, at: now, options: options, fit: fit)])
            if MediaStatusFit.fits(reply, limit: limit) { break }
        }
        return reply
    }

    /// The MEDIA_STATUS of ``status(requestId:at:options:)`` as a broadcast, written as text straight
    /// from the state: the same bytes as the tree's `serialized()`, with each queue item's text kept
    /// from when it last changed, and the members after `currentTime` reused from the previous status
    /// when nothing they are written from changed (``statusTail``).
    mutating func statusBroadcast(requestId: Int, at now: Duration) -> AppOutput {
        .broadcastText(cachedStatusText(requestId: requestId, at: now))
    }

    /// ``statusText(requestId:at:)``, reusing ``statusTail`` when it still matches and keeping the
    /// tail it wrote for the next status.
    ///
    /// A status that would not fit a broadcast (``MediaStatusFit``) is written again with less in it,
    /// and no tail is kept for it.
    mutating func cachedStatusText(requestId: Int, at now: Duration) -> String {
        let written = writeStatus(requestId: requestId, at: now, reusing: statusTail, keepsTail: true)
        let limit = MediaStatusFit.broadcastTextLimit
        if written.text.utf8.count <= limit {
            statusTail = written.tail
            return written.text
        }
        statusTail = nil
        return fittedStatusText(requestId: requestId, at: now, limit: limit)
    }

    /// The text of ``status(requestId:at:options:)`` with `options` 0 (see ``statusBroadcast(requestId:at:)``),
    /// written whole (no tail reused), made to fit a broadcast.
    func statusText(requestId: Int, at now: Duration) -> String {
        let text = writeStatus(requestId: requestId, at: now, reusing: nil, keepsTail: false).text
        let limit = MediaStatusFit.broadcastTextLimit
        return text.utf8.count <= limit ? text : fittedStatusText(requestId: requestId, at: now, limit: limit)
    }

    /// The status written with the least left out that fits `limit` bytes (``MediaStatusFit``).
    private func fittedStatusText(requestId: Int, at now: Duration, limit: Int) -> String {
        var text = ""
        for fit in MediaStatusFit.allCases.dropFirst() {
            text = writeStatus(requestId: requestId, at: now, reusing: nil, keepsTail: false, fit: fit).text
            if text.utf8.count <= limit { break }
        }
        return text
    }

    /// Writes the MEDIA_STATUS in sorted key order. The entry's members after `currentTime`, and the
    /// end of the message, are `reusing`'s text when it matches the state; otherwise they are written,
    /// and returned as the new tail when `keepsTail`. `fit` says what is left out (a reused tail is
    /// always a whole one).
    private func writeStatus(
        requestId: Int, at now: Duration, reusing cached: StatusTail?, keepsTail: Bool, fit: MediaStatusFit = .full
    ) -> (text: String, tail: StatusTail?) {
        var writer = JSONTextWriter(capacity: 512 + (session?.items.first?.text.count ?? 0) * 4)
        writer.beginObject()
        writer.key("requestId")
        writer.integer(requestId)
        writer.key("status")
        writer.beginArray()
        guard let session else {
            writer.endArray()
            writer.key("type")
            writer.string("MEDIA_STATUS")
            writer.endObject()
            return (writer.text, cached)
        }
        writer.element()
        writer.beginObject()
        if let active = session.activeTrackIds {
            writer.key("activeTrackIds")
            writer.beginArray()
            for id in active {
                writer.element()
                writer.number(Double(id))
            }
            writer.endArray()
        }
        writer.key("currentItemId")
        writer.number(Double(session.currentItemId))
        writer.key("currentTime")
        writer.number(session.currentTime(at: now))
        let commands = supportedCommands(session)
        if fit == .full, let cached,
            cached.matches(session, supportedCommands: commands, volumeLevel: volumeLevel, isMuted: isMuted)
        {
            // The rest of the entry, and the end of the message, as the previous status had them.
            writer.raw(cached.text)
            return (writer.text, cached)
        }
        let tailStart = writer.count
        writeTail(session, supportedCommands: commands, fit: fit, into: &writer)
        let tail = keepsTail && fit == .full
            ? StatusTail(text: writer.bytes(from: tailStart), session: session, supportedCommands: commands,
                         volumeLevel: volumeLevel, isMuted: isMuted)
            : nil
        return (writer.text, tail)
    }

    /// The entry's members after `currentTime` in sorted key order, the end of the entry and the end
    /// of the message (the tail ``StatusTail`` keeps), with what `fit` leaves out left out.
    private func writeTail(
        _ session: MediaSessionState, supportedCommands: Int, fit: MediaStatusFit = .full, into writer: inout JSONTextWriter
    ) {
        if let customData = session.customData, fit.keepsCustomData {
            writer.key("customData")
            writer.value(customData)
        }
        let index = session.currentIndex
        if let window = fit.items(around: index, in: session) {
            writer.key("items")
            writer.beginArray()
            for item in session.items[window] {
                writer.element()
                writer.raw(item.text)
            }
            writer.endArray()
        }
        switch fit {
        case .full, .currentItem, .noItems:
            writer.key("media")
            writer.raw(session.items[index].mediaText)
        case .noMetadata:
            var media = session.items[index].media
            media["metadata"] = nil
            writer.key("media")
            writer.value(.object(media))
        case .bare:
            break
        }
        writer.key("mediaSessionId")
        writer.number(Double(session.mediaSessionId))
        writer.key("playbackRate")
        writer.number(session.playbackRate)
        writer.key("playerState")
        writer.string(session.playerState)
        if let preloaded = session.preloadedItemId {
            writer.key("preloadedItemId")
            writer.number(Double(preloaded))
        }
        if var queueData = session.queueData, fit.keepsCustomData {
            queueData["repeatMode"] = .string(session.repeatMode.rawValue)
            writer.key("queueData")
            writer.value(.object(queueData))
        }
        writer.key("repeatMode")
        writer.string(session.repeatMode.rawValue)
        writer.key("supportedMediaCommands")
        writer.number(Double(supportedCommands))
        writer.key("volume")
        writer.beginObject()
        writer.key("level")
        writer.number(volumeLevel)
        writer.key("muted")
        writer.bool(isMuted)
        writer.endObject()
        writer.endObject()  // the entry
        writer.endArray()  // status
        writer.key("type")
        writer.string("MEDIA_STATUS")
        writer.endObject()
    }

    var streamVolume: JSONValue { ["level": JSONValue(volumeLevel), "muted": JSONValue(isMuted)] }

    func supportedCommands(_ session: MediaSessionState) -> Int {
        var commands = Self.baseCommands
        if session.index(jumping: 1) != nil { commands |= Self.queueNextCommand }
        if session.index(jumping: -1) != nil { commands |= Self.queuePrevCommand }
        return commands
    }

    /// The status entry of a live session, with what `fit` leaves out left out.
    func entry(_ session: MediaSessionState, at now: Duration, options: Int = 0, fit: MediaStatusFit = .full) -> JSONValue {
        var members: [String: JSONValue] = [
            "mediaSessionId": JSONValue(session.mediaSessionId),
            "playbackRate": JSONValue(session.playbackRate),
            "playerState": .string(session.playerState),
            "currentTime": JSONValue(session.currentTime(at: now)),
            "supportedMediaCommands": JSONValue(supportedCommands(session)),
            "volume": streamVolume,
            "repeatMode": .string(session.repeatMode.rawValue),
            "currentItemId": JSONValue(session.currentItemId),
        ]
        var media = session.currentItem.media
        if options & Self.noMetadata != 0 || fit >= .noMetadata { media["metadata"] = nil }
        if fit != .bare { members["media"] = .object(media) }
        if options & Self.noQueueItems == 0, let window = fit.items(around: session.currentIndex, in: session) {
            members["items"] = .array(session.items[window].map(\.json))
        }
        if let active = session.activeTrackIds { members["activeTrackIds"] = .array(active.map { JSONValue($0) }) }
        if let preloaded = session.preloadedItemId { members["preloadedItemId"] = JSONValue(preloaded) }
        if var queueData = session.queueData, fit.keepsCustomData {
            queueData["repeatMode"] = .string(session.repeatMode.rawValue)
            members["queueData"] = .object(queueData)
        }
        if let customData = session.customData, fit.keepsCustomData { members["customData"] = customData }
        return .object(members)
    }

    /// The entry of a session that just ended: IDLE with a reason, no media and no items.
    func idleEntry(_ session: MediaSessionState, reason: String, at now: Duration) -> JSONValue {
        [
            "mediaSessionId": JSONValue(session.mediaSessionId),
            "playbackRate": JSONValue(session.playbackRate),
            "playerState": "IDLE",
            "idleReason": .string(reason),
            "currentTime": JSONValue(reason == "FINISHED" ? 0 : session.currentTime(at: now)),
            "supportedMediaCommands": JSONValue(Self.baseCommands),
            "volume": streamVolume,
            "currentItemId": JSONValue(session.currentItemId),
        ]
    }

    // MARK: Time

    /// Plays the simulated clock forward to `now`: items end, the next ones autoplay or preload,
    /// the end of the queue finishes the session. Each change is broadcast with `requestId` 0.
    mutating func advance(to now: Duration) -> [AppOutput] {
        var outputs: [AppOutput] = []
        var steps = 0
        while let session, steps < 10_000 {
            steps += 1
            let end = session.endInstant.flatMap { $0 <= now ? $0 : nil }
            let preload = session.preloadInstant.flatMap { $0 <= now ? $0 : nil }
            if let preload, end.map({ preload <= $0 }) ?? true {
                var updated = session
                updated.preloadedItemId = updated.items[updated.autoAdvanceIndex!].itemId
                self.session = updated
                outputs.append(statusBroadcast(requestId: 0, at: preload))
            } else if let end {
                outputs += finishItem(at: end)
            } else {
                break
            }
        }
        return outputs
    }

    /// The current item played to its end at `instant`.
    private mutating func finishItem(at instant: Duration) -> [AppOutput] {
        guard var session else { return [] }
        session.position = session.currentItem.duration ?? session.position
        session.anchor = instant
        guard var next = session.autoAdvanceIndex else {
            self.session = nil
            return [.broadcast(mediaStatus(requestId: 0, entries: [idleEntry(session, reason: "FINISHED", at: instant)]))]
        }
        var outputs: [AppOutput] = []
        if next == 0, session.currentIndex == session.items.count - 1, session.repeatMode == .allAndShuffle {
            let current = session.currentItemId
            session.items.shuffle(using: &random)
            if session.items.count > 1, session.items[0].itemId == current { session.items.swapAt(0, 1) }
            next = 0
            outputs.append(.broadcast(queueChange(requestId: 0, type: "UPDATE", itemIds: session.items.map(\.itemId))))
        }
        self.session = session
        return outputs + move(to: next, at: instant, requestId: 0, position: nil)
    }

    /// Makes the item at `index` current, starting at `position` (else its `startTime`), and broadcasts it.
    mutating func move(to index: Int, at now: Duration, requestId: Int, position: Double?) -> [AppOutput] {
        guard var session else { return [] }
        let item = session.items[index]
        if isBroken(item.url) {
            self.session = nil
            let failure = loadFailed(requestId: requestId, itemId: item.itemId)
            return [
                requestId == 0 ? .broadcast(failure) : .reply(failure),
                .broadcast(mediaStatus(requestId: 0, entries: [])),
            ]
        }
        session.currentItemId = item.itemId
        session.position = position ?? item.startTime
        if let duration = item.duration { session.position = min(session.position, duration) }
        session.anchor = now
        session.itemStartedAt = now
        session.itemStartPosition = session.position
        session.playerState = item.autoplay ? "PLAYING" : "PAUSED"
        session.activeTrackIds = item.activeTrackIds
        session.preloadedItemId = nil
        self.session = session
        return [statusBroadcast(requestId: requestId, at: now)]
    }

    func loadFailed(requestId: Int, itemId: Int, detailedErrorCode: Int = 104) -> JSONValue {
        ["type": "LOAD_FAILED", "requestId": JSONValue(requestId), "detailedErrorCode": JSONValue(detailedErrorCode),
         "itemId": JSONValue(itemId)]
    }

    func queueChange(requestId: Int, type: String, itemIds: [Int], extra: [String: JSONValue] = [:]) -> JSONValue {
        var members = extra
        members["type"] = "QUEUE_CHANGE"
        members["requestId"] = JSONValue(requestId)
        members["changeType"] = .string(type)
        members["itemIds"] = .array(itemIds.map { JSONValue($0) })
        return .object(members)
    }
}
