import CastJSON

/// A message an app's state machine sends: to the sender of the request, or to every connected sender.
enum AppOutput: Sendable, Hashable {
    case reply(JSONValue)
    case broadcast(JSONValue)
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
    var fields: [String: JSONValue]

    var json: JSONValue { .object(fields) }
    var media: [String: JSONValue] { fields["media"]?.objectValue ?? [:] }
    /// The URL the device would fetch: `contentUrl`, else `contentId`.
    var url: String { media["contentUrl"]?.stringValue ?? media["contentId"]?.stringValue ?? "" }
    /// How long the item plays: `playbackDuration`, else the media's `duration`; `nil` for open-ended media.
    var duration: Double? {
        if let limit = fields["playbackDuration"]?.doubleValue, limit >= 0 {
            let start = startTime
            if let full = media["duration"]?.doubleValue, full >= 0 { return min(full, start + limit) }
            return start + limit
        }
        if let isLive = media["streamType"]?.stringValue, isLive.uppercased() == "LIVE" { return nil }
        guard let duration = media["duration"]?.doubleValue, duration >= 0 else { return nil }
        return duration
    }
    var startTime: Double { max(0, fields["startTime"]?.doubleValue ?? 0) }
    var autoplay: Bool { fields["autoplay"]?.boolValue ?? true }
    var preloadTime: Double? { fields["preloadTime"]?.doubleValue }
    var activeTrackIds: [Int]? { fields["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) }
    var tracks: [[String: JSONValue]] { media["tracks"]?.arrayValue?.compactMap(\.objectValue) ?? [] }
    var trackIds: Set<Int> { Set(tracks.compactMap { $0["trackId"]?.intValue }) }

    /// Validates an item of LOAD/QUEUE_LOAD/QUEUE_INSERT: an object with a valid `media` and no `itemId`.
    static func parseNew(_ value: JSONValue) throws(RequestFailure) -> [String: JSONValue] {
        guard var fields = value.objectValue, fields["itemId"] == nil || fields["itemId"] == .null else {
            throw .invalidParams
        }
        fields["itemId"] = nil
        guard let media = fields["media"]?.objectValue else { throw .invalidParams }
        try validateMedia(media)
        let typed = RequestFields(fields)
        _ = try typed.bool("autoplay")
        _ = try typed.number("startTime")
        _ = try typed.number("playbackDuration")
        _ = try typed.number("preloadTime")
        _ = try typed.intArray("activeTrackIds")
        return fields
    }

    /// A MediaInformation must name its content (`contentId`, `contentUrl` or `entity`) with strings.
    static func validateMedia(_ media: [String: JSONValue]) throws(RequestFailure) {
        let typed = RequestFields(media)
        let contentId = try typed.string("contentId")
        let contentUrl = try typed.string("contentUrl")
        let entity = try typed.string("entity")
        guard contentId != nil || contentUrl != nil || entity != nil else { throw .invalidParams }
        _ = try typed.string("contentType")
        _ = try typed.number("duration")
        if let streamType = try typed.string("streamType"),
            !["BUFFERED", "LIVE", "NONE"].contains(streamType.uppercased())
        {
            throw .invalidParams
        }
        if let tracks = try typed.array("tracks") {
            for track in tracks {
                guard let track = track.objectValue, track["trackId"]?.intValue != nil,
                    let type = track["type"]?.stringValue, ["TEXT", "AUDIO", "VIDEO"].contains(type)
                else { throw .invalidParams }
            }
        }
        _ = try typed.object("textTrackStyle")
        _ = try typed.object("metadata")
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
    var playbackRate: Double
    var repeatMode: RepeatMode
    var activeTrackIds: [Int]?
    var preloadedItemId: Int?
    var queueData: [String: JSONValue]?
    var customData: JSONValue?

    var currentIndex: Int { items.firstIndex { $0.itemId == currentItemId } ?? 0 }
    var currentItem: MediaQueueItem { items[currentIndex] }

    func index(of itemId: Int) -> Int? { items.firstIndex { $0.itemId == itemId } }

    /// The playback position at `now`, extrapolated with the playback rate while playing.
    func currentTime(at now: Duration) -> Double {
        guard playerState == "PLAYING" else { return position }
        let time = position + (now - anchor).seconds * playbackRate
        if !items.isEmpty, let duration = currentItem.duration { return min(time, duration) }
        return time
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

    /// When the current item reaches its end, if it is playing and has a duration.
    var endInstant: Duration? {
        guard playerState == "PLAYING", let duration = currentItem.duration else { return nil }
        return anchor + .seconds(max(0, duration - position) / playbackRate)
    }

    /// When the next item must be preloaded (its `preloadTime` before the current item ends).
    var preloadInstant: Duration? {
        guard playerState == "PLAYING", preloadedItemId == nil, repeatMode != .single,
            let next = autoAdvanceIndex, next != currentIndex,
            let preload = items[next].preloadTime, preload > 0, let duration = currentItem.duration
        else { return nil }
        return anchor + .seconds(max(0, duration - preload - position) / playbackRate)
    }
}
