import CastJSON

extension MediaPlayerModel {
    /// Handles one request of the media namespace. Invalid requests change nothing and get the error
    /// a real device sends.
    /// With media fetching on, LOAD, QUEUE_LOAD and QUEUE_INSERT naming `http://` content are held
    /// (see ``handleFetching(type:request:requestId:now:)``).
    mutating func handle(type: String, request: RequestFields, requestId: Int, now: Duration) -> [AppOutput] {
        if fetchesMedia, Self.fetchingRequests.contains(type) {
            return handleFetching(type: type, request: request, requestId: requestId, now: now)
        }
        return perform(type: type, request: request, requestId: requestId, now: now)
    }

    /// Runs one request now.
    mutating func perform(type: String, request: RequestFields, requestId: Int, now: Duration) -> [AppOutput] {
        do {
            return try dispatch(type: type, request: request, requestId: requestId, now: now)
        } catch {
            return [.reply(error.message(requestId: requestId))]
        }
    }

    private mutating func dispatch(
        type: String, request: RequestFields, requestId: Int, now: Duration
    ) throws(RequestFailure) -> [AppOutput] {
        switch type {
        case "GET_STATUS":
            let options = try request.int("options") ?? 0
            _ = try request.int("mediaSessionId")
            return [.reply(status(requestId: requestId, at: now, options: options))]
        case "LOAD": return try load(request, requestId: requestId, now: now)
        case "QUEUE_LOAD": return try queueLoad(request, requestId: requestId, now: now)
        case "PLAY", "PAUSE":
            var session = try requireSession(request)
            session.rebase(at: now)
            session.playerState = type == "PLAY" ? "PLAYING" : "PAUSED"
            self.session = session
            return [statusBroadcast(requestId: requestId, at: now)]
        case "STOP":
            let session = try requireSession(request)
            self.session = nil
            return [.broadcast(mediaStatus(requestId: requestId, entries: [idleEntry(session, reason: "CANCELLED", at: now)]))]
        case "SEEK": return try seek(request, requestId: requestId, now: now)
        case "SET_PLAYBACK_RATE": return try setPlaybackRate(request, requestId: requestId, now: now)
        case "SET_VOLUME": return try setStreamVolume(request, requestId: requestId, now: now)
        case "EDIT_TRACKS_INFO": return try editTracks(request, requestId: requestId, now: now)
        case "QUEUE_INSERT": return try queueInsert(request, requestId: requestId, now: now)
        case "QUEUE_UPDATE": return try queueUpdate(request, requestId: requestId, now: now)
        case "QUEUE_NEXT", "QUEUE_PREV":
            var session = try requireSession(request)
            guard let index = session.index(jumping: type == "QUEUE_NEXT" ? 1 : -1) else {
                throw .invalidRequest("END_OF_QUEUE")
            }
            session.rebase(at: now)
            self.session = session
            return move(to: index, at: now, requestId: requestId, position: nil)
        case "QUEUE_SHUFFLE":
            var session = try requireSession(request)
            shuffle(&session)
            self.session = session
            return [
                statusBroadcast(requestId: requestId, at: now),
                .broadcast(queueChange(requestId: requestId, type: "UPDATE", itemIds: session.items.map(\.itemId))),
            ]
        case "QUEUE_REMOVE": return try queueRemove(request, requestId: requestId, now: now)
        case "QUEUE_REORDER": return try queueReorder(request, requestId: requestId, now: now)
        case "QUEUE_GET_ITEM_IDS":
            let session = try requireSession(request)
            return [.reply(["type": "QUEUE_ITEM_IDS", "requestId": JSONValue(requestId),
                            "itemIds": .array(session.items.map { JSONValue($0.itemId) })])]
        case "QUEUE_GET_ITEMS":
            let session = try requireSession(request)
            guard let ids = try request.intArray("itemIds") else { throw .invalidParams }
            let items = ids.compactMap { id in session.index(of: id).map { session.items[$0].json } }
            return [.reply(["type": "QUEUE_ITEMS", "requestId": JSONValue(requestId), "items": .array(items)])]
        case "QUEUE_GET_ITEM_RANGE":
            let session = try requireSession(request)
            guard let itemId = try request.int("itemId"), let index = session.index(of: itemId) else {
                throw .invalidParams
            }
            let next = try request.int("nextCount") ?? 0
            let previous = try request.int("prevCount") ?? 0
            guard (next > 0) != (previous > 0), next >= 0, previous >= 0 else { throw .invalidParams }
            let range = next > 0
                ? (index + 1)..<min(session.items.count, index + 1 + next)
                : max(0, index - previous)..<index
            return [.reply(["type": "QUEUE_ITEM_IDS", "requestId": JSONValue(requestId),
                            "itemIds": .array(session.items[range].map { JSONValue($0.itemId) })])]
        default:
            throw .invalidCommand
        }
    }

