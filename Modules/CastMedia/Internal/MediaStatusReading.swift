import CastJSON
import CastMetadata

// MEDIA_STATUS read straight from the payload's bytes with `JSONPullReader`, without a `JSONValue` tree
// for the message, its statuses, media, tracks and queue items. The rules are those of the tree decoders
// (`init(json:)`), member by member, and `MediaStatusReadingTests` and the `media_status_bytes` fuzz target
// hold the two to the same results:
// - a member of the wrong type reads as absent (each `lenient…` read consumes the value whatever it is);
// - a repeated member keeps its last value (every occurrence overwrites, `nil` included);
// - `null` reads as absent; unknown members are skipped, or kept in `additionalFields` where the model
//   keeps them;
// - rarely sent or small nested models (volume, queue data, text track style, metadata…) are read as a
//   subtree and handed to their `init(json:)`, so their rules live in one place.

extension MediaStatusMessage {
    /// Reads a MEDIA_STATUS message from its JSON text (UTF-8), with the result of
    /// `MediaStatusMessage(json: JSONValue(parsing: bytes))` but without building the tree.
    /// - Throws: `JSONError`: `malformed` when the bytes are not JSON, `typeMismatch` when the value is not
    ///   an object.
    package init(utf8 bytes: some Collection<UInt8>) throws(JSONError) {
        self = try JSONPullReader.read(bytes) { reader throws(JSONError) in try Self(reading: &reader) }
    }

    private enum Member: Int, CaseIterable { case requestId, status }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    init(reading reader: inout JSONPullReader) throws(JSONError) {
        guard try reader.peek() == .object else {
            let value = try reader.readValue()
            throw JSONError(code: .typeMismatch, message: "MediaStatusMessage must be a JSON object, not \(value.shortDescription)")
        }
        var requestId: Int?
        var status: [MediaStatus] = []
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch Self.members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .requestId: requestId = try reader.lenientInt()
            case .status: status = try reader.readableElements { reader throws(JSONError) in try MediaStatus.read(from: &reader) }
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        self.init(requestId: requestId, status: status)
    }
}

extension JSONPullReader {
    /// The next value read as a subtree by `make`; `nil` for `null` or when `make` throws (the tree
    /// decoders' `model` rule).
    mutating func model<Model>(_ make: (JSONValue) throws(JSONError) -> Model) throws(JSONError) -> Model? {
        guard let value = try optionalValue() else { return nil }
        do {
            return try make(value)
        } catch {
            return nil
        }
    }

    /// The next value as a string enumeration; `nil` when it is not a string.
    mutating func enumeration<Value: CastStringEnumeration>(_ type: Value.Type = Value.self) throws(JSONError) -> Value? {
        try lenientString().map(Value.init(rawValue:))
    }
}

extension MediaStatus {
    private enum Member: Int, CaseIterable {
        case mediaSessionId, playerState, idleReason, currentTime, playbackRate, supportedMediaCommands, volume,
            activeTrackIds, media, currentItemId, loadingItemId, preloadedItemId, items, repeatMode, queueData,
            customData, breakStatus, liveSeekableRange, videoInfo, extendedStatus
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as a status; `nil` (value consumed) when it is not an object or has no integer
    /// `mediaSessionId`, as ``init(json:)`` throws.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> MediaStatus? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return nil
        }
        var mediaSessionId: Int?
        var playerState: PlayerState?
        var currentTime: Double?
        var playbackRate: Double?
        var supportedMediaCommands: Int?
        var status = MediaStatus(mediaSessionId: 0, playerState: .unknown)
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .mediaSessionId: mediaSessionId = try reader.lenientInt()
            case .playerState: playerState = try reader.enumeration()
            case .idleReason: status.idleReason = try reader.enumeration()
            case .currentTime: currentTime = try reader.lenientDouble()
            case .playbackRate: playbackRate = try reader.lenientDouble()
            case .supportedMediaCommands: supportedMediaCommands = try reader.lenientInt()
            case .volume: status.volume = try reader.model(MediaVolume.init(json:))
            case .activeTrackIds: status.activeTrackIds = try reader.lenientInts()
            case .media: status.media = try MediaInformation.read(from: &reader)
            case .currentItemId: status.currentItemId = try reader.lenientInt()
            case .loadingItemId: status.loadingItemId = try reader.lenientInt()
            case .preloadedItemId: status.preloadedItemId = try reader.lenientInt()
            case .items: status.items = try reader.lenientArray { reader throws(JSONError) in try QueueItem.read(from: &reader) }
            case .repeatMode: status.repeatMode = try reader.enumeration()
            case .queueData: status.queueData = try reader.model(QueueData.init(json:))
            case .customData: status.customData = try reader.optionalValue().map(CastCustomData.init)
            case .breakStatus: status.breakStatus = try reader.optionalValue()
            case .liveSeekableRange: status.liveSeekableRange = try reader.model(LiveSeekableRange.init(json:))
            case .videoInfo: status.videoInfo = try reader.model(VideoInformation.init(json:))
            case .extendedStatus: status.extendedStatus = try reader.model(ExtendedMediaStatus.init(json:))
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        guard let mediaSessionId else { return nil }
        status.mediaSessionId = mediaSessionId
        status.playerState = playerState ?? .unknown
        status.currentTime = currentTime ?? 0
        status.playbackRate = playbackRate ?? 1
        status.supportedMediaCommands = supportedMediaCommands.map(SupportedMediaCommands.init(rawValue:)) ?? []
        return status
    }
}

