import CastJSON

/// A message an app's state machine sends: to the sender of the request, or to every connected sender.
enum AppOutput: Sendable, Hashable {
    case reply(JSONValue)
    case broadcast(JSONValue)
    /// A broadcast already written as JSON text (a MEDIA_STATUS: ``MediaPlayerModel/statusBroadcast(requestId:at:)``).
    case broadcastText(String)
    /// Fetch this content, then report back with the plan's token (media fetching on).
    case fetch(MediaFetchPlan)
    /// A reply to the sender of the request held under `token` (not the current requester).
    case pendingReply(token: Int, JSONValue)
}

/// `repeatMode` of a media queue.
enum RepeatMode: String, Sendable, Hashable {
    case off = "REPEAT_OFF"
    case all = "REPEAT_ALL"
    case single = "REPEAT_SINGLE"
    case allAndShuffle = "REPEAT_ALL_AND_SHUFFLE"

    init(parsing value: String?) throws(RequestFailure) {
        guard let value else {
            self = .off
            return
        }
        guard let mode = RepeatMode(rawValue: value) else { throw .invalidParams }
        self = mode
    }

    var wraps: Bool { self == .all || self == .allAndShuffle }
}

/// One queue item as the sender sent it, plus the `itemId` the receiver assigned.
struct MediaQueueItem: Sendable, Hashable {
    var itemId: Int
    /// The item's members as sent, with `itemId` and `autoplay` filled in.
    var fields: [String: JSONValue] {
        didSet { derive() }
    }
    /// The compact JSON text of ``json`` and of `media`, and ``duration``: written or computed when
    /// ``fields`` change, not for every MEDIA_STATUS that carries the item (a status is sent for every
    /// command, and the item's media is most of its text).
    private(set) var text: [UInt8] = []
    private(set) var mediaText: [UInt8] = []
    private(set) var duration: Double?
    /// How the device lets the item be sought (media fetching finds out; otherwise anywhere). Not
    /// part of the item's JSON, nor of its equality.
    var seekability = MediaSeekability.full

    init(itemId: Int, fields: [String: JSONValue]) {
        self.itemId = itemId
        self.fields = fields
        derive()
    }

    private mutating func derive() {
        text = Array(json.serialized().utf8)
        mediaText = Array(JSONValue.object(media).serialized().utf8)
        duration = computedDuration
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.itemId == rhs.itemId && lhs.fields == rhs.fields }

    func hash(into hasher: inout Hasher) {
        hasher.combine(itemId)
        hasher.combine(fields)
    }

    var json: JSONValue { .object(fields) }
    var media: [String: JSONValue] { fields["media"]?.objectValue ?? [:] }
    /// The URL the device would fetch: `contentUrl`, else `contentId`.
    var url: String { media["contentUrl"]?.stringValue ?? media["contentId"]?.stringValue ?? "" }
    /// How long the item plays: `playbackDuration`, else the media's `duration`; `nil` for open-ended media.
    private var computedDuration: Double? {
        let full = media["duration"].flatMap(Lenient.number).flatMap { $0 >= 0 ? $0 : nil }
        if let limit = fields["playbackDuration"].flatMap(Lenient.number), limit >= 0 {
            let start = startTime
            if let full { return min(full, start + limit) }
            return start + limit
        }
        if let isLive = media["streamType"]?.stringValue, isLive.uppercased() == "LIVE" { return nil }
        return full
    }
    var startTime: Double { max(0, fields["startTime"].flatMap(Lenient.number) ?? 0) }
    var autoplay: Bool { fields["autoplay"].flatMap(Lenient.autoplay) ?? true }
    var preloadTime: Double? { fields["preloadTime"].flatMap(Lenient.number) }
    var activeTrackIds: [Int]? { fields["activeTrackIds"]?.arrayValue?.compactMap(Lenient.int) }
    var tracks: [[String: JSONValue]] { media["tracks"]?.arrayValue?.compactMap(\.objectValue) ?? [] }
    var trackIds: Set<Int> { Set(tracks.compactMap { $0["trackId"].flatMap(Lenient.int) }) }