    /// The session a command addresses: one must exist (else INVALID_PLAYER_STATE), and the request's
    /// `mediaSessionId` must be present and match it (else INVALID_PARAMS / INVALID_MEDIA_SESSION_ID).
    func requireSession(_ request: RequestFields) throws(RequestFailure) -> MediaSessionState {
        let id = try request.int("mediaSessionId")
        guard let session else { throw .invalidPlayerState }
        guard let id else { throw .invalidParams }
        guard id == session.mediaSessionId else { throw .invalidRequest("INVALID_MEDIA_SESSION_ID") }
        return session
    }

    // MARK: Loading

    private mutating func load(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        let autoplay = request["autoplay"].flatMap(Lenient.autoplay) ?? true
        let currentTime = try request.number("currentTime")
        let rate = try playbackRate(request) ?? 1
        let activeTrackIds = try request.intArray("activeTrackIds")
        let customData = request["customData"]
        var items: [[String: JSONValue]] = []
        var startIndex = 0
        var repeatMode = RepeatMode.off
        var queueData: [String: JSONValue]?
        if let data = try request.object("queueData") {
            let queue = RequestFields(data)
            for item in try queue.array("items") ?? [] { items.append(try MediaQueueItem.parseNew(item)) }
            startIndex = try queue.int("startIndex") ?? 0
            repeatMode = try RepeatMode(parsing: queue.string("repeatMode"))
            _ = try queue.number("startTime")
            guard items.isEmpty || items.indices.contains(startIndex) else { throw .invalidParams }
            var kept = data
            kept["items"] = nil
            kept["startIndex"] = nil
            queueData = kept
        }
        if items.isEmpty {
            guard let media = try request.object("media") else { throw .invalidParams }
            var item: [String: JSONValue] = [
                "media": .object(try MediaQueueItem.normalizedMedia(media)), "autoplay": JSONValue(autoplay),
            ]
            if let activeTrackIds { item["activeTrackIds"] = .array(activeTrackIds.map { JSONValue($0) }) }
            items = [item]
            startIndex = 0
        } else if let media = try request.object("media") {
            try MediaQueueItem.validateMedia(media)
        }
        if let activeTrackIds, !Set(activeTrackIds).isSubset(of: Self.trackIds(items[startIndex])) {
            throw .invalidParams
        }
        let queueStart = try RequestFields(queueData ?? [:]).number("startTime")
        let position = currentTime ?? queueStart
        return start(
            items: items, startIndex: startIndex, position: position, autoplay: autoplay, rate: rate,
            activeTrackIds: activeTrackIds, repeatMode: repeatMode, queueData: queueData,
            customData: customData, requestId: requestId, now: now)
    }

    private mutating func queueLoad(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        guard let rawItems = try request.array("items"), !rawItems.isEmpty else { throw .invalidParams }
        var items: [[String: JSONValue]] = []
        for item in rawItems { items.append(try MediaQueueItem.parseNew(item)) }
        let startIndex = try request.int("startIndex") ?? 0
        guard items.indices.contains(startIndex) else { throw .invalidParams }
        let repeatMode = try RepeatMode(parsing: request.string("repeatMode"))
        let currentTime = try request.number("currentTime")
        let autoplay = items[startIndex]["autoplay"]?.boolValue ?? true
        return start(
            items: items, startIndex: startIndex, position: currentTime, autoplay: autoplay, rate: 1,
            activeTrackIds: nil, repeatMode: repeatMode, queueData: nil,
            customData: request["customData"], requestId: requestId, now: now)
    }