extension MediaInformation {
    private enum Member: Int, CaseIterable {
        case contentId, contentUrl, contentType, streamType, duration, metadata, tracks, textTrackStyle, customData,
            hlsSegmentFormat, hlsVideoSegmentFormat, entity, mediaCategory, startAbsoluteTime
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as media information; `nil` (value consumed) when it is not an object, as
    /// ``init(json:)`` throws.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> MediaInformation? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return nil
        }
        var contentId: String?
        var contentType: String?
        var streamType: StreamType?
        var media = MediaInformation(contentId: "", contentType: "")
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .contentId: contentId = try reader.lenientString()
            case .contentUrl: media.contentUrl = try reader.lenientString()
            case .contentType: contentType = try reader.lenientString()
            case .streamType: streamType = try reader.enumeration()
            case .duration: media.duration = try reader.lenientDouble()
            case .metadata: media.metadata = try reader.model(CastMetadata.init(json:))
            case .tracks: media.tracks = try reader.lenientArray { reader throws(JSONError) in try MediaTrack.read(from: &reader) }
            case .textTrackStyle: media.textTrackStyle = try reader.model(TextTrackStyle.init(json:))
            case .customData: media.customData = try reader.optionalValue().map(CastCustomData.init)
            case .hlsSegmentFormat: media.hlsSegmentFormat = try reader.enumeration()
            case .hlsVideoSegmentFormat: media.hlsVideoSegmentFormat = try reader.enumeration()
            case .entity: media.entity = try reader.lenientString()
            case .mediaCategory: media.mediaCategory = try reader.enumeration()
            case .startAbsoluteTime: media.startAbsoluteTime = try reader.lenientDouble()
            case nil:
                let name = key.string
                media.additionalFields[name] = try reader.readValue()
            }
            more = try reader.endMember()
        }
        media.contentId = contentId ?? ""
        media.contentType = contentType ?? ""
        media.streamType = streamType ?? .buffered
        return media
    }
}

extension MediaTrack {
    private enum Member: Int, CaseIterable {
        case trackId, type, subtype, trackContentId, trackContentType, name, language, customData, isInband, roles
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as a track; `nil` (value consumed) when it is not an object or has no integer
    /// `trackId`, as ``init(json:)`` throws.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> MediaTrack? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return nil
        }
        var trackId: Int?
        var type: Kind?
        var track = MediaTrack(trackId: 0, type: .text)
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .trackId: trackId = try reader.lenientInt()
            case .type: type = try reader.enumeration()
            case .subtype: track.subtype = try reader.enumeration()
            case .trackContentId: track.contentId = try reader.lenientString()
            case .trackContentType: track.contentType = try reader.lenientString()
            case .name: track.name = try reader.lenientString()
            case .language: track.language = try reader.lenientString()
            case .customData: track.customData = try reader.optionalValue().map(CastCustomData.init)
            case .isInband: track.isInband = try reader.lenientBool()
            case .roles: track.roles = try reader.lenientStrings()
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        guard let trackId else { return nil }
        track.trackId = trackId
        track.type = type ?? .text
        return track
    }
}

extension QueueItem {
    private enum Member: Int, CaseIterable {
        case itemId, media, autoplay, startTime, playbackDuration, preloadTime, activeTrackIds, customData, orderId
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as a queue item; `nil` (value consumed) when it is not an object, as ``init(json:)``
    /// throws.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> QueueItem? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return nil
        }
        var item = QueueItem(media: nil, autoplay: nil)
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .itemId: item.itemId = try reader.lenientInt()
            case .media: item.media = try MediaInformation.read(from: &reader)
            case .autoplay: item.autoplay = try reader.lenientBool()
            case .startTime: item.startTime = try reader.lenientDouble()
            case .playbackDuration: item.playbackDuration = try reader.lenientDouble()
            case .preloadTime: item.preloadTime = try reader.lenientDouble()
            case .activeTrackIds: item.activeTrackIds = try reader.lenientInts()
            case .customData: item.customData = try reader.optionalValue().map(CastCustomData.init)
            case .orderId: item.orderId = try reader.lenientInt()
            case nil:
                let name = key.string
                item.additionalFields[name] = try reader.readValue()
            }
            more = try reader.endMember()
        }
        return item
    }
}