    /// Validates an item of LOAD/QUEUE_LOAD/QUEUE_INSERT (an object with a valid `media` and no
    /// `itemId`) and returns it with loosely typed members in their canonical form.
    static func parseNew(_ value: JSONValue) throws(RequestFailure) -> [String: JSONValue] {
        guard var fields = value.objectValue, Lenient.isAbsent(fields["itemId"]) else {
            throw .invalidParams
        }
        fields["itemId"] = nil
        guard let media = fields["media"]?.objectValue else { throw .invalidParams }
        fields["media"] = .object(try normalizedMedia(media))
        let typed = RequestFields(fields)
        canonical(&fields, "autoplay", fields["autoplay"].flatMap(Lenient.autoplay).map { JSONValue.bool($0) })
        canonical(&fields, "startTime", try typed.number("startTime").map { JSONValue.number($0) })
        canonical(&fields, "playbackDuration", try typed.number("playbackDuration").map { JSONValue.number($0) })
        canonical(&fields, "preloadTime", try typed.number("preloadTime").map { JSONValue.number($0) })
        canonical(&fields, "activeTrackIds", try typed.intArray("activeTrackIds").map { ids in .array(ids.map { JSONValue($0) }) })
        return fields
    }

    /// Replaces a member by its canonical value (a `null` member is dropped).
    private static func canonical(_ fields: inout [String: JSONValue], _ key: String, _ value: JSONValue?) {
        if fields[key] != nil { fields[key] = value }
    }

    /// A MediaInformation must name its content (`contentId`, `contentUrl` or `entity`) with strings.
    /// Returns it with `duration` and track ids as numbers and a missing or `null` `streamType` as
    /// `BUFFERED`, the Web Receiver's default.
    static func normalizedMedia(_ media: [String: JSONValue]) throws(RequestFailure) -> [String: JSONValue] {
        var media = media
        let typed = RequestFields(media)
        let contentId = try typed.string("contentId")
        let contentUrl = try typed.string("contentUrl")
        let entity = try typed.string("entity")
        guard contentId != nil || contentUrl != nil || entity != nil else { throw .invalidParams }
        _ = try typed.string("contentType")
        canonical(&media, "duration", try typed.number("duration").map { JSONValue.number($0) })
        if let streamType = try typed.string("streamType") {
            guard ["BUFFERED", "LIVE", "NONE"].contains(streamType.uppercased()) else { throw .invalidParams }
        } else {
            media["streamType"] = "BUFFERED"
        }
        if let tracks = try typed.array("tracks") {
            var normalized: [JSONValue] = []
            for track in tracks {
                guard var track = track.objectValue, let trackId = track["trackId"].flatMap(Lenient.int),
                    let type = track["type"]?.stringValue, ["TEXT", "AUDIO", "VIDEO"].contains(type)
                else { throw .invalidParams }
                track["trackId"] = JSONValue(trackId)
                normalized.append(.object(track))
            }
            media["tracks"] = .array(normalized)
        }
        _ = try typed.object("textTrackStyle")
        _ = try typed.object("metadata")
        return media
    }

    /// Validates a MediaInformation (see ``normalizedMedia(_:)``).
    static func validateMedia(_ media: [String: JSONValue]) throws(RequestFailure) {
        _ = try normalizedMedia(media)
    }
}

/// The playback of one media session (a LOAD or QUEUE_LOAD) of the Default Media Receiver.
struct MediaSessionState: Sendable, Hashable {
    var mediaSessionId: Int
    var items: [MediaQueueItem]
    var currentItemId: Int
    var playerState: String  // "PLAYING", "PAUSED" or "BUFFERING"
    /// Position (seconds) at `anchor`.
    var position: Double
    /// Engine time of the last position change.
    var anchor: Duration
    /// Engine time the current item became current. An item is never finished before
    /// ``minimumItemTime`` after it: a player takes time to load an item, and without a floor a queue
    /// of items with no length (duration 0) under a repeat mode finished thousands of items within
    /// one instant, each with a broadcast status (a FuzzReceiverRequests finding).
    var itemStartedAt: Duration = .zero
    /// The position the current item started at (its live edge then, for a live stream).
    var itemStartPosition = 0.0
    /// The least time an item is current before it ends by itself.
    static let minimumItemTime = Duration.milliseconds(250)
    var playbackRate: Double
    var repeatMode: RepeatMode
    var activeTrackIds: [Int]?
    var preloadedItemId: Int?
    var queueData: [String: JSONValue]?
    var customData: JSONValue?