    private static func trackIds(_ item: [String: JSONValue]) -> Set<Int> {
        MediaQueueItem(itemId: 0, fields: item).trackIds
    }

    /// Starts a new media session, interrupting the previous one.
    private mutating func start(
        items: [[String: JSONValue]], startIndex: Int, position: Double?, autoplay: Bool, rate: Double,
        activeTrackIds: [Int]?, repeatMode: RepeatMode, queueData: [String: JSONValue]?,
        customData: JSONValue?, requestId: Int, now: Duration
    ) -> [AppOutput] {
        var outputs: [AppOutput] = []
        if let previous = session {
            outputs.append(.broadcast(mediaStatus(requestId: 0, entries: [idleEntry(previous, reason: "INTERRUPTED", at: now)])))
        }
        session = nil
        let mediaSessionId = nextMediaSessionId
        nextMediaSessionId += 1
        let queue = assignIds(items)
        let first = queue[startIndex]
        if isBroken(first.url) {
            return outputs + [
                .reply(loadFailed(requestId: requestId, itemId: first.itemId)),
                .broadcast(mediaStatus(requestId: 0, entries: [])),
            ]
        }
        var state = MediaSessionState(
            mediaSessionId: mediaSessionId, items: queue, currentItemId: first.itemId,
            playerState: autoplay ? "PLAYING" : "PAUSED", position: position ?? first.startTime, anchor: now,
            playbackRate: rate, repeatMode: repeatMode, activeTrackIds: activeTrackIds ?? first.activeTrackIds,
            preloadedItemId: nil, queueData: queueData, customData: customData)
        state.itemStartedAt = now
        if let duration = first.duration { state.position = min(max(0, state.position), duration) }
        state.position = max(0, state.position)
        state.itemStartPosition = state.position
        if let failure = injectedLoadFailure {
            // The receiver could not fetch the content: the player fails, the session ends in ERROR.
            let failed = queue.first { $0.url == failure.url || $0.textTrackURLs.contains(failure.url) } ?? first
            return outputs + [
                .reply(loadFailed(requestId: requestId, itemId: failed.itemId, detailedErrorCode: failure.detailedErrorCode)),
                .broadcast(mediaStatus(requestId: 0, entries: [idleEntry(state, reason: "ERROR", at: now)])),
            ]
        }
        session = state
        return outputs + [statusBroadcast(requestId: requestId, at: now)]
    }

    /// Gives each new item the next item id of the app session, and a duration when it has none.
    mutating func assignIds(_ items: [[String: JSONValue]]) -> [MediaQueueItem] {
        items.map { fields in
            var fields = fields
            let id = nextItemId
            nextItemId += 1
            fields["itemId"] = JSONValue(id)
            if fields["autoplay"] == nil { fields["autoplay"] = true }
            var item = MediaQueueItem(itemId: id, fields: fields)
            completeDuration(&item)
            item.seekability = probedSeekability[item.url] ?? .full
            return item
        }
    }

    /// Fills in `media.duration` like a player that opened the media: from the sender, else from the
    /// fetched bytes (media fetching on), else the default duration for BUFFERED media. Media a probe
    /// found live loses any duration and, when the sender named no stream type, becomes LIVE.
    func completeDuration(_ item: inout MediaQueueItem) {
        var media = item.media
        guard !media.isEmpty, media["duration"].flatMap(Lenient.number).map({ $0 < 0 }) ?? true else { return }
        let streamType = media["streamType"]?.stringValue?.uppercased() ?? "BUFFERED"
        switch probedDurations[item.url] {
        case .seconds(let seconds):
            media["duration"] = JSONValue(seconds)
        case .live:
            media["duration"] = nil
            if streamType == "BUFFERED" { media["streamType"] = "LIVE" }
        case nil:
            guard streamType == "BUFFERED", let defaultDuration else { return }
            media["duration"] = JSONValue(defaultDuration)
        }
        item.fields["media"] = .object(media)
    }