    var currentIndex: Int { items.firstIndex { $0.itemId == currentItemId } ?? 0 }
    var currentItem: MediaQueueItem { items[currentIndex] }
    /// The indices of the items a MEDIA_STATUS carries: the previous, the current and the next one.
    var statusWindow: ClosedRange<Int> { statusWindow(around: currentIndex) }

    /// ``statusWindow`` for a current index the caller has already found (finding it scans the queue).
    func statusWindow(around index: Int) -> ClosedRange<Int> {
        max(0, index - 1)...min(items.count - 1, index + 1)
    }

    func index(of itemId: Int) -> Int? { items.firstIndex { $0.itemId == itemId } }

    /// The playback position at `now`, extrapolated with the playback rate while playing.
    func currentTime(at now: Duration) -> Double {
        guard playerState == "PLAYING" else { return position }
        let time = position + (now - anchor).seconds * playbackRate
        if !items.isEmpty, let duration = currentItem.duration { return min(time, duration) }
        return time
    }

    /// Where a seek to `target` lands, as the device's player handles a seek (see ``MediaSeekability``):
    /// anywhere in a seekable item; back at the start of a progressive file served without byte
    /// ranges; within a live stream's window behind its live edge (which moves on with the clock,
    /// whatever the player does); and nowhere (the position stays) in a live stream of unknown window.
    func seekablePosition(nearest target: Double, at now: Duration) -> Double {
        switch currentItem.seekability {
        case .full:
            return target
        case .startOnly:
            return 0
        case .none:
            return position
        case .liveWindow(let window):
            let edge = itemStartPosition + max(0, (now - itemStartedAt).seconds)
            return min(max(target, edge - window, 0), edge)
        }
    }

    /// Makes `now` the anchor, keeping the position continuous.
    mutating func rebase(at now: Duration) {
        position = currentTime(at: now)
        anchor = now
    }

    /// The index the queue moves to when the current item ends, or `nil` at the end of the queue.
    var autoAdvanceIndex: Int? {
        if repeatMode == .single { return currentIndex }
        if currentIndex + 1 < items.count { return currentIndex + 1 }
        return repeatMode.wraps ? 0 : nil
    }

    /// The index `jump` items away from the current one, wrapping under REPEAT_ALL; `nil` if off the queue.
    func index(jumping offset: Int) -> Int? {
        let target = currentIndex + offset
        if items.indices.contains(target) { return target }
        guard repeatMode.wraps, !items.isEmpty else { return nil }
        return ((target % items.count) + items.count) % items.count
    }

    /// The next instant at which playback changes on its own (the current item ends, the next one
    /// preloads), if any.
    var nextDeadline: Duration? {
        switch (endInstant, preloadInstant) {
        case (let end?, let preload?): return min(end, preload)
        case (let end, let preload): return end ?? preload
        }
    }

    /// When the current item reaches its end, if it is playing and has a duration.
    var endInstant: Duration? {
        guard playerState == "PLAYING", let duration = items[currentIndex].duration else { return nil }
        return max(anchor + Self.playTime((duration - position) / playbackRate), itemStartedAt + Self.minimumItemTime)
    }

    /// `seconds` of playback as a `Duration`: at least zero, at most a century (see
    /// `Duration.saturatingSeconds`). An end or a preload instant can be any number a sender sent.
    static func playTime(_ seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }  // NaN too
        return .saturatingSeconds(seconds)
    }

    /// When the next item must be preloaded (its `preloadTime` before the current item ends).
    var preloadInstant: Duration? {
        guard playerState == "PLAYING", preloadedItemId == nil, repeatMode != .single,
            let next = autoAdvanceIndex, next != currentIndex,
            let preload = items[next].preloadTime, preload > 0, let duration = items[currentIndex].duration
        else { return nil }
        return anchor + Self.playTime((duration - preload - position) / playbackRate)
    }
}