    // MARK: Playback controls

    private func playbackRate(_ request: RequestFields) throws(RequestFailure) -> Double? {
        guard let rate = try request.number("playbackRate") else { return nil }
        guard rate > 0, rate <= 16 else { throw .invalidParams }
        return rate
    }

    private mutating func seek(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        let relative = try request.number("relativeTime")
        let absolute = try request.number("currentTime")
        let resume = try request.string("resumeState")
        guard relative != nil || absolute != nil else { throw .invalidParams }
        let state: String?
        switch resume {
        case nil: state = nil
        case "PLAYBACK_START": state = "PLAYING"
        case "PLAYBACK_PAUSE": state = "PAUSED"
        default: throw .invalidParams
        }
        session.rebase(at: now)
        var target = relative.map { session.position + $0 } ?? absolute ?? session.position
        target = max(0, target)
        if let duration = session.currentItem.duration { target = min(target, duration) }
        session.position = session.seekablePosition(nearest: target, at: now)
        if let state { session.playerState = state }
        session.preloadedItemId = nil
        self.session = session
        return [statusBroadcast(requestId: requestId, at: now)]
    }

    private mutating func setPlaybackRate(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        let rate: Double
        if let absolute = try playbackRate(request) {
            rate = absolute
        } else if let relative = try request.number("relativePlaybackRate"), relative > 0 {
            rate = session.playbackRate * relative
            guard rate <= 16 else { throw .invalidParams }
        } else {
            throw .invalidParams
        }
        session.rebase(at: now)
        session.playbackRate = rate
        self.session = session
        return [statusBroadcast(requestId: requestId, at: now)]
    }

    private mutating func setStreamVolume(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        _ = try requireSession(request)
        guard let volume = try request.object("volume") else { throw .invalidParams }
        let fields = RequestFields(volume)
        let level = try fields.number("level")
        let muted = try fields.bool("muted")
        guard level != nil || muted != nil else { throw .invalidParams }
        if let level { volumeLevel = min(1, max(0, level)) }
        if let muted { isMuted = muted }
        return [statusBroadcast(requestId: requestId, at: now)]
    }

    private mutating func editTracks(_ request: RequestFields, requestId: Int, now: Duration) throws(RequestFailure) -> [AppOutput] {
        var session = try requireSession(request)
        let requested = try request.intArray("activeTrackIds")
        let style = try request.object("textTrackStyle")
        let language = try request.string("language")
        let enableText = try request.bool("enableTextTracks")
        _ = try request.bool("isSuggestedLanguage")
        let item = session.currentItem
        let tracks = item.tracks
        let textIds = Set(tracks.filter { $0["type"]?.stringValue == "TEXT" }.compactMap { $0["trackId"]?.intValue })
        var active = session.activeTrackIds ?? []
        if let requested {
            guard Set(requested).isSubset(of: item.trackIds), Set(requested).count == requested.count else {
                throw .invalidParams
            }
            active = requested
        }
        if let language {
            let wanted = language.lowercased()
            guard let track = tracks.first(where: { track in
                guard track["type"]?.stringValue == "TEXT", let lang = track["language"]?.stringValue?.lowercased() else { return false }
                return lang == wanted || lang.hasPrefix(wanted + "-") || wanted.hasPrefix(lang + "-")
            }), let id = track["trackId"]?.intValue else {
                throw .invalidRequest("LANGUAGE_NOT_SUPPORTED")
            }
            active = active.filter { !textIds.contains($0) } + [id]
        }
        if enableText == false { active = active.filter { !textIds.contains($0) } }
        if requested != nil || language != nil || enableText != nil { session.activeTrackIds = active }
        if let style {
            var fields = item.fields
            var media = item.media
            media["textTrackStyle"] = .object(style)
            fields["media"] = .object(media)
            session.items[session.currentIndex].fields = fields
        }
        self.session = session
        return [statusBroadcast(requestId: requestId, at: now)]
    }

    mutating func shuffle(_ session: inout MediaSessionState) {
        session.items.shuffle(using: &random)
        session.preloadedItemId = nil
    }
}
